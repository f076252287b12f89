// File inputs (docs/using/files.md): uploads kept until they expire.
import type { Queryable } from '@svc/db';

export interface UploadRow {
  id: string;
  namespace: string;
  name: string;
  object_key: string;
  size: string;
  sha256: string;
  created_at: Date;
  expires_at: Date;
}

const COLUMNS = 'id, namespace, name, object_key, size, sha256, created_at, expires_at';

/** Records an upload whose object was stored; it expires `ttlMs` after now (the database's clock, as `created_at`). */
export async function insertUpload(
  db: Queryable,
  p: { id: string; namespace: string; name: string; objectKey: string; size: number; sha256: string; createdBy: string | null; ttlMs: number },
): Promise<UploadRow> {
  const r = await db.query<UploadRow>(
    `INSERT INTO uploads (id, namespace, name, object_key, size, sha256, created_by, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, now(), now() + $8::bigint * interval '1 millisecond') RETURNING ${COLUMNS}`,
    [p.id, p.namespace, p.name, p.objectKey, p.size, p.sha256, p.createdBy, p.ttlMs],
  );
  return r.rows[0];
}

/**
 * Deletes at most `limit` uploads that expired before `now` (the database's clock when null); the object keys and
 * sizes no execution's file input points at, for the caller to delete after the rows (a crash in between leaves an
 * object without a row, never the reverse). An object a file input points at stays with its artifact (retention).
 */
export async function deleteExpiredUploads(db: Queryable, p: { now: Date | null; limit: number }): Promise<{ object_key: string; size: string; used: boolean }[]> {
  const r = await db.query<{ object_key: string; size: string; used: boolean }>(
    `DELETE FROM uploads u WHERE u.id IN (SELECT id FROM uploads WHERE expires_at < COALESCE($1::timestamptz, now()) ORDER BY expires_at LIMIT $2)
     RETURNING u.object_key, u.size, EXISTS (SELECT 1 FROM artifacts a WHERE a.object_key = u.object_key) AS used`,
    [p.now, p.limit],
  );
  return r.rows;
}

/** An object a file input may point at: an upload's, or one an execution's input artifact already points at. */
export interface FileSource {
  object_key: string;
  /** The file name (no directory). */
  name: string;
  size: string;
  sha256: string;
  /** False for an upload that expired and no execution used. */
  live: boolean;
}

/**
 * The sources of object keys `keys` in `namespace`: the uploads' rows of the namespace (live while not expired), and
 * the input artifacts that point at one of them (a rerun, restart or replay, or a new trigger with an upload an
 * execution used: live whether the upload expired or not). One row per key, a live one first.
 */
export async function fileSources(db: Queryable, p: { namespace: string; keys: string[] }): Promise<FileSource[]> {
  const r = await db.query<FileSource>(
    `SELECT DISTINCT ON (object_key) object_key, name, size, sha256, live FROM (
       SELECT object_key, name, size::text AS size, sha256, expires_at > now() AS live FROM uploads WHERE object_key = ANY($2) AND namespace = $1
       UNION ALL
       SELECT object_key, substr(name, strpos(name, '/') + 1), size::text, sha256, true FROM artifacts WHERE object_key = ANY($2) AND kind = 'input'
     ) s ORDER BY object_key, live DESC`,
    [p.namespace, p.keys],
  );
  return r.rows;
}

/** Records the file inputs of execution `executionId` as artifacts of kind `input` (no task run). */
export async function insertInputArtifacts(
  db: Queryable,
  p: { executionId: string; rows: { id: string; name: string; object_key: string; size: string; sha256: string }[] },
): Promise<void> {
  await db.query(
    `INSERT INTO artifacts (id, execution_id, task_run_id, name, object_key, size, content_type, sha256, kind, created_at)
     SELECT x.id, $1, NULL, x.name, x.object_key, x.size::bigint, 'application/octet-stream', x.sha256, 'input', now()
     FROM jsonb_to_recordset($2::jsonb) AS x(id text, name text, object_key text, size text, sha256 text)`,
    [p.executionId, JSON.stringify(p.rows)],
  );
}

/** The file inputs of execution `executionId` (name `<input id>/<file name>`). */
export async function inputArtifactsOf(db: Queryable, p: { executionId: string }): Promise<{ id: string; name: string; size: string; sha256: string }[]> {
  const r = await db.query<{ id: string; name: string; size: string; sha256: string }>(
    `SELECT id, name, size::text AS size, sha256 FROM artifacts WHERE execution_id = $1 AND kind = 'input' ORDER BY name`,
    [p.executionId],
  );
  return r.rows;
}
