// The planning read: the task runs of executions locked for planning, every
// attempt, latest first per task, with whether each has a planning request.
import type { Queryable } from '@svc/db';
import type { ExecutionRow, TaskRunRow } from '../rows.js';
import { EXECUTION_COLUMNS } from './fragments.js';

/** What planning reads of each task run (`t`), with whether it has a planning request. */
const PLAN_READ_COLUMNS = `t.id, t.execution_id, t.task_key, t.attempt, t.state, t.reason, t.error, t.pool, t.executor_type, t.outputs, t.child_execution_id, t.item_index, t.fan_out,
  t.approval,
  EXISTS (SELECT 1 FROM plan_requests p WHERE p.task_run_id = t.id) AS requested`;

/**
 * The planning read of executions (their task runs, latest attempt first per
 * task; rows: RunRead) as a query to send: alone, or in a pipeline with the
 * statement that locked them (systems/completion.ts).
 */
export const planReadQuery = (p: { executionIds: string[] }): { name: string; text: string; values: unknown[] } => ({
  name: 'svc-plan-read',
  text: `SELECT ${PLAN_READ_COLUMNS} FROM task_runs t WHERE t.execution_id = ANY($1) ORDER BY t.execution_id, t.task_key, t.attempt DESC`,
  values: [p.executionIds],
});

/** The latest attempt of each task of execution `executionId` (a fan-out's parent, not its items). */
export async function latestRuns(db: Queryable, p: { executionId: string }): Promise<TaskRunRow[]> {
  const r = await db.query<TaskRunRow>(
    `SELECT DISTINCT ON (task_key) id, execution_id, task_key, attempt, state, reason, error, pool, executor_type, outputs, child_execution_id, approval
     FROM task_runs WHERE execution_id = $1 AND item_index IS NULL ORDER BY task_key, attempt DESC`,
    [p.executionId],
  );
  return r.rows;
}

/**
 * Up to `limit` executions with planning requests that no other pass holds,
 * locked, and the count of executions requested (more than were locked: some
 * are held by another pass, or past the batch). `id = ANY(ARRAY(...))`:
 * primary-key lookups whatever the statistics of this short-lived queue table
 * say (a join may be planned as a scan of all executions).
 */
export async function lockRequested(db: Queryable, p: { limit: number }): Promise<{ locked: ExecutionRow[]; requested: number }> {
  const r = await db.query<ExecutionRow & { requested: number }>({
    name: 'svc-plan-lock',
    text: `WITH f AS MATERIALIZED (SELECT DISTINCT execution_id FROM plan_requests),
                    l AS (SELECT ${EXECUTION_COLUMNS} FROM executions WHERE id = ANY(ARRAY(SELECT execution_id FROM f)) ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED)
               SELECT l.*, n.requested FROM (SELECT count(*)::int AS requested FROM f) n LEFT JOIN l ON true`,
    values: [p.limit],
  });
  return { locked: r.rows.filter((x) => x.id !== null), requested: r.rows[0]?.requested ?? 0 };
}

/** Whether a planning request is older than `olderThan`. */
export async function hasStaleRequests(db: Queryable, p: { olderThan: Date }): Promise<boolean> {
  const r = await db.query({ name: 'svc-plan-stale', text: `SELECT 1 FROM plan_requests WHERE created_at < $1 LIMIT 1`, values: [p.olderThan] });
  return (r.rowCount ?? 0) > 0;
}

/** The traceparents stored on executions `executionIds` (those that have one), by execution id: read only with tracing on. */
export async function storedTraceparents(db: Queryable, p: { executionIds: string[] }): Promise<Map<string, string>> {
  const r = await db.query<{ id: string; traceparent: string }>('SELECT id, traceparent FROM executions WHERE id = ANY($1) AND traceparent IS NOT NULL', [p.executionIds]);
  return new Map(r.rows.map((x) => [x.id, x.traceparent]));
}
