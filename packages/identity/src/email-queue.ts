// The email queue: rows of `emails` are jobs of @svc/jobs's queue (one
// table-parameterised primitive for background work), on this table's own
// columns: status queued -> sending -> sent | failed, attempts,
// next_attempt_at, the claim in locked_by / locked_until. queueEmail
// (organization-email.ts) enqueues, with the email's id as the key; a mail
// sender (apps/maintenance) claims due emails and records how each send
// went; retention deletes old emails and daily quota counters. The queue's
// owner is this package, so every statement on `emails` and
// `org_email_usage` is here or runs through the queue declared here. Claims
// use FOR UPDATE SKIP LOCKED, so any number of senders send each email once;
// a claim holds the row `sending` until `locked_until`.
import type { Queryable } from '@svc/db';
import { JobQueue, NOW, type FailOutcome, type Job, type JobDb, type RetryPolicy } from '@svc/jobs';

/** The channel whose NOTIFY (payload: the email id) wakes the mail senders for a queued email. */
export const EMAIL_QUEUED_CHANNEL = 'svc_email_queued';

/** What a sender needs of a claimed email. */
export interface EmailJob extends Record<string, unknown> {
  from_address: string;
  to_address: string;
  subject: string;
  text: string;
}

/** An email a sender claimed: `key` is its id, `attempt` counts from 1. */
export type ClaimedEmail = Job<EmailJob>;

/** Retries of an email: 8 attempts in all, the first retry after 5 s, doubling up to an hour. */
export const EMAIL_RETRY: RetryPolicy = { maxAttempts: 8, backoff: 'exponential', initialMs: 5_000, maxMs: 3_600_000 };

/** The email queue, with EMAIL_RETRY or parts of it replaced (a test's short first retry). */
export function emailQueue(retry: Partial<RetryPolicy> = {}): JobQueue<EmailJob> {
  return new JobQueue<EmailJob>(
    {
      table: 'emails',
      states: { queued: 'queued', running: 'sending', succeeded: 'sent', failed: 'failed' },
      returning: ['from_address', 'to_address', 'subject', 'text'],
      channel: EMAIL_QUEUED_CHANNEL,
    },
    { ...EMAIL_RETRY, ...retry },
  );
}

const EMAILS = emailQueue();

/** Claims up to `limit` due emails (queued and due, or `sending` with a lapsed claim) for `senderId`, holding each `claimMs`. */
export function claimEmails(db: Queryable, senderId: string, claimMs: number, limit: number): Promise<ClaimedEmail[]> {
  return EMAILS.claim(db, senderId, { leaseMs: claimMs, limit });
}

/** The email was sent (`messageId`: the SMTP server's), if `senderId` still holds its claim. */
export async function markEmailSent(db: Queryable, e: ClaimedEmail, messageId: string | null, senderId: string): Promise<void> {
  await EMAILS.succeed(db, e, senderId, { sent_at: NOW, message_id: messageId });
}

/**
 * A send failed with `error`: queued again as the retry policy says, or
 * `failed` for good when `permanent` or on its last attempt. If `senderId`
 * still holds the claim.
 */
export function markEmailNotSent(db: Queryable, e: ClaimedEmail, o: { error: string; permanent: boolean; senderId: string; retry?: Partial<RetryPolicy> }): Promise<FailOutcome> {
  return (o.retry ? emailQueue(o.retry) : EMAILS).fail(db, e, o.senderId, { error: o.error, permanent: o.permanent });
}

/**
 * Writes a queued email with its id as the key, unless one with that id
 * exists (a retry of whoever queued it), and wakes the senders when it
 * commits. True when written.
 */
export function enqueueEmail(
  db: JobDb,
  e: { id: string; organizationId: string; keyId: string | null; from: string; to: string; subject: string; text: string },
): Promise<boolean> {
  return EMAILS.enqueue(db, {
    id: e.id,
    organization_id: e.organizationId,
    key_id: e.keyId,
    from_address: e.from,
    to_address: e.to,
    subject: e.subject,
    text: e.text,
  });
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
