// Reads of executions for the API: one execution's state, and the ids of a
// listExecutions page (their API objects: serialize.ts).
import type pg from 'pg';
import type { ExecutionState } from '@svc/state-machine';
import { EXECUTION_STATE_SQL } from '../sql/read-executions.js';

export { listExecutionIds, type ExecutionFilter } from '../sql/list-executions.js';

/** The state of an execution; undefined when there is none. */
export async function executionState(pool: pg.Pool, id: string): Promise<ExecutionState | undefined> {
  return (await pool.query<{ state: ExecutionState }>(EXECUTION_STATE_SQL, [id])).rows[0]?.state;
}
