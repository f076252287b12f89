// Claims: a dispatcher takes QUEUED task runs of its pools and executor type,
// oldest first, in one statement (FOR UPDATE SKIP LOCKED: concurrent
// dispatchers never take the same row and never wait on each other).
import type pg from 'pg';
import { CHANNELS, history, inTx, notify } from './db.js';
import { DEFAULT_TASK_TIMEOUT_MS } from './constants.js';

export interface ClaimedRun {
  id: string;
  execution_id: string;
  task_key: string;
  task_type: string;
  executor_type: string;
  pool: string;
  attempt: number;
}

export async function claimTaskRuns(pool: pg.Pool, o: { instanceId: string; pools: string[]; executorType: string; limit: number; now: Date }): Promise<ClaimedRun[]> {
  if (o.limit <= 0) return [];
  return inTx(pool, async (c) => {
    // One statement claims the rows and sets their timeout (the task's `timeout`,
    // recorded in milliseconds on the row when it was created; else 24h).
    const r = await c.query<ClaimedRun>(
      `WITH picked AS (
         SELECT t.id FROM task_runs t
         WHERE t.state = 'QUEUED' AND t.pool = ANY($2) AND t.executor_type = $3 AND (t.not_before IS NULL OR t.not_before <= $4)
         ORDER BY t.queued_at, t.id
         FOR UPDATE SKIP LOCKED LIMIT $5)
       UPDATE task_runs t SET state = 'RUNNING', reason = '', claimed_by = $1, claimed_at = $4, started_at = $4, last_heartbeat_at = $4, updated_at = $4,
         timeout_at = $4::timestamptz + COALESCE((t.spec->>'timeout_ms')::bigint, $6::bigint) * interval '1 millisecond'
       FROM picked
       WHERE t.id = picked.id
       RETURNING t.id, t.execution_id, t.task_key, t.task_type, t.executor_type, t.pool, t.attempt`,
      [o.instanceId, o.pools, o.executorType, o.now, o.limit, DEFAULT_TASK_TIMEOUT_MS],
    );
    if (!r.rows.length) return [];
    await c.query(`UPDATE executions SET started_at = COALESCE(started_at, $2) WHERE id = ANY($1)`, [[...new Set(r.rows.map((x) => x.execution_id))], o.now]);
    await history(c, r.rows.map((x) => ({ executionId: x.execution_id, taskRunId: x.id, from: 'QUEUED', to: 'RUNNING', actor: o.instanceId })), o.now);
    for (const id of new Set(r.rows.map((x) => x.execution_id))) await notify(c, CHANNELS.changed, id);
    return r.rows;
  });
}

/** The earliest time a QUEUED run of these pools and type becomes claimable (retry backoff), for the dispatcher's sleep. */
export async function nextClaimableAt(pool: pg.Pool, pools: string[], executorType: string): Promise<Date | null> {
  const r = await pool.query<{ at: Date | null }>(
    `SELECT min(COALESCE(not_before, queued_at)) AS at FROM task_runs WHERE state = 'QUEUED' AND pool = ANY($1) AND executor_type = $2`,
    [pools, executorType],
  );
  return r.rows[0]?.at ?? null;
}

/** Clears `no_instance_for_pool` on QUEUED runs this dispatcher serves (it is online now). */
export async function clearNoInstanceReason(pool: pg.Pool, pools: string[], executorTypes: string[]): Promise<void> {
  await pool.query(`UPDATE task_runs SET reason = '' WHERE state = 'QUEUED' AND reason = 'no_instance_for_pool' AND pool = ANY($1) AND executor_type = ANY($2)`, [pools, executorTypes]);
}
