// What the storage cleanup steps share: dependencies, the tally of what they
// removed, and the one way they delete a listed object (re-checked first).
import type { Db } from '@svc/db';
import type { Logger } from '@svc/logging';
import type { ObjectStore } from '@svc/storage';
import { objectKind, type MaintenanceMetrics, type ObjectKind } from './metrics.js';

const HOUR_MS = 3_600_000;
/** The storage cleanup runs at most once in this period (spec: 24 hours). */
export const CLEANUP_INTERVAL_MS = 24 * HOUR_MS;
/** A bundle unused this long is deleted (spec: 7 days). */
export const BUNDLE_UNUSED_MS = 7 * 24 * HOUR_MS;
/**
 * Objects and rows younger than this are never removed (spec: 1 hour): a save
 * uploads its file objects before its transaction writes their rows, a runner
 * uploads an artifact before its row is written.
 */
export const OBJECT_GRACE_MS = HOUR_MS;
/**
 * Pause between taking a bundle or a file object out of use and deciding
 * (again) whether to delete it, so that a fetch or a save that read the old
 * state just before shows up first. Default 5 seconds.
 */
export const DEFAULT_SETTLE_MS = 5_000;

export interface CleanupDeps {
  db: Db;
  storage: ObjectStore;
  log: Logger;
  metrics?: MaintenanceMetrics;
  /** Rows per statement. Default 500. */
  batchSize?: number;
  /** See {@link DEFAULT_SETTLE_MS}. */
  settleMs?: number;
  /** Checked between steps and batches: false stops the run (the lease was lost). Default: always true. */
  shouldContinue?: () => boolean;
}

export interface Removed {
  objects: number;
  bytes: number;
}

/** What one cleanup run removed (and kept on purpose). */
export interface CleanupTally {
  objects: Record<ObjectKind, Removed>;
  rows: {
    /** Snapshots no version or execution referred to, with their snapshot_files. */
    snapshots: number;
    /** file_objects rows no snapshot referred to (their objects go at the next run). */
    file_objects: number;
    /** Bundles forgotten (columns cleared) because unused for 7 days. */
    bundles_released: number;
  };
  kept: {
    /** Objects without a row left alone because younger than 1 hour. */
    young_objects: number;
    /** File objects put back because a save was writing their row while they were deleted. */
    restored_files: number;
  };
}

export function emptyTally(): CleanupTally {
  const zero = () => ({ objects: 0, bytes: 0 });
  return {
    objects: { files: zero(), bundles: zero(), artifacts: zero(), logs: zero(), other: zero() },
    rows: { snapshots: 0, file_objects: 0, bundles_released: 0 },
    kept: { young_objects: 0, restored_files: 0 },
  };
}

export interface CleanupRun extends CleanupDeps {
  now: Date;
  tally: CleanupTally;
  go: () => boolean;
  batch: number;
  settleMs: number;
  /** Objects (and rows) last modified before this are old enough to remove. */
  graceCutoff: Date;
}

export function cleanupRun(deps: CleanupDeps, now: Date): CleanupRun {
  return {
    ...deps,
    now,
    tally: emptyTally(),
    go: deps.shouldContinue ?? (() => true),
    batch: deps.batchSize ?? 500,
    settleMs: deps.settleMs ?? DEFAULT_SETTLE_MS,
    graceCutoff: new Date(now.getTime() - OBJECT_GRACE_MS),
  };
}

export function countRemovedObject(run: CleanupRun, key: string, bytes: number): void {
  const kind = objectKind(key);
  run.tally.objects[kind].objects += 1;
  run.tally.objects[kind].bytes += bytes;
  run.metrics?.objectsDeleted.inc({ kind });
  run.metrics?.bytesDeleted.inc({ kind }, bytes);
}

export function countRemovedRows(run: CleanupRun, table: 'snapshots' | 'file_objects' | 'bundles_released', n: number): void {
  if (!n) return;
  run.tally.rows[table] += n;
  if (table !== 'bundles_released') run.metrics?.rowsDeleted.inc({ table }, n);
}

/**
 * Deletes a listed object unless it changed since: it is stat'ed again right
 * before the delete, and kept when it is gone or was written after `cutoff`
 * (a put of the same key since the listing). Returns true when deleted.
 */
export async function deleteIfStillOld(run: CleanupRun, key: string, cutoff: Date = run.graceCutoff): Promise<boolean> {
  const info = await run.storage.stat(key);
  if (!info) return false;
  if (info.lastModified.getTime() >= cutoff.getTime()) {
    run.tally.kept.young_objects += 1;
    return false;
  }
  await run.storage.delete(key);
  countRemovedObject(run, key, info.size);
  return true;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
