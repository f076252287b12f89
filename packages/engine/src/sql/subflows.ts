// A subflow task run and the child execution it starts: the link between
// them, and finding a child a lost answer or an earlier attempt left behind.

/** Links subflow task run $1 to its child execution $2. */
export const LINK_CHILD_SQL = `UPDATE task_runs SET child_execution_id = $2 WHERE id = $1`;

/** The first child execution another attempt ($3 is this one) of task $2 of execution $1 started. */
export const CHILD_OF_EARLIER_ATTEMPT_SQL = `SELECT e.id FROM executions e JOIN task_runs t ON t.id = e.trigger_payload->>'parent_task_run_id'
       WHERE e.parent_execution_id = $1 AND e.trigger_type = 'subflow' AND t.execution_id = $1 AND t.task_key = $2 AND t.id <> $3
       ORDER BY e.created_at, e.id LIMIT 1`;

/** The child execution subflow task run $2 of execution $1 started. */
export const CHILD_OF_SQL = `SELECT id FROM executions WHERE parent_execution_id = $1 AND trigger_type = 'subflow' AND trigger_payload->>'parent_task_run_id' = $2 LIMIT 1`;

/** The end of child execution $1 and the state of its parent (a `child_ended` follow-up). */
export const CHILD_END_SQL = `SELECT e.state, e.outputs, e.error, p.state AS parent_state FROM executions e JOIN executions p ON p.id = e.parent_execution_id WHERE e.id = $1`;

/** The namespace of execution $1 (a subflow's parent: what its child may be). */
export const EXECUTION_NAMESPACE_SQL = `SELECT namespace FROM executions WHERE id = $1`;
