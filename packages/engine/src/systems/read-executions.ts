// Reads of executions for the API: one execution's state, the ids of a
// listExecutions page, a bulk action's selection, and their API objects
// (serialize.ts).
import type pg from 'pg';
import type { ExecutionState } from '@svc/state-machine';
import { listExecutionIds, matchExecutions, type ExecutionFilter, type ExecutionPage, type ExecutionMatch } from '../sql/list-executions.js';
import { executionState } from '../sql/read-executions.js';
import type { ApiExecution } from '../types.js';
import { loadExecutions } from './serialize.js';

export type { ExecutionFilter, ExecutionMatch, ExecutionPage, MatchedExecution } from '../sql/list-executions.js';

export class ExecutionReads {
  constructor(private readonly pool: pg.Pool) {}

  /** The state of an execution; undefined when there is none. */
  stateOf(id: string): Promise<ExecutionState | undefined> {
    return executionState(this.pool, { id });
  }

  /** Ids of the executions matching `f`, newest first (the listExecutions page). */
  listIds(f: ExecutionPage): Promise<{ id: string; created_key: string }[]> {
    return listExecutionIds(this.pool, f);
  }

  /** The newest `limit` executions matching `f` with their states, how many match in all and how many of those are in `states` (a bulk action's selection). */
  match(f: ExecutionFilter, p: { limit: number; states: readonly string[] }): Promise<ExecutionMatch> {
    return matchExecutions(this.pool, f, p);
  }

  /** Executions as the API shows them (getExecution), in the order of `ids`, unknown ids left out; `via`: another pool (the gateway's streams). */
  load(ids: string[], via: Pick<pg.Pool, 'query'> = this.pool): Promise<ApiExecution[]> {
    return loadExecutions(via, ids);
  }
}
