// The engine's outbox (systems/outbox.ts): follow-ups written in the
// transaction that caused them, taken with SKIP LOCKED, deleted when done.
import type { Queryable } from '@svc/db';
import type { FollowUp } from '../types.js';

/** Follow-up rows, written in the caller's transaction. */
export async function recordFollowUps(db: Queryable, p: { rows: { id: string; kind: FollowUp['kind']; payload: Record<string, unknown> }[] }): Promise<void> {
  await db.query({
    name: 'svc-outbox-record',
    text: `INSERT INTO engine_outbox (id, kind, payload) SELECT x.id, x.kind, x.payload FROM jsonb_to_recordset($1::jsonb) AS x(id text, kind text, payload jsonb)`,
    values: [JSON.stringify(p.rows)],
  });
}

/** Takes follow-up row `id` unless another instance holds it (or it is gone): whether it was taken. */
export async function takeFollowUp(db: Queryable, p: { id: string }): Promise<boolean> {
  const r = await db.query({ name: 'svc-outbox-take', text: `SELECT 1 FROM engine_outbox WHERE id = $1 FOR UPDATE SKIP LOCKED`, values: [p.id] });
  return !!r.rowCount;
}

/** Deletes follow-up row `id` (its work is done). */
export async function followUpDone(db: Queryable, p: { id: string }): Promise<void> {
  await db.query({ name: 'svc-outbox-done', text: `DELETE FROM engine_outbox WHERE id = $1`, values: [p.id] });
}

/** A follow-up row as the backstop picks it. */
export interface FollowUpRow {
  id: string;
  kind: FollowUp['kind'];
  payload: Record<string, unknown>;
}

/** Follow-up rows older than `olderThanMs`, oldest first, at most `limit` (the backstop's pick). */
export async function pendingFollowUps(db: Queryable, p: { olderThanMs: number; limit: number }): Promise<FollowUpRow[]> {
  const r = await db.query<FollowUpRow>({
    name: 'svc-outbox-pending',
    text: `SELECT id, kind, payload FROM engine_outbox WHERE created_at < now() - $1 * interval '1 millisecond' ORDER BY id LIMIT $2`,
    values: [p.olderThanMs, p.limit],
  });
  return r.rows;
}
