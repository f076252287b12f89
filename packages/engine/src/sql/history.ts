// The hints and the record every state change leaves: a NOTIFY for those
// listening, and an append-only history row in the same transaction.
import type { Queryable } from '@svc/db';

/** A NOTIFY on `channel` with `payload` (a wake-up hint; listeners also poll). */
export async function notify(db: Queryable, p: { channel: string; payload: string }): Promise<void> {
  await db.query(`SELECT pg_notify($1, $2)`, [p.channel, p.payload]);
}

/** One state change of an execution (`taskRunId` absent) or of one of its task runs. */
export interface HistoryRow {
  executionId: string;
  taskRunId?: string | null;
  from: string | null;
  to: string;
  reason?: string;
  actor?: string;
}

/** History rows, all at `at`, in one statement (none: no statement). */
export async function insertHistory(db: Queryable, p: { rows: HistoryRow[]; at: Date }): Promise<void> {
  if (!p.rows.length) return;
  await db.query(
    `INSERT INTO execution_history (execution_id, task_run_id, from_state, to_state, reason, actor, at)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[])`,
    [
      p.rows.map((r) => r.executionId),
      p.rows.map((r) => r.taskRunId ?? null),
      p.rows.map((r) => r.from),
      p.rows.map((r) => r.to),
      p.rows.map((r) => r.reason ?? ''),
      p.rows.map((r) => r.actor ?? ''),
      p.rows.map(() => p.at),
    ],
  );
}
