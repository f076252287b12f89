// The bundles runners fetch: a snapshot's files as one tar.gz, built once
// (@svc/namespaces' ensureBundle) and its hash and key cached per process
// (bundles of snapshots are immutable once built).
import type pg from 'pg';
import { ensureBundle } from '@svc/namespaces';
import { TaskRunNotFoundError } from '../errors.js';
import type { EngineStorage } from '../resources.js';
import { taskRunSnapshot } from '../sql/task-run-reads.js';

/** Bundles whose hash and key are cached at most. */
const BUNDLE_CACHE_SIZE = 1000;

/** A snapshot's bundle as built: its object key, hash and size. */
export interface BuiltBundle {
  key: string;
  hash: string;
  size: number;
}

export class Bundles {
  private readonly built = new Map<string, Promise<BuiltBundle>>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly storage: EngineStorage,
    private readonly now: () => Date,
  ) {}

  /** The hash and object key of a snapshot's bundle, built once and cached. */
  of(snapshotId: string): Promise<BuiltBundle> {
    let b = this.built.get(snapshotId);
    if (!b) {
      if (this.built.size >= BUNDLE_CACHE_SIZE) this.built.delete(this.built.keys().next().value!);
      b = ensureBundle(this.pool, this.storage, snapshotId, this.now());
      b.catch(() => this.built.delete(snapshotId));
      this.built.set(snapshotId, b);
    }
    return b;
  }

  /** The bundle of a snapshot as a stream (built first when needed, rebuilt when storage cleanup removed it). */
  async stream(snapshotId: string): Promise<{ stream: NodeJS.ReadableStream; size: number }> {
    for (let attempt = 0; ; attempt++) {
      const b = await this.of(snapshotId);
      try {
        return { stream: await this.storage.get(b.key), size: b.size };
      } catch (err) {
        // Storage cleanup removes bundles unused for 7 days: forget the cached entry and build (or find) it again.
        if (attempt > 0 || (err as { name?: string }).name !== 'ObjectNotFoundError') throw err;
        this.built.delete(snapshotId);
      }
    }
  }

  /** The snapshot a task run's execution is pinned to (TaskRunNotFoundError when there is no such task run). */
  async snapshotOfTaskRun(taskRunId: string): Promise<string> {
    const snapshotId = await taskRunSnapshot(this.pool, { taskRunId });
    if (snapshotId === undefined) throw new TaskRunNotFoundError(`no task run ${taskRunId}`);
    return snapshotId;
  }
}
