// Rows of content-addressed file objects. A save uploads contents before its
// transaction writes their rows, and skips the upload of contents whose row it
// saw: both orders are handled by maintenance's storage cleanup (apps/maintenance/src/file-sweep.ts),
// which runs these statements.
import type { Queryable } from '@svc/db';

/** Which of these content hashes have a file_objects row. */
export async function existingFileHashes(db: Queryable, hashes: string[]): Promise<Set<string>> {
  const r = await db.query<{ hash: string }>(`SELECT hash FROM file_objects WHERE hash = ANY($1)`, [hashes]);
  return new Set(r.rows.map((x) => x.hash));
}

/**
 * Deletes file_objects rows that no snapshot_files row refers to and that were
 * neither created nor used since `cutoff`. The reference is checked in the
 * same statement, and the RESTRICT foreign key of snapshot_files refuses the
 * delete of a row a concurrent transaction has just referred to. `onlyHash`
 * narrows it to one row (the retry after such a refusal).
 */
export async function deleteUnreferencedFileRows(db: Queryable, cutoff: Date, limit: number, onlyHash?: string): Promise<{ hash: string; size: number }[]> {
  const r = await db.query<{ hash: string; size: string }>(
    `DELETE FROM file_objects f
     WHERE f.hash IN (
         SELECT x.hash FROM file_objects x
         WHERE x.last_used_at < $1 AND x.created_at < $1 AND ($3::text IS NULL OR x.hash = $3)
           AND NOT EXISTS (SELECT 1 FROM snapshot_files sf WHERE sf.file_hash = x.hash)
         LIMIT $2)
       AND f.last_used_at < $1
       AND NOT EXISTS (SELECT 1 FROM snapshot_files sf WHERE sf.file_hash = f.hash)
     RETURNING f.hash, f.size`,
    [cutoff, limit, onlyHash ?? null],
  );
  return r.rows.map((x) => ({ hash: x.hash, size: Number(x.size) }));
}

/**
 * In the caller's transaction: inserts a placeholder row for each hash that has
 * none, and returns those hashes. Until the transaction ends, a save that
 * writes the row of one of them waits; a save that wrote one first (committed
 * or not) makes this skip it. The caller rolls back: the rows are never seen.
 */
export async function claimAbsentFileHashes(db: Queryable, hashes: string[], now: Date): Promise<string[]> {
  const r = await db.query<{ hash: string }>(
    `INSERT INTO file_objects (hash, size, created_at, last_used_at)
     SELECT h, 0, $2, $2 FROM unnest($1::text[]) AS t(h)
     ON CONFLICT (hash) DO NOTHING RETURNING hash`,
    [hashes, now],
  );
  return r.rows.map((x) => x.hash);
}

/** How many other transactions wait for the caller's transaction to end (a row lock or a uniqueness check). */
export async function waitersOnOwnTransaction(db: Queryable): Promise<number> {
  const r = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'transactionid' AND transactionid = pg_current_xact_id()::xid AND NOT granted`);
  return r.rows[0]?.n ?? 0;
}
