// Read model of the engine's rows that point at objects of the store
// (artifacts, archived logs): storage cleanup asks which keys still have a row.
import type { Queryable } from '@svc/db';

/**
 * Which of these keys an artifact row points at. By key, not by the task run
 * the key names: the rows of reused task runs (restart, replay) point at the
 * object of the run they reuse, which may be gone while they remain.
 */
export async function existingArtifactKeys(db: Queryable, keys: string[]): Promise<Set<string>> {
  const r = await db.query<{ object_key: string }>(`SELECT DISTINCT object_key FROM artifacts WHERE object_key = ANY($1)`, [keys]);
  return new Set(r.rows.map((x) => x.object_key));
}

/** Which of these keys a log_archives row points at. */
export async function existingLogArchiveKeys(db: Queryable, keys: string[]): Promise<Set<string>> {
  const r = await db.query<{ object_key: string }>(`SELECT object_key FROM log_archives WHERE object_key = ANY($1)`, [keys]);
  return new Set(r.rows.map((x) => x.object_key));
}

/**
 * Which of these keys (under `uploads/`) an upload row or an artifact row (a file input, kind `input`) points at:
 * an upload's object stays while it waits for an execution, then while an execution's file input uses it.
 */
export async function existingUploadKeys(db: Queryable, keys: string[]): Promise<Set<string>> {
  const r = await db.query<{ object_key: string }>(`SELECT object_key FROM uploads WHERE object_key = ANY($1) UNION SELECT object_key FROM artifacts WHERE object_key = ANY($1)`, [
    keys,
  ]);
  return new Set(r.rows.map((x) => x.object_key));
}
