// One planning step for any number of executions, in one statement: queued,
// retried, skipped and cancelled task runs, ended executions, their history
// rows, the NOTIFY hints, and the planning requests of the runs it saw,
// deleted (advance.ts computes the lists; the planner runs it). With $9, the
// hint for QUEUED runs is the caller's (it claims in the same transaction and
// wakes dispatchers only for what it left: complete.ts endAndPlan).
import { CHANNELS } from '../db.js';
import { HAS_FLOW_TRIGGERS, servedSql } from './fragments.js';
import { ENDS_EXECUTION, QUEUES_TASK_RUN, STOPS_UNSTARTED_TASK_RUN } from './guards.js';

// Its lists are JSON parameters, not arrays: unnest and = ANY estimate rows from an array's
// length in a custom plan and guess in a generic one, which made PostgreSQL plan this
// statement again at every pass (0.8 ms); JSON lists get the same estimate in both, so the
// prepared statement keeps its generic plan.
export const APPLY_PLAN_SQL = `
WITH q AS (
  UPDATE task_runs t SET state = 'QUEUED', reason = CASE WHEN ${servedSql('t.pool', 't.executor_type', '$2')} THEN '' ELSE 'no_instance_for_pool' END,
    queued_at = $1, not_before = NULL, updated_at = $1
  WHERE t.id IN (SELECT jsonb_array_elements_text($3::jsonb)) AND t.state IN ${QUEUES_TASK_RUN}
  RETURNING t.id, t.execution_id, t.reason, t.executor_type),
r AS (
  INSERT INTO task_runs (id, execution_id, task_key, task_type, executor_type, pool, state, reason, attempt, spec, created_at, queued_at, not_before, updated_at)
  SELECT x.id, p.execution_id, p.task_key, p.task_type, p.executor_type, p.pool, 'QUEUED',
    CASE WHEN ${servedSql('p.pool', 'p.executor_type', '$2')} THEN '' ELSE 'no_instance_for_pool' END,
    p.attempt + 1, p.spec, $1, $1, COALESCE(p.ended_at, $1) + x.delay * interval '1 millisecond', $1
  FROM jsonb_to_recordset($4::jsonb) AS x(id text, prev text, delay bigint) JOIN task_runs p ON p.id = x.prev
  ON CONFLICT (execution_id, task_key, attempt) DO NOTHING
  RETURNING id, execution_id, reason, executor_type),
e AS (
  UPDATE task_runs t SET state = x.state, reason = x.reason, ended_at = $1, updated_at = $1
  FROM jsonb_to_recordset($5::jsonb) AS x(id text, from_state text, state text, reason text)
  WHERE t.id = x.id AND t.state IN ${STOPS_UNSTARTED_TASK_RUN}
  RETURNING t.id, t.execution_id, x.from_state, x.state, x.reason),
f AS (
  DELETE FROM plan_requests WHERE task_run_id IN (SELECT jsonb_array_elements_text($6::jsonb))),
x AS (
  UPDATE executions ex SET state = y.state, reason = y.reason, error = y.error, outputs = y.outputs, ended_at = $1, duration_ms = y.duration,
    concurrency_slot = NULL, updated_at = $1, version = ex.version + 1
  FROM jsonb_to_recordset($7::jsonb) AS y(id text, from_state text, state text, reason text, error text, outputs jsonb, duration bigint)
  WHERE ex.id = y.id AND ex.state IN ${ENDS_EXECUTION}
  RETURNING ex.id, y.from_state, ex.state, ex.reason, ex.flow_id, ex.parent_task_run_id, ex.concurrency_key, ${HAS_FLOW_TRIGGERS}),
h AS (
  INSERT INTO execution_history (execution_id, task_run_id, from_state, to_state, reason, actor, at)
  SELECT execution_id, id, 'PENDING', 'QUEUED', reason, '', $1 FROM q
  UNION ALL SELECT execution_id, id, NULL, 'PENDING', 'retry', '', $1 FROM r
  UNION ALL SELECT execution_id, id, 'PENDING', 'QUEUED', reason, '', $1 FROM r
  UNION ALL SELECT execution_id, id, from_state, state, reason, '', $1 FROM e
  UNION ALL SELECT id, NULL, from_state, state, reason, '', $1 FROM x),
n AS (
  SELECT DISTINCT executor_type FROM q WHERE NOT $9::boolean UNION SELECT executor_type FROM r WHERE NOT $9::boolean)
SELECT 'ended' AS kind, x.id, x.parent_task_run_id, x.concurrency_key, x.has_flow_triggers FROM x
UNION ALL SELECT 'notify', pg_notify('${CHANNELS.queued}', n.executor_type)::text, NULL, NULL, NULL FROM n
UNION ALL SELECT 'notify', pg_notify('${CHANNELS.changed}', c.id)::text, NULL, NULL, NULL FROM jsonb_array_elements_text($8::jsonb) AS c(id)`;
