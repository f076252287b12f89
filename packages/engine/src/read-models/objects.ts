// Read model of the engine's rows that point at objects of the store
// (artifacts, archived logs): storage cleanup asks which keys still have a row.
import type { Queryable } from '@svc/db';

/** Object keys of artifact rows among (task run, name) pairs. */
export async function existingArtifactKeys(db: Queryable, refs: { taskRunId: string; name: string }[]): Promise<Set<string>> {
  const r = await db.query<{ object_key: string }>(`SELECT a.object_key FROM artifacts a JOIN unnest($1::text[], $2::text[]) AS k(t, n) ON a.task_run_id = k.t AND a.name = k.n`, [
    refs.map((x) => x.taskRunId),
    refs.map((x) => x.name),
  ]);
  return new Set(r.rows.map((x) => x.object_key));
}

/** Which of these keys a log_archives row points at. */
export async function existingLogArchiveKeys(db: Queryable, keys: string[]): Promise<Set<string>> {
  const r = await db.query<{ object_key: string }>(`SELECT object_key FROM log_archives WHERE object_key = ANY($1)`, [keys]);
  return new Set(r.rows.map((x) => x.object_key));
}
