// Storage cleanup (spec, Limits): at most once in 24 hours, remembered in the
// `settings` row `storage_cleanup` (JSON: when, how it went, what it removed;
// getStorageStatus shows it). The steps, in this order:
//
// 1. Objects without a row, older than 1 hour (object-sweep.ts).
// 2. Bundles unused for 7 days: the snapshot's bundle columns are cleared,
//    then after a settle pause the object is deleted unless the bundle was
//    fetched or built again meanwhile.
// 3. Snapshots no namespace version and no execution refers to, unused for
//    1 hour, with their snapshot_files and bundle objects. (Such snapshots are
//    left by deleted namespaces once retention removed their executions.)
// 4. file_objects rows no snapshot refers to, older than 1 hour. Their objects
//    are deleted by step 1 of the next run (file-sweep.ts says why).
import type { Queryable } from '@svc/db';
import {
  BUNDLE_UNUSED_MS,
  CLEANUP_INTERVAL_MS,
  cleanupRun,
  countRemovedObject,
  countRemovedRows,
  deleteIfStillOld,
  sleep,
  type CleanupDeps,
  type CleanupRun,
  type CleanupTally,
} from './cleanup-context.js';
import { sweepObjectsWithoutRows } from './object-sweep.js';
import { deleteUnreferencedFileRows } from '@svc/namespaces';
import { compareAndSetSetting, readSettingValue as readSetting, writeSetting } from '@svc/db';
import { deleteUnreferencedSnapshots, releaseUnusedBundles, snapshotBundleStates, type SnapshotBundle } from './sql/snapshots.js';

/** The `settings` key of the last cleanup's record. */
export const STORAGE_CLEANUP_SETTING = 'storage_cleanup';

/** The record of a cleanup run, stored as JSON under {@link STORAGE_CLEANUP_SETTING}. */
export interface StorageCleanupRecord extends CleanupTally {
  started_at: string;
  /** Null while it runs (or when its instance died in the middle). */
  finished_at: string | null;
  duration_ms: number | null;
  /** `interrupted`: the instance lost the lease and stopped between steps. */
  outcome: 'running' | 'ok' | 'error' | 'interrupted';
  error?: string;
  /** Instance id of the lease holder that ran it. */
  instance_id: string;
}

export function parseCleanupRecord(text: string | null): StorageCleanupRecord | null {
  if (!text) return null;
  try {
    const v = JSON.parse(text) as StorageCleanupRecord;
    return typeof v?.started_at === 'string' && !Number.isNaN(Date.parse(v.started_at)) ? v : null;
  } catch {
    return null;
  }
}

export async function readCleanupRecord(db: Queryable): Promise<StorageCleanupRecord | null> {
  return parseCleanupRecord(await readSetting(db, STORAGE_CLEANUP_SETTING));
}

export type CleanupOutcome = { ran: true; record: StorageCleanupRecord } | { ran: false; last: StorageCleanupRecord | null };

/**
 * Runs the cleanup when the last one started 24 hours ago or more (or never
 * ran). The start is claimed by a compare-and-set on the record, so two
 * instances that both think it is due cannot both run it.
 */
export async function runStorageCleanupIfDue(deps: CleanupDeps & { instanceId: string }, now: Date): Promise<CleanupOutcome> {
  const pool = deps.db.pool;
  const raw = await readSetting(pool, STORAGE_CLEANUP_SETTING);
  const last = parseCleanupRecord(raw);
  if (last && now.getTime() - Date.parse(last.started_at) < CLEANUP_INTERVAL_MS) return { ran: false, last };
  const run = cleanupRun(deps, now);
  const record: StorageCleanupRecord = {
    started_at: now.toISOString(),
    finished_at: null,
    duration_ms: null,
    outcome: 'running',
    instance_id: deps.instanceId,
    ...run.tally,
  };
  if (!(await compareAndSetSetting(pool, STORAGE_CLEANUP_SETTING, raw, JSON.stringify(record)))) {
    return { ran: false, last: await readCleanupRecord(pool) };
  }
  const started = performance.now();
  try {
    await cleanupSteps(run);
    record.outcome = run.go() ? 'ok' : 'interrupted';
  } catch (err) {
    record.outcome = 'error';
    record.error = err instanceof Error ? err.message : String(err);
    throw err;
  } finally {
    record.duration_ms = Math.round(performance.now() - started);
    record.finished_at = new Date(now.getTime() + record.duration_ms).toISOString();
    Object.assign(record, run.tally);
    await writeSetting(pool, STORAGE_CLEANUP_SETTING, JSON.stringify(record)).catch((e: unknown) => deps.log.error('storage cleanup: could not record the run', { err: e }));
  }
  return { ran: true, record };
}

