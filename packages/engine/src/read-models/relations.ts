// The columns of `executions` that statements owned by other packages may
// join, as a subquery PostgreSQL inlines (a plain projection: the plan is the
// one of the table itself). For statements that must stay one statement (a
// claim, a delete guarded by "no execution refers to it", a count under an
// advisory lock), where asking the engine first would open a race. Only these
// columns are promised; anything else is asked of the engine's functions.
//
//   id, namespace, flow_id, state, snapshot_id, created_at, started_at, ended_at
//
// Use: `JOIN ${EXECUTIONS} e ON e.id = r.execution_id`.
export const EXECUTIONS = `(SELECT id, namespace, flow_id, state, snapshot_id, created_at, started_at, ended_at FROM executions)`;
