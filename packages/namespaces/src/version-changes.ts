// What a version changed, for the audit log (namespace.save, namespace.revert,
// file.upload): the paths whose files it added, changed or deleted against the
// version before it, and the flows those paths define. Paths and flow ids
// only, never a file's content.
import type pg from 'pg';
import type { Manifest } from './manifest.js';
import { loadManifest } from './read.js';

/** Paths listed at most; a larger change set says how many more there were. */
export const MAX_CHANGED_PATHS = 500;

export interface ChangedPath {
  op: 'add' | 'change' | 'delete';
  path: string;
}

export interface VersionChanges {
  /** By path; at most MAX_CHANGED_PATHS. */
  paths: ChangedPath[];
  /** Changed paths left out past MAX_CHANGED_PATHS (0 when all are listed). */
  more_paths: number;
  /** Ids of the flows defined (before or after) by a changed path, sorted. */
  flows: string[];
}

/** The paths of `after` that differ from `before` (content or executable bit), sorted. */
export function changedPaths(before: Manifest, after: Manifest): ChangedPath[] {
  const out: ChangedPath[] = [];
  for (const [path, e] of after) {
    const was = before.get(path);
    if (!was) out.push({ op: 'add', path });
    else if (was.hash !== e.hash || was.executable !== e.executable) out.push({ op: 'change', path });
  }
  for (const path of before.keys()) if (!after.has(path)) out.push({ op: 'delete', path });
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The changes of `version` (by its id) of `namespace` against the version before it. */
export async function versionChanges(pool: pg.Pool, namespace: string, version: { id: string; version: number }): Promise<VersionChanges> {
  const prev = await pool.query<{ id: string }>(`SELECT id FROM namespace_versions WHERE namespace = $1 AND version = $2`, [namespace, version.version - 1]);
  const [before, after] = await Promise.all([loadManifest(pool, prev.rows[0]?.id ?? null), loadManifest(pool, version.id)]);
  const all = changedPaths(before, after);
  // A flow keeps the path of its file, also once deleted: the flows of the changed paths, whichever way they changed.
  const flows = await pool.query<{ flow_id: string }>(`SELECT flow_id FROM flows WHERE namespace = $1 AND path = ANY($2::text[]) ORDER BY flow_id`, [
    namespace,
    all.map((p) => p.path),
  ]);
  return { paths: all.slice(0, MAX_CHANGED_PATHS), more_paths: Math.max(0, all.length - MAX_CHANGED_PATHS), flows: flows.rows.map((r) => r.flow_id) };
}