/** The cleanup itself, whether due or not (tests call it directly). */
export async function cleanupStorage(deps: CleanupDeps, now: Date): Promise<CleanupTally> {
  const run = cleanupRun(deps, now);
  await cleanupSteps(run);
  return run.tally;
}

async function cleanupSteps(run: CleanupRun): Promise<void> {
  await sweepObjectsWithoutRows(run);
  if (run.go()) await releaseBundles(run);
  if (run.go()) await deleteSnapshots(run);
  if (run.go()) await deleteFileRows(run);
}

async function releaseBundles(run: CleanupRun): Promise<void> {
  const cutoff = new Date(run.now.getTime() - BUNDLE_UNUSED_MS);
  for (;;) {
    if (!run.go()) return;
    const released = await releaseUnusedBundles(run.db.pool, cutoff, run.batch);
    countRemovedRows(run, 'bundles_released', released.length);
    const withObjects = released.filter((b): b is SnapshotBundle & { bundleKey: string } => b.bundleKey !== null);
    if (withObjects.length) {
      // A fetch that read the row just before it was cleared touches
      // last_used_at (always: the row is days old) or builds the bundle again.
      await sleep(run.settleMs);
      const states = await snapshotBundleStates(
        run.db.pool,
        withObjects.map((b) => b.id),
      );
      for (const b of withObjects) {
        const s = states.get(b.id);
        if (s && (s.bundleKey !== null || s.lastUsedAt.getTime() >= cutoff.getTime())) continue;
        await deleteIfStillOld(run, b.bundleKey);
      }
    }
    if (released.length < run.batch) return;
  }
}

async function deleteSnapshots(run: CleanupRun): Promise<void> {
  for (;;) {
    if (!run.go()) return;
    const deleted = await retryOneByOne(
      () => deleteUnreferencedSnapshots(run.db.pool, run.graceCutoff, run.batch),
      async () => {
        // A version or execution referred to one of the batch meanwhile: go one by one.
        const ids = (await run.db.pool.query<{ id: string }>(`SELECT id FROM snapshots WHERE last_used_at < $1 ORDER BY last_used_at LIMIT $2`, [run.graceCutoff, run.batch])).rows;
        const out: SnapshotBundle[] = [];
        for (const { id } of ids) out.push(...(await ignoreReferenced(() => deleteUnreferencedSnapshots(run.db.pool, run.graceCutoff, 1, id))));
        return out;
      },
    );
    countRemovedRows(run, 'snapshots', deleted.length);
    for (const s of deleted) {
      if (!s.bundleKey) continue;
      // Nothing can fetch the bundle of a snapshot that is gone.
      if (await run.storage.exists(s.bundleKey)) {
        await run.storage.delete(s.bundleKey);
        countRemovedObject(run, s.bundleKey, s.bundleSize);
      }
    }
    if (deleted.length < run.batch) return;
  }
}

async function deleteFileRows(run: CleanupRun): Promise<void> {
  for (;;) {
    if (!run.go()) return;
    const deleted = await retryOneByOne(
      () => deleteUnreferencedFileRows(run.db.pool, run.graceCutoff, run.batch),
      async () => {
        const hashes = (await run.db.pool.query<{ hash: string }>(`SELECT hash FROM file_objects WHERE last_used_at < $1 LIMIT $2`, [run.graceCutoff, run.batch])).rows;
        const out: { hash: string; size: number }[] = [];
        for (const { hash } of hashes) out.push(...(await ignoreReferenced(() => deleteUnreferencedFileRows(run.db.pool, run.graceCutoff, 1, hash))));
        return out;
      },
    );
    countRemovedRows(run, 'file_objects', deleted.length);
    if (deleted.length < run.batch) return;
  }
}

const FOREIGN_KEY_VIOLATION = '23503';
const isReferenced = (err: unknown) => (err as { code?: string } | null)?.code === FOREIGN_KEY_VIOLATION;

/** A batch delete refused by a reference committed meanwhile is retried row by row. */
async function retryOneByOne<T>(batch: () => Promise<T[]>, oneByOne: () => Promise<T[]>): Promise<T[]> {
  try {
    return await batch();
  } catch (err) {
    if (!isReferenced(err)) throw err;
    return oneByOne();
  }
}

async function ignoreReferenced<T>(step: () => Promise<T[]>): Promise<T[]> {
  try {
    return await step();
  } catch (err) {
    if (isReferenced(err)) return [];
    throw err;
  }
}
