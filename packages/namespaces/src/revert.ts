import type pg from 'pg';
import { VersionConflictError, VersionNotFoundError } from './errors.js';
import { loadManifest } from './read.js';
import { assertWritable, inTransaction, lockNamespace, writeVersion, type SaveDeps, type VersionRow } from './save.js';

/** A new version whose files equal those of `version` (history is never rewritten). */
export async function revertVersion(deps: SaveDeps, r: { namespace: string; version: number; message?: string; author: string; baseVersion?: number }): Promise<VersionRow> {
  return inTransaction(deps.pool, async (c: pg.PoolClient) => {
    const ns = await lockNamespace(c, r.namespace);
    await assertWritable(c, r.namespace);
    if (r.baseVersion !== undefined && r.baseVersion !== ns.headVersion) throw new VersionConflictError(r.baseVersion, ns.headVersion);
    const target =
      r.version === 0 ? null : (await c.query<{ id: string }>(`SELECT id FROM namespace_versions WHERE namespace = $1 AND version = $2`, [r.namespace, r.version])).rows[0];
    if (target === undefined) throw new VersionNotFoundError(r.version);
    const head = await loadManifest(c, ns.headVersionId);
    const files = await loadManifest(c, target?.id ?? null);
    return writeVersion(c, deps, ns, head, files, {
      author: r.author,
      message: r.message ?? `Revert to version ${r.version}`,
      changes: [{ op: 'revert', to_version: r.version }],
      contents: new Map(),
    });
  });
}
