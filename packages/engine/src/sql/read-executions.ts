// Small reads of one execution or task run by id.

/** The state of execution $1. */
export const EXECUTION_STATE_SQL = `SELECT state FROM executions WHERE id = $1`;

/** The snapshot of execution $1. */
export const EXECUTION_SNAPSHOT_SQL = `SELECT snapshot_id FROM executions WHERE id = $1`;
