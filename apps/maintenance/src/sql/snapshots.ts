// Snapshots and their bundles. A snapshot is kept while a namespace version or
// an execution refers to it (both foreign keys are RESTRICT, so a reference
// committed while a delete runs makes the delete fail instead of dangling).
import type { Queryable } from '@svc/db';
import { EXECUTIONS } from '@svc/engine/read-models';

export interface SnapshotBundle {
  id: string;
  /** The bundle object's key before the row changed; null when it had none. */
  bundleKey: string | null;
  bundleSize: number;
}

const toBundle = (x: { id: string; bundle_key: string | null; bundle_size: string | null }): SnapshotBundle => ({
  id: x.id,
  bundleKey: x.bundle_key,
  bundleSize: Number(x.bundle_size ?? 0),
});

/**
 * Forgets the bundles not used since `cutoff`: neither fetched (last_used_at)
 * nor built since, and pinned by no execution that is still going or that
 * started or ended since. Clears the bundle columns (a later fetch builds the
 * bundle again) and returns what they held. Rows being changed are skipped.
 */
export async function releaseUnusedBundles(db: Queryable, cutoff: Date, limit: number): Promise<SnapshotBundle[]> {
  const r = await db.query<{ id: string; bundle_key: string | null; bundle_size: string | null }>(
    `WITH old AS (
       SELECT s.id, s.bundle_key, s.bundle_size FROM snapshots s
       WHERE s.bundle_key IS NOT NULL AND s.last_used_at < $1 AND COALESCE(s.bundle_built_at, s.last_used_at) < $1
         AND NOT EXISTS (SELECT 1 FROM ${EXECUTIONS} e WHERE e.snapshot_id = s.id AND (e.ended_at IS NULL OR e.ended_at >= $1 OR e.created_at >= $1))
       ORDER BY s.last_used_at LIMIT $2
       FOR UPDATE OF s SKIP LOCKED)
     UPDATE snapshots s SET bundle_key = NULL, bundle_hash = NULL, bundle_size = NULL, bundle_built_at = NULL
     FROM old WHERE s.id = old.id
     RETURNING old.id, old.bundle_key, old.bundle_size`,
    [cutoff, limit],
  );
  return r.rows.map(toBundle);
}

/** The bundle state of these snapshots now (after a release: was it built or fetched again?). */
export async function snapshotBundleStates(db: Queryable, ids: string[]): Promise<Map<string, { bundleKey: string | null; lastUsedAt: Date }>> {
  const r = await db.query<{ id: string; bundle_key: string | null; last_used_at: Date }>(`SELECT id, bundle_key, last_used_at FROM snapshots WHERE id = ANY($1)`, [ids]);
  return new Map(r.rows.map((x) => [x.id, { bundleKey: x.bundle_key, lastUsedAt: x.last_used_at }]));
}

/**
 * Deletes snapshots (their snapshot_files go with them) that no namespace
 * version and no execution refers to and that were not used since `cutoff`.
 * `onlyId` narrows it to one snapshot (the retry after a concurrent reference
 * made a batch fail). Returns the deleted snapshots with their bundle keys.
 */
export async function deleteUnreferencedSnapshots(db: Queryable, cutoff: Date, limit: number, onlyId?: string): Promise<SnapshotBundle[]> {
  const r = await db.query<{ id: string; bundle_key: string | null; bundle_size: string | null }>(
    `DELETE FROM snapshots s
     WHERE s.id IN (
         SELECT x.id FROM snapshots x
         WHERE x.last_used_at < $1 AND x.created_at < $1 AND ($3::text IS NULL OR x.id = $3)
           AND NOT EXISTS (SELECT 1 FROM namespace_versions v WHERE v.snapshot_id = x.id)
           AND NOT EXISTS (SELECT 1 FROM ${EXECUTIONS} e WHERE e.snapshot_id = x.id)
         ORDER BY x.last_used_at LIMIT $2)
       AND s.last_used_at < $1
       AND NOT EXISTS (SELECT 1 FROM namespace_versions v WHERE v.snapshot_id = s.id)
       AND NOT EXISTS (SELECT 1 FROM ${EXECUTIONS} e WHERE e.snapshot_id = s.id)
     RETURNING s.id, s.bundle_key, s.bundle_size`,
    [cutoff, limit, onlyId ?? null],
  );
  return r.rows.map(toBundle);
}

/** Ids of the snapshots that have a row, out of `ids`, with the bundle key each row holds. */
export async function bundleKeysOf(db: Queryable, ids: string[]): Promise<Map<string, string | null>> {
  const r = await db.query<{ id: string; bundle_key: string | null }>(`SELECT id, bundle_key FROM snapshots WHERE id = ANY($1)`, [ids]);
  return new Map(r.rows.map((x) => [x.id, x.bundle_key]));
}
