// Preparing a task run for its runner: the read of the run with its
// execution (when the claim did not return it), and the record of the
// secrets it resolved (sealed, so its completion can be masked).
import type { Queryable } from '@svc/db';
import type { ExecutionRow } from '../rows.js';
import type { RecordedSecrets } from '../types.js';
import { EXECUTION_COLUMNS } from './fragments.js';

/** A task run with its execution's row and snapshot. */
export type PrepareRow = ExecutionRow & { snapshot_id: string; tr_id: string; task_key: string; attempt: number; item_index: number | null; item: unknown };

/** Task run `taskRunId` with its execution's row and snapshot. */
export async function prepareRead(db: Queryable, p: { taskRunId: string }): Promise<PrepareRow | undefined> {
  const r = await db.query<PrepareRow>(
    `SELECT ${EXECUTION_COLUMNS.split(',')
      .map((c) => `e.${c.trim()}`)
      .join(', ')}, e.snapshot_id, t.id AS tr_id, t.task_key, t.attempt, t.item_index, t.item
       FROM task_runs t JOIN executions e ON e.id = t.execution_id WHERE t.id = $1`,
    [p.taskRunId],
  );
  return r.rows[0];
}

/** Records the secrets (`record`, sealed) task run `taskRunId` resolved, and their `keys` on its execution. */
export async function recordRunSecrets(db: Queryable, p: { executionId: string; keys: string[]; record: RecordedSecrets; taskRunId: string }): Promise<void> {
  await db.query(
    `WITH t AS (UPDATE task_runs SET spec = COALESCE(spec, '{}'::jsonb) || jsonb_build_object('secrets', $3::jsonb) WHERE id = $4)
       UPDATE executions SET secret_keys_used = ARRAY(SELECT DISTINCT unnest(secret_keys_used || $2::text[]) ORDER BY 1) WHERE id = $1`,
    [p.executionId, p.keys, JSON.stringify(p.record), p.taskRunId],
  );
}

/** The latest attempt of item `itemIndex` of each of the for_each tasks `taskKeys` of execution `executionId` (`tasks.<id>.files` per item). */
export async function itemRuns(db: Queryable, p: { executionId: string; itemIndex: number; taskKeys: string[] }): Promise<{ id: string; task_key: string }[]> {
  if (!p.taskKeys.length) return [];
  const r = await db.query<{ id: string; task_key: string }>(
    `SELECT DISTINCT ON (task_key) id, task_key FROM task_runs
      WHERE execution_id = $1 AND item_index = $2 AND task_key = ANY($3) AND state = 'SUCCESS' ORDER BY task_key, attempt DESC`,
    [p.executionId, p.itemIndex, p.taskKeys],
  );
  return r.rows;
}

/** The traceparent stored on the execution of task run `taskRunId` (read only with tracing on). */
export async function storedTraceparent(db: Queryable, p: { taskRunId: string }): Promise<string | null> {
  const r = await db.query<{ traceparent: string | null }>('SELECT e.traceparent FROM task_runs t JOIN executions e ON e.id = t.execution_id WHERE t.id = $1', [p.taskRunId]);
  return r.rows[0]?.traceparent ?? null;
}
