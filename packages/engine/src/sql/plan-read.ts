// The planning read: the task runs of executions locked for planning, every
// attempt, latest first per task, with whether each has a planning request.
import { EXECUTION_COLUMNS } from './fragments.js';

/** What planning reads of each task run (`t`), with whether it has a planning request. */
const PLAN_READ_COLUMNS = `t.id, t.execution_id, t.task_key, t.attempt, t.state, t.reason, t.error, t.pool, t.executor_type, t.outputs, t.child_execution_id,
  EXISTS (SELECT 1 FROM plan_requests p WHERE p.task_run_id = t.id) AS requested`;

/** The planning read of executions (their task runs, latest attempt first per task). */
export const planRead = (executionIds: string[]): { name: string; text: string; values: unknown[] } => ({
  name: 'svc-plan-read',
  text: `SELECT ${PLAN_READ_COLUMNS} FROM task_runs t WHERE t.execution_id = ANY($1) ORDER BY t.execution_id, t.task_key, t.attempt DESC`,
  values: [executionIds],
});

/** The latest attempt of each task of an execution ($1). */
export const LATEST_RUNS_SQL = `SELECT DISTINCT ON (task_key) id, execution_id, task_key, attempt, state, reason, error, pool, executor_type, outputs, child_execution_id
     FROM task_runs WHERE execution_id = $1 ORDER BY task_key, attempt DESC`;

/** Up to $1 executions with planning requests that no other pass holds, locked, with the count of executions requested (`requested`). */
export const LOCK_REQUESTED_SQL = `WITH f AS MATERIALIZED (SELECT DISTINCT execution_id FROM plan_requests),
                    l AS (SELECT ${EXECUTION_COLUMNS} FROM executions WHERE id = ANY(ARRAY(SELECT execution_id FROM f)) ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED)
               SELECT l.*, n.requested FROM (SELECT count(*)::int AS requested FROM f) n LEFT JOIN l ON true`;

/** A row when a planning request is older than $1. */
export const STALE_REQUESTS_SQL = `SELECT 1 FROM plan_requests WHERE created_at < $1 LIMIT 1`;
