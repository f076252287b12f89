// A flow's concurrency limit: its starts and its queue are serialized by a
// transaction-level advisory lock on the flow's key, under which the count of
// running executions and the oldest QUEUED one are read.
import type { Queryable } from '@svc/db';
import type { ExecutionRow } from '../rows.js';
import { EXECUTION_COLUMNS } from './fragments.js';

/** Takes the advisory lock of concurrency key `key` until the transaction ends. */
export async function lockConcurrencyKey(db: Queryable, p: { key: string }): Promise<void> {
  await db.query(`SELECT pg_advisory_xact_lock(hashtextextended('svc-concurrency:' || $1, 0))`, [p.key]);
}

/** Executions of `key` running (`n`) and waiting (`queued`). */
export async function concurrencyCounts(db: Queryable, p: { key: string }): Promise<{ n: number; queued: number }> {
  const r = await db.query<{ n: number; queued: number }>(
    `SELECT count(*) FILTER (WHERE state IN ('RUNNING', 'CANCELLING'))::int AS n, count(*) FILTER (WHERE state = 'QUEUED')::int AS queued
       FROM executions WHERE concurrency_key = $1 AND state IN ('RUNNING', 'CANCELLING', 'QUEUED')`,
    [p.key],
  );
  return r.rows[0];
}

/** The oldest QUEUED execution of `key`, locked, with its flow's limit. */
export async function nextQueued(db: Queryable, p: { key: string }): Promise<(ExecutionRow & { limit: number | null }) | undefined> {
  const r = await db.query<ExecutionRow & { limit: number | null }>(
    `SELECT ${EXECUTION_COLUMNS}, (definition->'concurrency'->>'limit')::int AS limit FROM executions
         WHERE concurrency_key = $1 AND state = 'QUEUED' ORDER BY created_at, id LIMIT 1 FOR UPDATE`,
    [p.key],
  );
  return r.rows[0];
}

/** Executions of `key` running now. */
export async function concurrencyRunning(db: Queryable, p: { key: string }): Promise<number> {
  const r = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM executions WHERE concurrency_key = $1 AND state IN ('RUNNING', 'CANCELLING')`, [p.key]);
  return r.rows[0].n;
}
