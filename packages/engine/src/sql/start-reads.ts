// What a start reads besides the flow: the original's reusable task runs (a
// restart), the snapshot's `namespace.yaml`, and a QUEUED execution's pins.

/** The latest attempt of each task of execution $1, with its outputs (a restart copies the SUCCESS ones). */
export const REUSABLE_RUNS_SQL = `SELECT DISTINCT ON (task_key) id, task_key, state, outputs, exit_code FROM task_runs WHERE execution_id = $1 ORDER BY task_key, attempt DESC`;

/** The file object of snapshot $1's `namespace.yaml`. */
export const NAMESPACE_FILE_SQL = `SELECT file_hash FROM snapshot_files WHERE snapshot_id = $1 AND path = 'namespace.yaml'`;

/** The snapshot and restart origin of execution $1. */
export const EXECUTION_PINS_SQL = `SELECT snapshot_id, restart_of_id FROM executions WHERE id = $1`;
