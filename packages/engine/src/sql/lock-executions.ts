// Locking executions for a change: one by id, or those named (planning passes
// for named executions take them in id order, so two never deadlock).
import type { Queryable } from '@svc/db';
import type { ExecutionRow } from '../rows.js';
import { EXECUTION_COLUMNS } from './fragments.js';

/** Execution `id`, locked (undefined when there is none). */
export async function lockExecution(db: Queryable, p: { id: string }): Promise<ExecutionRow | undefined> {
  const r = await db.query<ExecutionRow>(`SELECT ${EXECUTION_COLUMNS} FROM executions WHERE id = $1 FOR UPDATE`, [p.id]);
  return r.rows[0];
}

/** The executions `ids`, locked in id order. */
export async function lockExecutions(db: Queryable, p: { ids: string[] }): Promise<ExecutionRow[]> {
  const r = await db.query<ExecutionRow>(`SELECT ${EXECUTION_COLUMNS} FROM executions WHERE id = ANY($1) ORDER BY id FOR UPDATE`, [p.ids]);
  return r.rows;
}
