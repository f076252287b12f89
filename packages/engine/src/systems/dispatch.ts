// Claims: a dispatcher takes QUEUED task runs of its pools and executor type,
// oldest first, in one statement (FOR UPDATE SKIP LOCKED: concurrent
// dispatchers never take the same row and never wait on each other). The same
// statement writes the history rows and the NOTIFY hints, returns what the
// dispatcher needs to prepare each run (its execution's row), and the time
// the next run held back by a retry backoff becomes claimable.
import type pg from 'pg';
import { DEFAULT_TASK_TIMEOUT_MS } from '../constants.js';
import type { ExecutionRow } from './advance.js';
import { CLAIM_SQL, EXECUTION_FIELDS } from '../sql/claim-task-runs.js';
import { CLEAR_NO_INSTANCE_SQL, MARK_UNSERVED_SQL } from '../sql/claim-task-runs.js';

export interface ClaimedRun {
  id: string;
  execution_id: string;
  task_key: string;
  task_type: string;
  executor_type: string;
  pool: string;
  attempt: number;
  /** The run's execution as it was at the claim (its definition, inputs, labels and ids do not change). */
  execution?: ExecutionRow & { snapshot_id: string };
}

export interface ClaimResult {
  runs: ClaimedRun[];
  /** The earliest future time at which a QUEUED run of these pools and type becomes claimable (retry backoff), or null. */
  nextAt: Date | null;
  /** The claim's time (the database's clock unless `now` was given): what `nextAt` is to be compared with. */
  at: Date;
}

export interface ClaimOptions {
  instanceId: string;
  pools: string[];
  executorType: string;
  limit: number;
  /** A test's clock; default the database's. */
  now?: Date;
}

/** A claimed run from a row holding the claim's fields (the claim's, or the plan's that started it: APPLY_PLAN_SQL), with its execution. */
export const claimedRun = (r: ClaimedRun, execution: ClaimedRun['execution']): ClaimedRun => ({
  id: r.id,
  execution_id: r.execution_id,
  task_key: r.task_key,
  task_type: r.task_type,
  executor_type: r.executor_type,
  pool: r.pool,
  attempt: r.attempt,
  execution,
});

/**
 * Claims up to `limit` QUEUED runs (round trips: one). Sets each run's
 * timeout from the task's `timeout`, recorded in milliseconds on the row when
 * it was created (else 24h).
 */
export async function claimRuns(pool: pg.Pool | pg.PoolClient, o: ClaimOptions): Promise<ClaimResult> {
  const r = await pool.query<Record<string, unknown> & { next_at: Date | null; claimed_at_now: Date; id: string | null }>({
    name: 'svc-claim',
    text: CLAIM_SQL,
    values: [o.instanceId, o.pools, o.executorType, o.now ?? null, Math.max(0, o.limit), DEFAULT_TASK_TIMEOUT_MS],
  });
  const runs: ClaimedRun[] = [];
  for (const row of r.rows) {
    if (row.id === null) continue;
    const execution = Object.fromEntries([...EXECUTION_FIELDS, 'snapshot_id'].map((f) => [f, row[`e_${f}`]])) as unknown as ExecutionRow & { snapshot_id: string };
    runs.push(claimedRun(row as unknown as ClaimedRun, execution));
  }
  return { runs, nextAt: r.rows[0]?.next_at ?? null, at: r.rows[0]?.claimed_at_now ?? o.now ?? new Date() };
}

/** claimRuns without the next claimable time. */
export async function claimTaskRuns(pool: pg.Pool, o: ClaimOptions): Promise<ClaimedRun[]> {
  if (o.limit <= 0) return [];
  return (await claimRuns(pool, o)).runs;
}

/** Clears `no_instance_for_pool` on QUEUED runs this dispatcher serves (it is online now). */
export async function clearNoInstanceReason(pool: pg.Pool, pools: string[], executorTypes: string[]): Promise<void> {
  await pool.query(CLEAR_NO_INSTANCE_SQL, [pools, executorTypes]);
}

/**
 * Labels `no_instance_for_pool` the QUEUED runs of these pools and executor
 * types that no online dispatcher serves any more (after this instance
 * withdrew an executor whose engine stopped answering).
 */
export async function markUnserved(pool: pg.Pool, pools: string[], executorTypes: string[]): Promise<void> {
  if (!executorTypes.length) return;
  await pool.query(MARK_UNSERVED_SQL, [pools, executorTypes]);
}
