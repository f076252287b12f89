// Objects without a row: the store is listed by prefix, objects older than the
// grace period are looked up in pages, and those no row refers to are deleted.
//
// | Prefix                     | Kept while                                          |
// |----------------------------|-----------------------------------------------------|
// | files/<2 hex>/<sha256>     | a file_objects row has the hash                     |
// | bundles/<snapshot>.tar.gz  | the snapshot's row has this bundle_key              |
// | artifacts/<ex>/<tr>/<name> | an artifacts row has this object_key (its own, or   |
// |                            | a reused task run's of a restart or replay)         |
// | logs/…                     | a log_archives row has this object_key              |
// | uploads/<ns>/<id>          | an uploads row or an artifacts row (a file input)   |
// |                            | has this object_key                                 |
// | health/…                   | never: readiness probes delete their own objects    |
//
// Keys under other prefixes are not the service's and are left alone.
import { assertNever } from '@svc/assert';
import type { ObjectInfo } from '@svc/storage';
import { deleteIfStillOld, type CleanupRun } from './cleanup-context.js';
import { deleteOrphanFiles, fileHashOf } from './file-sweep.js';
import { existingFileHashes } from '@svc/namespaces';
import { existingArtifactKeys, existingLogArchiveKeys, existingUploadKeys } from '@svc/engine/read-models';
import { bundleKeysOf } from './sql/snapshots.js';

export const SWEPT_PREFIXES = ['files/', 'bundles/', 'artifacts/', 'logs/', 'uploads/', 'health/'] as const;
type SweptPrefix = (typeof SWEPT_PREFIXES)[number];

/** Objects looked up per page. */
const PAGE = 1000;

export async function sweepObjectsWithoutRows(run: CleanupRun): Promise<void> {
  for (const prefix of SWEPT_PREFIXES) {
    if (!run.go()) return;
    let page: ObjectInfo[] = [];
    for await (const o of run.storage.list(prefix)) {
      if (!run.go()) return;
      if (o.lastModified.getTime() >= run.graceCutoff.getTime()) {
        run.tally.kept.young_objects += 1;
        continue;
      }
      page.push(o);
      if (page.length >= PAGE) {
        await sweepPage(run, prefix, page);
        page = [];
      }
    }
    if (page.length && run.go()) await sweepPage(run, prefix, page);
  }
}

/** Deletes the objects of `page` whose key no row names (`existing`: the keys that rows name), once still old. */
async function sweepKeyed(run: CleanupRun, page: ObjectInfo[], existing: (db: CleanupRun['db']['pool'], keys: string[]) => Promise<Set<string>>): Promise<void> {
  const rows = await existing(
    run.db.pool,
    page.map((o) => o.key),
  );
  for (const o of page) if (!rows.has(o.key)) await deleteIfStillOld(run, o.key);
}

async function sweepPage(run: CleanupRun, prefix: SweptPrefix, page: ObjectInfo[]): Promise<void> {
  const pool = run.db.pool;
  switch (prefix) {
    case 'files/': {
      // A key that is no content address cannot have a row.
      const malformed = page.filter((o) => fileHashOf(o.key) === null);
      for (const o of malformed) await deleteIfStillOld(run, o.key);
      const addressed = page.filter((o) => fileHashOf(o.key) !== null);
      const rows = await existingFileHashes(
        pool,
        addressed.map((o) => fileHashOf(o.key)!),
      );
      await deleteOrphanFiles(
        run,
        addressed.filter((o) => !rows.has(fileHashOf(o.key)!)),
      );
      return;
    }
    case 'bundles/': {
      const idOf = (key: string) => /^bundles\/([^/]+)\.tar\.gz$/.exec(key)?.[1];
      const ids = page.map((o) => idOf(o.key)).filter((id): id is string => id !== undefined);
      const keys = await bundleKeysOf(pool, ids);
      for (const o of page) {
        const id = idOf(o.key);
        if (id !== undefined && keys.get(id) === o.key) continue;
        await deleteIfStillOld(run, o.key);
      }
      return;
    }
    // Objects named by their key in a table: one read of the page's keys, and those no row names go.
    case 'artifacts/':
      return sweepKeyed(run, page, existingArtifactKeys);
    case 'logs/':
      return sweepKeyed(run, page, existingLogArchiveKeys);
    case 'uploads/':
      return sweepKeyed(run, page, existingUploadKeys);
    case 'health/':
      for (const o of page) await deleteIfStillOld(run, o.key);
      return;
    default:
      assertNever(prefix, 'prefix');
  }
}
