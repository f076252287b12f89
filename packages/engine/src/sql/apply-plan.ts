// One planning step for any number of executions, in one statement: queued,
// retried, skipped and cancelled task runs, ended executions, their history
// rows, the NOTIFY hints, and the planning requests of the runs it saw,
// deleted (advance.ts computes the lists; the planner runs it). With $9, the
// hint for QUEUED runs is the caller's (it claims in the same transaction and
// wakes dispatchers only for what it left: complete.ts endAndPlan). With
// $10, runs it queues start at once for the caller's freed slot (the handoff,
// see below).
import type { Queryable } from '@svc/db';
import { CHANNELS } from '../channels.js';
import { DEFAULT_TASK_TIMEOUT_MS } from '../constants.js';
import type { EndedRow } from '../rows.js';
import type { ClaimOptions } from '../types.js';
import type { Writes } from '../planning/plan-step.js';
import { HAS_FLOW_TRIGGERS, onlineSince, servedSql } from './fragments.js';
import { CLAIMS_TASK_RUN, ENDS_EXECUTION, QUEUES_TASK_RUN, STOPS_UNSTARTED_TASK_RUN } from './guards.js';

// Its lists are JSON parameters, not arrays: unnest and = ANY estimate rows from an array's
// length in a custom plan and guess in a generic one, which made PostgreSQL plan this
// statement again at every pass (0.8 ms); JSON lists get the same estimate in both, so the
// prepared statement keeps its generic plan. Rows are found through
// \`= ANY(ARRAY(SELECT ... FROM the list))\`: a set-returning function over a parameter
// is estimated at 100 rows, for which a table of a few thousand rows is cheaper to read
// whole than through its key, and the generic plan read task_runs whole in every CTE
// (1 ms each at 12,000 rows); an array from a subquery is estimated small, so the key is used.
//
// The handoff: $10 lists runs to queue (of the caller's pools and executor
// type, at most its freed slots) that start at once, claimed by $11, when no
// QUEUED run of those pools and type is claimable (the claim takes the oldest
// first, so a run queued now would be taken only when none waits): they go
// PENDING -> QUEUED -> RUNNING in this statement, with both history rows, and
// come back as rows of kind 'started' (the claim's fields in \`run\`), so the
// chain's next task needs no claim statement of its own. Otherwise they are
// queued like the others. $12 the pools (JSON), $13 the executor type, $14 a test's
// clock (else the database's), $15 the default task timeout in milliseconds;
// the times are those the claim writes (claim-task-runs.ts). $16 the fan-out
// parents that end now their items ended (planning/fan-out.ts). $17 the
// PENDING runs of gated tasks that start waiting for approval, with their
// `approval` record (planning/approval.ts); a retry keeps its task's approval.
const AT = 'COALESCE($14::timestamptz, now())';
const START = `GREATEST(${AT}::timestamptz, $1::timestamptz)`;

