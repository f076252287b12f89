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
}

/** The latest attempt of each task of execution `executionId`, with its outputs. */
export async function reusableRuns(db: Queryable, p: { executionId: string }): Promise<ReusableRunRow[]> {
  const r = await db.query<ReusableRunRow>(
    `SELECT DISTINCT ON (task_key) id, task_key, state, outputs, exit_code FROM task_runs WHERE execution_id = $1 ORDER BY task_key, attempt DESC`,
    [p.executionId],
  );
  return r.rows;
}

/** The file object (its hash) of snapshot `snapshotId`'s `namespace.yaml`, undefined when it has none. */
export async function namespaceFileHash(db: Queryable, p: { snapshotId: string }): Promise<string | undefined> {
  return (await db.query<{ file_hash: string }>(`SELECT file_hash FROM snapshot_files WHERE snapshot_id = $1 AND path = 'namespace.yaml'`, [p.snapshotId])).rows[0]?.file_hash;
}
