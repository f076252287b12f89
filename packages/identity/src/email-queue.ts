// The email queue's other writes: a mail sender (apps/maintenance) claims due
// emails and records how each send went, and retention deletes old emails and
// daily quota counters. The queue's owner is this package (queueEmail in
// organization-email.ts writes the rows), so every statement on `emails` and
// `org_email_usage` is here. Claims use FOR UPDATE SKIP LOCKED, so any number
// of senders send each email once; a claim holds the row `sending` until
// `locked_until`.
import type { Queryable } from '@svc/db';

/** An email a sender claimed. */
export interface ClaimedEmail {
  id: string;
  from_address: string;
  to_address: string;
  subject: string;
  text: string;
  attempts: number;
}

/** Claims up to `limit` due emails (queued and due, or `sending` with a lapsed claim) for `senderId`, holding each `claimMs`. */
export async function claimEmails(db: Queryable, senderId: string, claimMs: number, limit: number): Promise<ClaimedEmail[]> {
  const r = await db.query<ClaimedEmail>(
    `UPDATE emails SET status = 'sending', locked_by = $1, locked_until = now() + $2 * interval '1 millisecond', attempts = attempts + 1
       WHERE id IN (
         SELECT id FROM emails
         WHERE (status = 'queued' AND next_attempt_at <= now()) OR (status = 'sending' AND locked_until < now())
         ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED)
       RETURNING id, from_address, to_address, subject, text, attempts`,
    [senderId, claimMs, limit],
  );
  return r.rows;
}

/** The email was sent (`messageId`: the SMTP server's), if `senderId` still holds its claim. */
export async function markEmailSent(db: Queryable, id: string, messageId: string | null, senderId: string): Promise<void> {
  await db.query(`UPDATE emails SET status = 'sent', sent_at = now(), message_id = $2, error = '', locked_by = NULL, locked_until = NULL WHERE id = $1 AND locked_by = $3`, [
    id,
    messageId,
    senderId,
  ]);
}

/** A send failed: `failed` for good (`last`), else queued again in `retryMs`; `error` recorded. If `senderId` still holds the claim. */
export async function markEmailNotSent(db: Queryable, id: string, o: { last: boolean; error: string; retryMs: number; senderId: string }): Promise<void> {
  await db.query(
    `UPDATE emails SET status = $2, error = $3, next_attempt_at = now() + $4 * interval '1 millisecond', locked_by = NULL, locked_until = NULL
         WHERE id = $1 AND locked_by = $5`,
    [id, o.last ? 'failed' : 'queued', o.error, o.retryMs, o.senderId],
  );
}

/** Organization emails accepted before `cutoff`, whatever their status (at most `limit`); how many went. */
export async function deleteEmailsBefore(db: Queryable, cutoff: Date, limit: number): Promise<number> {
  const r = await db.query(`DELETE FROM emails WHERE id IN (SELECT id FROM emails WHERE created_at < $1 ORDER BY created_at LIMIT $2)`, [cutoff, limit]);
  return r.rowCount ?? 0;
}

/** Daily quota counters of UTC days that ended before `cutoff` (at most `limit`); how many went. */
export async function deleteEmailUsageBefore(db: Queryable, cutoff: Date, limit: number): Promise<number> {
  const r = await db.query(
    `DELETE FROM org_email_usage WHERE (organization_id, day) IN (
       SELECT organization_id, day FROM org_email_usage WHERE day + 1 < ($1::timestamptz AT TIME ZONE 'UTC')::date ORDER BY day LIMIT $2)`,
    [cutoff, limit],
  );
  return r.rowCount ?? 0;
}

/** Marks a running mail sender present now (its row in mail_sender_instances: /readyz and an organization's status read it). */
export async function markMailSenderPresent(db: Queryable, instanceId: string): Promise<void> {
  await db.query(`INSERT INTO mail_sender_instances (instance_id, seen_at) VALUES ($1, now()) ON CONFLICT (instance_id) DO UPDATE SET seen_at = now()`, [instanceId]);
}

/** Forgets a stopped mail sender. */
export async function forgetMailSender(db: Queryable, instanceId: string): Promise<void> {
  await db.query(`DELETE FROM mail_sender_instances WHERE instance_id = $1`, [instanceId]);
}