const APPLY_PLAN_SQL = `
WITH go AS (
  SELECT jsonb_array_length($10::jsonb) > 0 AND NOT EXISTS (SELECT 1 FROM task_runs o WHERE o.state IN ${CLAIMS_TASK_RUN}
    AND o.pool IN (SELECT jsonb_array_elements_text($12::jsonb)) AND o.executor_type = $13 AND o.reason <> 'paused' AND (o.not_before IS NULL OR o.not_before <= ${AT})) AS ok),
direct AS (
  SELECT jsonb_array_elements_text($10::jsonb) AS id WHERE (SELECT ok FROM go)),
s AS (
  UPDATE task_runs t SET state = 'RUNNING', reason = '', queued_at = $1, not_before = NULL, claimed_by = $11, claimed_at = ${START}, started_at = ${START},
    last_heartbeat_at = ${AT}, updated_at = ${AT}, timeout_at = ${START} + COALESCE((t.spec->>'timeout_ms')::bigint, $15::bigint) * interval '1 millisecond'
  WHERE t.id = ANY(ARRAY(SELECT id FROM direct)) AND t.state IN ${QUEUES_TASK_RUN}
  RETURNING t.id, t.execution_id, t.task_key, t.task_type, t.executor_type, t.pool, t.attempt, t.item_index, t.item, t.started_at),
q AS (
  UPDATE task_runs t SET state = 'QUEUED', reason = CASE WHEN ${servedSql('t.pool', 't.executor_type', '$2')} THEN '' ELSE 'no_instance_for_pool' END,
    queued_at = $1, not_before = NULL, updated_at = $1
  WHERE t.id = ANY(ARRAY(SELECT jsonb_array_elements_text($3::jsonb) EXCEPT SELECT id FROM direct)) AND t.state IN ${QUEUES_TASK_RUN}
  RETURNING t.id, t.execution_id, t.reason, t.executor_type),
r AS (
  INSERT INTO task_runs (id, execution_id, task_key, task_type, executor_type, pool, state, reason, attempt, item_index, item, spec, approval, created_at, queued_at, not_before, updated_at)
  SELECT x.id, p.execution_id, p.task_key, p.task_type, p.executor_type, p.pool, 'QUEUED',
    CASE WHEN ${servedSql('p.pool', 'p.executor_type', '$2')} THEN '' ELSE 'no_instance_for_pool' END,
    p.attempt + 1, p.item_index, p.item, p.spec, p.approval, $1, $1, COALESCE(p.ended_at, $1) + x.delay * interval '1 millisecond', $1
  FROM jsonb_to_recordset($4::jsonb) AS x(id text, prev text, delay bigint) JOIN task_runs p ON p.id = x.prev
  WHERE p.id = ANY(ARRAY(SELECT jsonb_array_elements($4::jsonb)->>'prev'))
  ON CONFLICT (execution_id, task_key, item_index, attempt) DO NOTHING
  RETURNING id, execution_id, reason, executor_type),
e AS (
  UPDATE task_runs t SET state = x.state, reason = x.reason, error = CASE WHEN x.error = '' THEN t.error ELSE x.error END, ended_at = $1, updated_at = $1
  FROM jsonb_to_recordset($5::jsonb) AS x(id text, from_state text, state text, reason text, error text)
  WHERE t.id = x.id AND t.id = ANY(ARRAY(SELECT jsonb_array_elements($5::jsonb)->>'id')) AND t.state IN ${STOPS_UNSTARTED_TASK_RUN}
  RETURNING t.id, t.execution_id, x.from_state, x.state, x.reason),
fe AS (
  UPDATE task_runs t SET state = y.state, reason = y.reason, error = y.error, outputs = y.outputs, ended_at = $1, updated_at = $1,
    duration_ms = GREATEST(0, floor(extract(epoch FROM ($1::timestamptz - COALESCE(t.started_at, t.created_at))) * 1000))::bigint
  FROM jsonb_to_recordset($16::jsonb) AS y(id text, state text, reason text, error text, outputs jsonb)
  WHERE t.id = y.id AND t.id = ANY(ARRAY(SELECT jsonb_array_elements($16::jsonb)->>'id')) AND t.state = 'RUNNING' AND t.fan_out IS NOT NULL
  RETURNING t.id, t.execution_id, t.state, t.reason),
w AS (
  UPDATE task_runs t SET reason = 'awaiting_approval', approval = y.approval, approval_deadline = (y.approval->>'deadline')::timestamptz, updated_at = $1
  FROM jsonb_to_recordset($17::jsonb) AS y(id text, approval jsonb)
  WHERE t.id = y.id AND t.id = ANY(ARRAY(SELECT jsonb_array_elements($17::jsonb)->>'id')) AND t.state = 'PENDING' AND t.approval IS NULL),
f AS (
  DELETE FROM plan_requests WHERE task_run_id = ANY(ARRAY(SELECT jsonb_array_elements_text($6::jsonb)))),
x AS (
  UPDATE executions ex SET state = y.state, reason = y.reason, error = y.error, outputs = y.outputs, ended_at = $1, duration_ms = y.duration,
    concurrency_slot = NULL, updated_at = $1, version = ex.version + 1
  FROM jsonb_to_recordset($7::jsonb) AS y(id text, from_state text, state text, reason text, error text, outputs jsonb, duration bigint)
  WHERE ex.id = y.id AND ex.id = ANY(ARRAY(SELECT jsonb_array_elements($7::jsonb)->>'id')) AND ex.state IN ${ENDS_EXECUTION}
  RETURNING ex.id, y.from_state, ex.state, ex.reason, ex.flow_id, ex.parent_task_run_id, ex.concurrency_key, ${HAS_FLOW_TRIGGERS}),
h AS (
  INSERT INTO execution_history (execution_id, task_run_id, from_state, to_state, reason, actor, at)
  SELECT execution_id, id, 'PENDING', 'QUEUED', reason, '', $1 FROM q
  UNION ALL SELECT execution_id, id, 'PENDING', 'QUEUED', '', '', $1 FROM s
  UNION ALL SELECT execution_id, id, 'QUEUED', 'RUNNING', '', $11, started_at FROM s
  UNION ALL SELECT execution_id, id, NULL, 'PENDING', 'retry', '', $1 FROM r
  UNION ALL SELECT execution_id, id, 'PENDING', 'QUEUED', reason, '', $1 FROM r
  UNION ALL SELECT execution_id, id, from_state, state, reason, '', $1 FROM e
  UNION ALL SELECT execution_id, id, 'RUNNING', state, reason, '', $1 FROM fe
  UNION ALL SELECT id, NULL, from_state, state, reason, '', $1 FROM x),
n AS (
  SELECT DISTINCT executor_type FROM q WHERE NOT $9::boolean UNION SELECT executor_type FROM r WHERE NOT $9::boolean)
SELECT 'ended' AS kind, x.id, x.parent_task_run_id, x.concurrency_key, x.has_flow_triggers, NULL::jsonb AS run FROM x
UNION ALL SELECT 'started', s.id, NULL, NULL, NULL, to_jsonb(s) FROM s
UNION ALL SELECT 'notify', pg_notify('${CHANNELS.queued}', n.executor_type)::text, NULL, NULL, NULL, NULL FROM n
UNION ALL SELECT 'notify', pg_notify('${CHANNELS.changed}', c.id)::text, NULL, NULL, NULL, NULL FROM jsonb_array_elements_text($8::jsonb) AS c(id)`;

