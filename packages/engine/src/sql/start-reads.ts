// What a start reads besides the flow: the original's reusable task runs (a
// restart) and the snapshot's `namespace.yaml`.
import type { Queryable } from '@svc/db';

/** The latest attempt of a task of an execution, with its outputs (a restart copies the SUCCESS ones). */
export interface ReusableRunRow {
  id: string;
  task_key: string;
  state: string;
  outputs: Record<string, unknown> | null;
  exit_code: number | null;
  /** A fan-out's parent: its number of items; else null. */
  fan_out: number | null;
}

/** The latest attempt of an item of a fan-out, with its value and outputs (a restart copies the SUCCESS ones and runs the others again). */
export interface ReusableItemRow {
  id: string;
  task_key: string;
  item_index: number;
  item: unknown;
  state: string;
  outputs: Record<string, unknown> | null;
  exit_code: number | null;
}

/** The latest attempt of each task of execution `executionId`, with its outputs. */
export async function reusableRuns(db: Queryable, p: { executionId: string }): Promise<ReusableRunRow[]> {
  const r = await db.query<ReusableRunRow>(
    `SELECT DISTINCT ON (task_key) id, task_key, state, outputs, exit_code, fan_out FROM task_runs WHERE execution_id = $1 AND item_index IS NULL ORDER BY task_key, attempt DESC`,
    [p.executionId],
  );
  return r.rows;
}

/** The latest attempt of each item of the fan-outs `taskKeys` of execution `executionId`, by task and index. */
export async function reusableItems(db: Queryable, p: { executionId: string; taskKeys: string[] }): Promise<ReusableItemRow[]> {
  const r = await db.query<ReusableItemRow>(
    `SELECT DISTINCT ON (task_key, item_index) id, task_key, item_index, item, state, outputs, exit_code FROM task_runs
     WHERE execution_id = $1 AND task_key = ANY($2) AND item_index IS NOT NULL ORDER BY task_key, item_index, attempt DESC`,
    [p.executionId, p.taskKeys],
  );
  return r.rows;
}

/** The file object (its hash) of snapshot `snapshotId`'s `namespace.yaml`, undefined when it has none. */
export async function namespaceFileHash(db: Queryable, p: { snapshotId: string }): Promise<string | undefined> {
  return (await db.query<{ file_hash: string }>(`SELECT file_hash FROM snapshot_files WHERE snapshot_id = $1 AND path = 'namespace.yaml'`, [p.snapshotId])).rows[0]?.file_hash;
}
