// Retention of ended executions (systems/retention.ts): the maintenance lease
// holder deletes them with every row hung on them, in bounded batches, so no
// single statement holds locks for long on tables users and runners write.
import type { Queryable } from '@svc/db';

/** Execution states after which an execution never changes again. */
export const EXECUTION_END_STATES = ['SUCCESS', 'FAILED', 'TIMED_OUT', 'CANCELLED', 'SKIPPED'] as const;

/**
 * Tables holding rows of an execution, emptied child-first in bounded batches
 * before the execution row is deleted (whose ON DELETE CASCADE is then only a
 * backstop for rows written meanwhile). `log_lines` has no foreign key.
 * `ai_insights` is not listed: it is `@svc/ai-data`'s table, and its few rows
 * (a triage per failed execution at most) go by that cascade.
 *
 * `flow_trigger_firings` is left out on purpose: its rows (a few per
 * execution, one per downstream trigger) are the exactly-once markers of the
 * flow triggers of their upstream execution, and go by the cascade in the
 * very statement that deletes that execution. Deleted ahead, they would be
 * missing if the execution is kept after all (restarted meanwhile, so
 * DELETE_EXECUTIONS_SQL's re-check spares it) and its triggers would fire
 * again when it ends. Once the execution is gone nothing can fire for it:
 * fireFlowTriggers starts from the execution row.
 */
export const EXECUTION_CHILD_TABLES = ['log_lines', 'task_metrics', 'execution_history', 'artifacts', 'log_archives', 'task_runs'] as const;

export type ExecutionChildTable = (typeof EXECUTION_CHILD_TABLES)[number];

/** Ended executions whose end is before $1 (states $2), oldest end first, at most $3. */
const EXPIRED_EXECUTIONS_SQL = `SELECT id FROM executions WHERE ended_at < $1 AND state = ANY($2) ORDER BY ended_at LIMIT $3`;

/**
 * Object store keys the rows of executions $1 point at (artifacts, archived logs), but for the objects an
 * artifact row of another execution points at too (a reused task run's output file, after a restart or replay;
 * a file input's upload another execution used too) or an upload row still does (its expiry deletes it).
 */
const OBJECT_KEYS_OF_EXECUTIONS_SQL = `SELECT a.execution_id, a.object_key, a.size FROM artifacts a WHERE a.execution_id = ANY($1)
       AND NOT EXISTS (SELECT 1 FROM artifacts b WHERE b.object_key = a.object_key AND b.execution_id <> ALL($1))
       AND NOT EXISTS (SELECT 1 FROM uploads u WHERE u.object_key = a.object_key)
     UNION ALL
     SELECT execution_id, object_key, size FROM log_archives WHERE execution_id = ANY($1)`;

/** Per child table: deletes at most $2 of its rows that belong to executions $1 (each table's rows by `execution_id`). */
const DELETE_EXECUTION_ROWS_SQL = Object.fromEntries(
  EXECUTION_CHILD_TABLES.map((t) => [t, `DELETE FROM ${t} WHERE ctid = ANY(ARRAY(SELECT ctid FROM ${t} WHERE execution_id = ANY($1) LIMIT $2))`]),
) as Record<ExecutionChildTable, string>;

/** Deletes executions $1 that still ended before $2; returns the ids deleted. */
const DELETE_EXECUTIONS_SQL = `DELETE FROM executions WHERE id = ANY($1) AND ended_at < $2 RETURNING id`;

/** Ended executions whose end is before `cutoff`, oldest end first, at most `limit`. */
export async function expiredExecutions(db: Queryable, p: { cutoff: Date; limit: number }): Promise<string[]> {
  return (await db.query<{ id: string }>(EXPIRED_EXECUTIONS_SQL, [p.cutoff, EXECUTION_END_STATES, p.limit])).rows.map((x) => x.id);
}

/** Object store keys the rows of `executionIds` point at (artifacts, archived logs). */
export async function objectKeysOfExecutions(db: Queryable, p: { executionIds: string[] }): Promise<{ execution_id: string; object_key: string; size: string }[]> {
  return (await db.query<{ execution_id: string; object_key: string; size: string }>(OBJECT_KEYS_OF_EXECUTIONS_SQL, [p.executionIds])).rows;
}

/** Deletes at most `limit` rows of `table` that belong to `executionIds`; how many it deleted. */
export async function deleteExecutionRows(db: Queryable, p: { table: ExecutionChildTable; executionIds: string[]; limit: number }): Promise<number> {
  return (await db.query(DELETE_EXECUTION_ROWS_SQL[p.table], [p.executionIds, p.limit])).rowCount ?? 0;
}

/** Deletes `executionIds` that still ended before `cutoff`; the ids deleted. */
export async function deleteExecutions(db: Queryable, p: { executionIds: string[]; cutoff: Date }): Promise<string[]> {
  return (await db.query<{ id: string }>(DELETE_EXECUTIONS_SQL, [p.executionIds, p.cutoff])).rows.map((x) => x.id);
}