/** A row of the plan's write: an ended execution, a run started at once (`run`: the claim's fields), or a NOTIFY. */
export type AppliedRow = EndedRow & { kind: 'ended' | 'started' | 'notify'; run: Record<string, unknown> | null };

/**
 * Writes one planning step (`w`, from planning/plan-step.ts) at `now`.
 * `quiet`: the NOTIFY for newly QUEUED runs is the caller's. `direct`: runs
 * to queue that start at once for `handoff` (see above).
 */
export async function applyPlan(db: Queryable, p: { now: Date; w: Writes; quiet: boolean; direct: string[]; handoff?: ClaimOptions }): Promise<AppliedRow[]> {
  const { w, handoff } = p;
  const r = await db.query<AppliedRow>({
    name: 'svc-plan-apply',
    text: APPLY_PLAN_SQL,
    values: [
      p.now,
      onlineSince(p.now),
      JSON.stringify(w.queue),
      JSON.stringify(w.retry),
      JSON.stringify(w.end),
      JSON.stringify(w.clear),
      JSON.stringify(w.execEnd),
      JSON.stringify([...w.changed]),
      p.quiet,
      JSON.stringify(p.direct),
      handoff?.instanceId ?? '',
      JSON.stringify(handoff?.pools ?? []),
      handoff?.executorType ?? '',
      handoff?.now ?? null,
      DEFAULT_TASK_TIMEOUT_MS,
      JSON.stringify(w.fanEnd),
      JSON.stringify(w.await),
    ],
  });
  return r.rows;
}
