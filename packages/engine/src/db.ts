// Small shared pieces of the engine's SQL: transactions, state history rows
// (every state change appends one, in the same transaction), NOTIFY hints.
import type pg from 'pg';
import { inTransaction } from '@svc/db';

/** The engine's name for @svc/db's inTransaction. */
export const inTx = inTransaction;

export type Client = pg.PoolClient;


/** Channels. NOTIFY is only a wake-up hint: every listener also polls. */
export const CHANNELS = {
  /** A task run became QUEUED (payload: executor type). */
  queued: 'svc_task_queued',
  /** An execution is being cancelled or timed out (payload: execution id). */
  stop: 'svc_execution_stop',
  /** An execution or one of its task runs changed state (payload: execution id). */
  changed: 'svc_execution_changed',
} as const;

export async function notify(c: Client | pg.Pool, channel: string, payload: string): Promise<void> {
  await c.query(`SELECT pg_notify($1, $2)`, [channel, payload]);
}

export interface HistoryRow {
  executionId: string;
  taskRunId?: string | null;
  from: string | null;
  to: string;
  reason?: string;
  actor?: string;
}

export async function history(c: Client, rows: HistoryRow[], at: Date): Promise<void> {
  if (!rows.length) return;
  await c.query(
    `INSERT INTO execution_history (execution_id, task_run_id, from_state, to_state, reason, actor, at)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[])`,
    [
      rows.map((r) => r.executionId),
      rows.map((r) => r.taskRunId ?? null),
      rows.map((r) => r.from),
      rows.map((r) => r.to),
      rows.map((r) => r.reason ?? ''),
      rows.map((r) => r.actor ?? ''),
      rows.map(() => at),
    ],
  );
}
