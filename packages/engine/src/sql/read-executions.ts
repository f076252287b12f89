// Small reads of one execution or task run by id.
import { EXECUTION_COLUMNS } from './fragments.js';

/** The state of execution $1. */
export const EXECUTION_STATE_SQL = `SELECT state FROM executions WHERE id = $1`;

/** The snapshot of execution $1. */
export const EXECUTION_SNAPSHOT_SQL = `SELECT snapshot_id FROM executions WHERE id = $1`;

/** Execution $1 as a rerun or restart copies it. */
export const ORIGINAL_SQL = `SELECT ${EXECUTION_COLUMNS}, flow_revision_id, snapshot_id, snapshot_version, git_sha, trigger_type FROM executions WHERE id = $1`;
