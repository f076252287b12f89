// Reads of task runs that dispatchers and the gateway ask the engine for:
// what a runner needs, whether a run should stop, whether its task started.

/** The snapshot of task run $1's execution (the bundle a runner fetches). */
export const TASK_RUN_SNAPSHOT_SQL = `SELECT e.snapshot_id FROM task_runs t JOIN executions e ON e.id = t.execution_id WHERE t.id = $1`;

/** The latest runner event of task run $1. */
export const TASK_RUN_PROGRESS_SQL = `SELECT progress AS p FROM task_runs WHERE id = $1`;

/** A row when task run $1's execution is being cancelled. */
export const BEING_CANCELLED_SQL = `SELECT 1 FROM task_runs t JOIN executions e ON e.id = t.execution_id WHERE t.id = $1 AND e.state = 'CANCELLING'`;

/** Of the task runs $1, those RUNNING. */
export const STILL_RUNNING_SQL = `SELECT id FROM task_runs WHERE id = ANY($1) AND state = 'RUNNING'`;

/** Of the task runs $1, those to stop: ended, or of an execution no longer RUNNING. */
export const RUNS_TO_STOP_SQL = `SELECT t.id FROM task_runs t JOIN executions e ON e.id = t.execution_id WHERE t.id = ANY($1) AND (t.state <> 'RUNNING' OR e.state <> 'RUNNING')`;
