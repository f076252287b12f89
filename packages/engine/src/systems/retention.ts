// Retention of ended executions: the statements the maintenance lease holder
// runs (apps/maintenance retention.ts loops over them, checking its lease
// between statements, and deletes the objects after the rows). The engine
// owns every table of an execution, so these deletes are its own.
import type pg from 'pg';
import {
  deleteExecutionRows,
  deleteExecutions,
  EXECUTION_CHILD_TABLES,
  EXECUTION_END_STATES,
  expiredExecutions,
  objectKeysOfExecutions,
  type ExecutionChildTable,
} from '../sql/retention.js';
import { deleteExpiredUploads } from '../sql/uploads.js';

export { EXECUTION_CHILD_TABLES, EXECUTION_END_STATES, type ExecutionChildTable };

/** An object of the store a row of an execution points at. */
export interface ExecutionObject {
  executionId: string;
  key: string;
  size: number;
}

export class ExecutionRetention {
  /** The tables of an execution's rows, in the order they are emptied (sql/retention.ts). */
  readonly childTables = EXECUTION_CHILD_TABLES;

  constructor(private readonly db: Pick<pg.Pool, 'query'>) {}

  /** Ended executions whose end is before `cutoff`, oldest end first, at most `limit`. */
  async expired(cutoff: Date, limit: number): Promise<string[]> {
    return expiredExecutions(this.db, { cutoff, limit });
  }

  /** Object store keys the rows of these executions point at (artifacts, archived logs): read before their rows go. */
  async objectKeys(executionIds: string[]): Promise<ExecutionObject[]> {
    const rows = await objectKeysOfExecutions(this.db, { executionIds });
    return rows.map((x) => ({ executionId: x.execution_id, key: x.object_key, size: Number(x.size) }));
  }

  /** Deletes at most `limit` rows of `table` that belong to these executions; how many it deleted. */
  async deleteRows(table: ExecutionChildTable, executionIds: string[], limit: number): Promise<number> {
    return deleteExecutionRows(this.db, { table, executionIds, limit });
  }

  /**
   * Deletes at most `limit` uploads (file inputs) that expired before `now`: how many, and the keys and sizes of their
   * objects to delete next (not those an execution's file input points at: they go with its artifacts).
   */
  async deleteExpiredUploads(now: Date, limit: number): Promise<{ rows: number; objects: { key: string; size: number }[] }> {
    const rows = await deleteExpiredUploads(this.db, { now, limit });
    return { rows: rows.length, objects: rows.filter((x) => !x.used).map((x) => ({ key: x.object_key, size: Number(x.size) })) };
  }

  /** Deletes these executions when they still ended before `cutoff` (a restarted one is kept); the ids deleted. */
  async deleteExecutions(executionIds: string[], cutoff: Date): Promise<string[]> {
    return deleteExecutions(this.db, { executionIds, cutoff });
  }
}
