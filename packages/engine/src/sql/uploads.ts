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
 * Deletes at most `limit` uploads that expired before `now` (the database's clock when null); their object keys and
 * sizes, for the caller to delete after the rows (a crash in between leaves an object without a row, never the reverse).
 */
export async function deleteExpiredUploads(db: Queryable, p: { now: Date | null; limit: number }): Promise<{ object_key: string; size: string }[]> {
  const r = await db.query<{ object_key: string; size: string }>(
    `DELETE FROM uploads WHERE id IN (SELECT id FROM uploads WHERE expires_at < COALESCE($1::timestamptz, now()) ORDER BY expires_at LIMIT $2)
     RETURNING object_key, size`,
    [p.now, p.limit],
  );
  return r.rows;
}
