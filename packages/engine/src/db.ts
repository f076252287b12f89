// Small shared pieces of the engine's SQL: transactions, state history rows
// (every state change appends one, in the same transaction), NOTIFY hints.
import type pg from 'pg';
import { inTransaction } from '@svc/db';
import { INSERT_HISTORY_SQL, NOTIFY_SQL } from './sql/history.js';

export type Client = pg.PoolClient;

/**
 * Where engine work runs: the pool (each unit of work in a transaction of its
 * own), or a client already in a transaction (its units become savepoints of
 * it: a follow-up's work commits with the removal of its outbox row).
 */
export type Conn = pg.Pool | pg.PoolClient;

const isPool = (db: Conn): db is pg.Pool => 'totalCount' in db;

let savepoints = 0;

/** Runs `fn` in a transaction: its own on a pool, a savepoint of the caller's on a client. */
export async function inTx<T>(db: Conn, fn: (c: Client) => Promise<T>): Promise<T> {
  if (isPool(db)) return inTransaction(db, fn);
  const sp = `svc_sp_${++savepoints}`;
  await db.query(`SAVEPOINT ${sp}`);
  try {
    const out = await fn(db);
    await db.query(`RELEASE SAVEPOINT ${sp}`);
    return out;
  } catch (err) {
    await db.query(`ROLLBACK TO SAVEPOINT ${sp}`).catch(() => undefined);
    throw err;
  }
}

/** Channels. NOTIFY is only a wake-up hint: every listener also polls. */
export const CHANNELS = {
  /** A task run became QUEUED (payload: executor type). */
  queued: 'svc_task_queued',
  /** An execution is being cancelled or timed out (payload: execution id). */
  stop: 'svc_execution_stop',
  /** An execution or one of its task runs changed state (payload: execution id). */
  changed: 'svc_execution_changed',
} as const;

/** The channel of new log lines (payload: execution id): the gateway's live streams listen to it. */
export const LOG_CHANNEL = 'svc_log_lines';

export async function notify(c: Client | pg.Pool, channel: string, payload: string): Promise<void> {
  await c.query(NOTIFY_SQL, [channel, payload]);
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
  await c.query(INSERT_HISTORY_SQL, [
    rows.map((r) => r.executionId),
    rows.map((r) => r.taskRunId ?? null),
    rows.map((r) => r.from),
    rows.map((r) => r.to),
    rows.map((r) => r.reason ?? ''),
    rows.map((r) => r.actor ?? ''),
    rows.map(() => at),
  ]);
}
