import type { Config } from '@svc/config';
import type { Db } from '@svc/db';
import { DispatchError, drainOutbox, endTaskRun, Planner, prepareTask, runFollowUps, type ClaimedRun, type PreparedTask, type StartDeps, type TaskCompletion } from '@svc/engine';
import type { Logger } from '@svc/logging';
import { ensureBundle } from '@svc/namespaces';
import type { Clock } from '@svc/service';
import { ObjectNotFoundError, type ObjectStore } from '@svc/storage';
import { withRetry } from './retry.js';

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
  /**
   * Ends a RUNNING task run and has its execution planned (the slot is free
   * when this resolves; planning follows). A failed write is retried with
   * backoff until it succeeds or the dispatcher stops (then the stop, or the
   * watchdog's `lost` rule once this instance is gone, ends the run).
   */
  finish(runId: string, done: TaskCompletion): Promise<void>;
  /**
   * Resolves the task's templates; ends it FAILED and returns null when they
   * do not resolve (template_error, secret_not_found) or when preparing fails
   * otherwise (executor_error: a database or object store error; the retry
   * policy applies).
   */
  prepare(run: ClaimedRun): Promise<PreparedTask | null>;
  bundleStream(snapshotId: string): Promise<NodeJS.ReadableStream>;
  /** Aborted when the dispatcher stops: retried writes then give up after their next attempt. */
  stopping: AbortSignal;
  /** Aborts `stopping` (Dispatcher.stop, once its running task runs were ended). */
  markStopping(): void;
}

/** Bundles of snapshots are immutable once built: their hash and key are cached (bounded). */
const BUNDLE_CACHE_SIZE = 1000;

export function createContext(base: Omit<DispatcherContext, 'prepare' | 'bundleStream' | 'planner' | 'finish' | 'stopping' | 'markStopping'>): DispatcherContext {
  const stopping = new AbortController();
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
    outbox: () => drainOutbox(base.db.pool, base.engine),
    onError: (err) => base.log.warn('planning failed; the poll retries it', { err }),
  });
  const finish = async (runId: string, done: TaskCompletion) => {
    // The end time is the database's clock (no clock passed): the claim wrote the start with it.
    const ended = await withRetry(() => endTaskRun(base.db.pool, runId, done, undefined, { masterKeys: base.config.masterKeys }), {
      what: `ending task run ${runId}`,
      signal: stopping.signal,
      onRetry: (err, attempt, delayMs) => base.log.warn('cannot record the end of a task run; retrying', { err, task_run_id: runId, attempt, retry_in_ms: delayMs }),
    });
    if (ended) void planner.kick();
  };
  const ctx: DispatcherContext = {
    ...base,
    planner,
    finish,
    stopping: stopping.signal,
    markStopping: () => stopping.abort(),
    async prepare(run) {
      const specDeps = { pool: base.db.pool, storage: base.storage, masterKeys: base.config.masterKeys, maxArtifactBytes: base.config.maxArtifactBytes, maxBundleBytes: base.config.maxBundleBytes };
      try {
        let snapshotId = '';
        return await prepareTask(specDeps, run, async () => (await bundleOf(snapshotId)).hash, (snap) => (snapshotId = snap));
      } catch (err) {
        // Anything but a template or secret problem is the service's own (a
        // database or object store error): the run ends executor_error and its
        // retry policy decides, rather than it staying RUNNING until its timeout.
        if (!(err instanceof DispatchError)) base.log.warn('preparing a task run failed; it ends executor_error', { err, task_run_id: run.id });
        const failure = err instanceof DispatchError ? { reason: err.reason, error: err.message } : { reason: 'executor_error', error: `preparing the task failed: ${err instanceof Error ? err.message : String(err)}` };
        await finish(run.id, { state: 'FAILED', ...failure, exitCode: null });
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
