// Locking executions for a change: one by id, or those named (planning passes
// for named executions take them in id order, so two never deadlock).
import { EXECUTION_COLUMNS } from './fragments.js';

/** One execution ($1), locked. */
export const LOCK_EXECUTION_SQL = `SELECT ${EXECUTION_COLUMNS} FROM executions WHERE id = $1 FOR UPDATE`;

/** The executions $1 (an array of ids), locked in id order. */
export const LOCK_EXECUTIONS_SQL = `SELECT ${EXECUTION_COLUMNS} FROM executions WHERE id = ANY($1) ORDER BY id FOR UPDATE`;
