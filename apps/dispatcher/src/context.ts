import type { Config } from '@svc/config';
import type { Db } from '@svc/db';
import { DispatchError, endTaskRun, Planner, prepareTask, runFollowUps, type ClaimedRun, type PreparedTask, type StartDeps, type TaskCompletion } from '@svc/engine';
import type { Logger } from '@svc/logging';
import { ensureBundle } from '@svc/namespaces';
import type { Clock } from '@svc/service';
import { ObjectNotFoundError, type ObjectStore } from '@svc/storage';

/** What the dispatcher and its executors share. */
export interface DispatcherContext {
  config: Config;
  db: Db;
  log: Logger;
  clock: Clock;
  storage: ObjectStore;
  engine: StartDeps;
  instanceId: string;
  heartbeatMs: number;
  killDelayMs: number;
  /** Plans executions after their task runs end (batched; see @svc/engine's planner). */
  planner: Planner;
  /** Ends a RUNNING task run and has its execution planned (the slot is free when this resolves; planning follows). */
  finish(runId: string, done: TaskCompletion): Promise<void>;
  /** Resolves the task's templates; ends it FAILED (template_error, secret_not_found) and returns null when they do not resolve. */
  prepare(run: ClaimedRun): Promise<PreparedTask | null>;
  bundleStream(snapshotId: string): Promise<NodeJS.ReadableStream>;
}

/** Bundles of snapshots are immutable once built: their hash and key are cached (bounded). */
const BUNDLE_CACHE_SIZE = 1000;

export function createContext(base: Omit<DispatcherContext, 'prepare' | 'bundleStream' | 'planner' | 'finish'>): DispatcherContext {
  const bundles = new Map<string, Promise<{ key: string; hash: string }>>();
  const bundleOf = (snapshotId: string) => {
    let b = bundles.get(snapshotId);
    if (!b) {
      if (bundles.size >= BUNDLE_CACHE_SIZE) bundles.delete(bundles.keys().next().value!);
      b = ensureBundle(base.db.pool, base.storage, snapshotId, base.clock.now());
      b.catch(() => bundles.delete(snapshotId));
      bundles.set(snapshotId, b);
    }
    return b;
  };
  const planner = new Planner({
    pool: base.db.pool,
    now: () => base.clock.now(),
    storage: base.storage,
    followUps: (f) => runFollowUps(base.db.pool, base.engine, f),
    onError: (err) => base.log.warn('planning failed; the poll retries it', { err }),
  });
  const finish = async (runId: string, done: TaskCompletion) => {
    if (await endTaskRun(base.db.pool, runId, done, () => base.clock.now(), { masterKeys: base.config.masterKeys })) void planner.kick();
  };
  const ctx: DispatcherContext = {
    ...base,
    planner,
    finish,
    async prepare(run) {
      const specDeps = { pool: base.db.pool, storage: base.storage, masterKeys: base.config.masterKeys, maxArtifactBytes: base.config.maxArtifactBytes, maxBundleBytes: base.config.maxBundleBytes };
      try {
        let snapshotId = '';
        return await prepareTask(specDeps, run, async () => (await bundleOf(snapshotId)).hash, (snap) => (snapshotId = snap));
      } catch (err) {
        if (!(err instanceof DispatchError)) throw err;
        await finish(run.id, { state: 'FAILED', reason: err.reason, error: err.message, exitCode: null });
        return null;
      }
    },
    async bundleStream(snapshotId) {
      try {
        return await base.storage.get((await bundleOf(snapshotId)).key);
      } catch (err) {
        // Storage cleanup removes bundles unused for 7 days: forget the cached
        // entry and build (or find) it again.
        if (!(err instanceof ObjectNotFoundError)) throw err;
        bundles.delete(snapshotId);
        return base.storage.get((await bundleOf(snapshotId)).key);
      }
    },
  };
  return ctx;
}
