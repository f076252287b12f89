// Cancelling: a running execution asks its task runs to stop (CANCELLING),
// and a flow timeout cancels the task runs that have not started.
import type { Queryable } from '@svc/db';
import { executionFrom, STOPS_UNSTARTED_TASK_RUN } from './guards.js';

/** RUNNING → CANCELLING (a running execution: the states both a cancel and a success may leave). */
const REQUEST_CANCEL_SQL = `UPDATE executions SET state = 'CANCELLING', cancel_requested_at = $2, cancel_requested_by = $3, updated_at = $2, version = version + 1
  WHERE id = $1 AND state IN ${executionFrom('cancel', 'succeed')}`;

/** A task run that has not started, of an execution past its flow timeout. */
const CANCEL_UNSTARTED_SQL = `UPDATE task_runs SET state = 'CANCELLED', reason = 'execution_timed_out', ended_at = $2, updated_at = $2
  WHERE id = $1 AND state IN ${STOPS_UNSTARTED_TASK_RUN}`;

/** Children execution $1 waits for (their subflow task run is RUNNING) that have not ended: a cancel cancels them too. */
const WAITED_CHILDREN_SQL = `SELECT e.id FROM executions e JOIN task_runs t ON t.id = e.parent_task_run_id
     WHERE e.parent_execution_id = $1 AND t.state = 'RUNNING' AND e.state IN ('QUEUED', 'RUNNING', 'CANCELLING')`;

/** Execution `id` RUNNING → CANCELLING at `at`, asked by `actor`. */
export async function requestCancel(db: Queryable, p: { id: string; at: Date; actor: string }): Promise<void> {
  await db.query(REQUEST_CANCEL_SQL, [p.id, p.at, p.actor]);
}

/** Task run `id`, not started, of an execution past its flow timeout: CANCELLED at `at`. */
export async function cancelUnstarted(db: Queryable, p: { id: string; at: Date }): Promise<void> {
  await db.query(CANCEL_UNSTARTED_SQL, [p.id, p.at]);
}

/** Children execution `id` waits for (their subflow task run is RUNNING) that have not ended. */
export async function waitedChildren(db: Queryable, p: { id: string }): Promise<string[]> {
  return (await db.query<{ id: string }>(WAITED_CHILDREN_SQL, [p.id])).rows.map((x) => x.id);
}
