// Claiming QUEUED task runs: one statement picks (FOR UPDATE SKIP LOCKED),
// moves them to RUNNING with their timeouts, writes their history rows and
// the NOTIFY hint, and tells when the next run held back by a backoff is due.
// A run held by its paused execution (reason `paused`) is not claimed.
import type { Queryable } from '@svc/db';
import { CHANNELS } from '../channels.js';
import { DEFAULT_TASK_TIMEOUT_MS } from '../constants.js';
import type { ExecutionRow } from '../rows.js';
import type { ClaimedRun, ClaimOptions } from '../types.js';
import { EXECUTION_COLUMNS, servedSql } from './fragments.js';
import { CLAIMS_TASK_RUN } from './guards.js';

const EXECUTION_FIELDS = EXECUTION_COLUMNS.split(',').map((c) => c.trim());
// Claim times (start, timeout, first task heartbeat, backoff checks) are the
// database's clock unless a test passes its own, so a dispatcher whose clock is
// off cannot start a run already timed out, or look silent, to the watchdog.
const AT = 'COALESCE($4::timestamptz, now())';
// A run starts no earlier than it was queued: a claim in the transaction that
// planned the run (endAndPlan) reads now() as that transaction's start, which
// comes before the planner's queued_at.
const START = `GREATEST(${AT}::timestamptz, t.queued_at)`;
const CLAIM_SQL = `
WITH picked AS (
  SELECT t.id FROM task_runs t
  WHERE t.state IN ${CLAIMS_TASK_RUN} AND t.pool = ANY($2) AND t.executor_type = $3 AND t.reason <> 'paused' AND (t.not_before IS NULL OR t.not_before <= ${AT})
  ORDER BY t.queued_at, t.id
  FOR UPDATE SKIP LOCKED LIMIT $5),
c AS (
  UPDATE task_runs t SET state = 'RUNNING', reason = '', claimed_by = $1, claimed_at = ${START}, started_at = ${START}, last_heartbeat_at = ${AT}, updated_at = ${AT},
    timeout_at = ${START} + COALESCE((t.spec->>'timeout_ms')::bigint, $6::bigint) * interval '1 millisecond'
  FROM picked WHERE t.id = picked.id
  RETURNING t.id, t.execution_id, t.task_key, t.task_type, t.executor_type, t.pool, t.attempt, t.item_index, t.item, t.started_at,
    extract(epoch FROM (${START} - GREATEST(t.queued_at, COALESCE(t.not_before, t.queued_at)))) * 1000 AS waited_ms),
h AS (
  INSERT INTO execution_history (execution_id, task_run_id, from_state, to_state, reason, actor, at)
  SELECT execution_id, id, 'QUEUED', 'RUNNING', '', $1, started_at FROM c),
k AS (
  SELECT c.*, ${EXECUTION_FIELDS.map((f) => `e.${f} AS e_${f}`).join(', ')}, e.snapshot_id AS e_snapshot_id,
    pg_notify('${CHANNELS.changed}', c.execution_id)::text AS notified
  FROM c JOIN executions e ON e.id = c.execution_id)
SELECT n.next_at, n.claimed_at_now, k.* FROM (
  SELECT min(not_before) AS next_at, ${AT}::timestamptz AS claimed_at_now FROM task_runs
  WHERE state = 'QUEUED' AND pool = ANY($2) AND executor_type = $3 AND reason <> 'paused' AND not_before > ${AT}) n
LEFT JOIN k ON true`;

/** QUEUED runs of pools $1 and executor types $2 lose `no_instance_for_pool` (a dispatcher serving them came online). */
const CLEAR_NO_INSTANCE_SQL = `UPDATE task_runs SET reason = '' WHERE state = 'QUEUED' AND reason = 'no_instance_for_pool' AND pool = ANY($1) AND executor_type = ANY($2)`;

/** QUEUED runs of pools $1 and executor types $2 that no online dispatcher serves are labelled `no_instance_for_pool`. */
const MARK_UNSERVED_SQL = `UPDATE task_runs t SET reason = 'no_instance_for_pool'
     WHERE t.state = 'QUEUED' AND t.reason = '' AND t.pool = ANY($1) AND t.executor_type = ANY($2) AND NOT ${servedSql('t.pool', 't.executor_type', 'now()')}`;

/** A claimed run from a row holding the claim's fields (the claim's, or the plan's that started it: apply-plan.ts), with its execution. */
export const claimedRun = (r: ClaimedRun, execution: ClaimedRun['execution']): ClaimedRun => ({
  id: r.id,
  execution_id: r.execution_id,
  task_key: r.task_key,
  task_type: r.task_type,
  executor_type: r.executor_type,
  pool: r.pool,
  attempt: r.attempt,
  ...(r.item_index !== null && r.item_index !== undefined ? { item_index: r.item_index, item: r.item } : {}),
  ...(r.waited_ms !== null && r.waited_ms !== undefined ? { waited_ms: Math.max(0, Number(r.waited_ms)) } : {}),
  execution,
});

/**
 * Claims up to `limit` QUEUED runs (round trips: one), with the time the next
 * run held back by a backoff is due and the claim's time. Sets each run's
 * timeout from the task's `timeout`, recorded in milliseconds on the row when
 * it was created (else 24h).
 */
export async function claimTaskRuns(db: Queryable, p: ClaimOptions): Promise<{ runs: ClaimedRun[]; nextAt: Date | null; at: Date | undefined }> {
  const r = await db.query<Record<string, unknown> & { next_at: Date | null; claimed_at_now: Date; id: string | null }>({
    name: 'svc-claim',
    text: CLAIM_SQL,
    values: [p.instanceId, p.pools, p.executorType, p.now ?? null, Math.max(0, p.limit), DEFAULT_TASK_TIMEOUT_MS],
  });
  const runs: ClaimedRun[] = [];
  for (const row of r.rows) {
    if (row.id === null) continue;
    const execution = Object.fromEntries([...EXECUTION_FIELDS, 'snapshot_id'].map((f) => [f, row[`e_${f}`]])) as unknown as ExecutionRow & { snapshot_id: string };
    runs.push(claimedRun(row as unknown as ClaimedRun, execution));
  }
  return { runs, nextAt: r.rows[0]?.next_at ?? null, at: r.rows[0]?.claimed_at_now };
}

/** QUEUED runs of `pools` and `executorTypes` lose `no_instance_for_pool` (a dispatcher serving them came online). */
export async function clearNoInstanceReason(db: Queryable, p: { pools: string[]; executorTypes: string[] }): Promise<void> {
  await db.query(CLEAR_NO_INSTANCE_SQL, [p.pools, p.executorTypes]);
}

/** QUEUED runs of `pools` and `executorTypes` that no online dispatcher serves are labelled `no_instance_for_pool`. */
export async function markUnserved(db: Queryable, p: { pools: string[]; executorTypes: string[] }): Promise<void> {
  await db.query(MARK_UNSERVED_SQL, [p.pools, p.executorTypes]);
}
