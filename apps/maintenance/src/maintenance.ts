// The lease holder's work, as one unit serve.ts starts and tests run twice in
// one process. Modes of an instance:
//
// - standby: it does not hold the `maintenance` lease. It tries to take it
//   every lease tick and does nothing else: runNow() and the watchdog return
//   at once.
// - holder: it took the lease (onAcquired). It runs retention and, when due,
//   the storage cleanup at once, then each at its cron times (node-cron,
//   UTC: `retentionCron` and `storageCleanupCron`, every hour by default);
//   the watchdog runs every `watchdogMs`. The cron jobs tick on every
//   instance, and a tick on an instance not holding the lease does nothing, so
//   the jobs run on the holder only. Runs never overlap: one job waits for the
//   other, and a job asked for while it is going returns the one going.
//   Between batches a run checks that the lease is still held, and stops when
//   it is not (back to standby).
//
// The cron times are the process's clock's; the injected `now` (tests) only
// decides what the jobs see as the present. Schedule fire times of flows come
// from rows instead (the scheduler), so any number of schedulers agree; an
// in-process clock is right here because only the lease holder acts on it.
//
// Time comes from the injected `now`, so tests move it instead of waiting.
// Without one (production), the lease and the watchdog use the database's
// clock (they compare times other hosts wrote) and retention the process's
// (its limits are days).
import { schedule, type ScheduledTask } from 'node-cron';
import type { Db } from '@svc/db';
import type { Engine } from '@svc/engine';
import type { Logger } from '@svc/logging';
import type { ObjectStore } from '@svc/storage';
import { DbContact } from './db-contact.js';
import { startLeaseKeeper, LEASE_TICK_MS, type LeaseKeeper } from './lease-keeper.js';
import type { MaintenanceMetrics } from './metrics.js';
import { runRetention, type RetentionResult } from './retention.js';
import { runStorageCleanupIfDue, type CleanupOutcome } from './storage-cleanup.js';
import { startWatchdog } from './watchdog-loop.js';

/** When retention and the storage cleanup check run while holding the lease, by default (spec: every hour). */
export const MAINTENANCE_CRON = '0 * * * *';

export interface MaintenanceOptions {
  db: Db;
  storage: ObjectStore;
  log: Logger;
  metrics: MaintenanceMetrics;
  /** This instance's id: the lease holder id and the cleanup record's `instance_id`. */
  instanceId: string;
  /** A test's clock. Default: the database's for the lease and the watchdog, the process's for retention and the storage cleanup. */
  now?: () => Date;
  /** The engine: its watchdog rules run while this instance holds the lease. */
  engine: Engine;
  /** `SVC_RETENTION_DAYS`. */
  retentionDays: number;
  /** `SVC_EMAIL_RETENTION_DAYS`. Default 30. */
  emailRetentionDays?: number;
  /** `SVC_HEARTBEAT_TIMEOUT` in ms. Default 60 s. */
  heartbeatTimeoutMs?: number;
  /** `SVC_RETENTION_CRON`: when retention runs (node-cron, 5 or 6 fields, UTC). Default {@link MAINTENANCE_CRON}. */
  retentionCron?: string;
  /** `SVC_STORAGE_CLEANUP_CRON`: when the storage cleanup runs if due. Default {@link MAINTENANCE_CRON}. */
  storageCleanupCron?: string;
  /** Period of the watchdog. Default 5 s. */
  watchdogMs?: number;
  /** Lease TTL. Default 30 s. */
  leaseTtlMs?: number;
  /** Lease take/renew period. Default 5 s. */
  leaseTickMs?: number;
  /** Rows per DELETE statement. Default 500. */
  batchSize?: number;
  /** Pause of the storage cleanup before deleting what it took out of use. Default 5 s. */
  settleMs?: number;
}

export interface MaintenanceReport {
  retention: RetentionResult;
  storage: CleanupOutcome;
}

export interface Maintenance {
  keeper: LeaseKeeper;
  /** One run of retention and the due cleanup; null when this instance does not hold the lease. */
  runNow(): Promise<MaintenanceReport | null>;
  /** Resolves when no run is going. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

type Job = 'retention' | 'storage_cleanup';
const NO_RETENTION: RetentionResult = { executions: 0, rows: {}, objects: 0, objectBytes: 0, complete: false };

export function startMaintenance(opts: MaintenanceOptions): Maintenance {
  const { log, metrics } = opts;
  let stopped = false;
  let keeper: LeaseKeeper | undefined;
  const isHolder = () => !stopped && (keeper?.isHolder() ?? false);
  const common = () => ({ db: opts.db, storage: opts.storage, log, metrics, batchSize: opts.batchSize, shouldContinue: isHolder });

  const retention = async (): Promise<RetentionResult> => {
    const now = opts.now?.() ?? new Date();
    try {
      const result = await runRetention(
        { ...common(), engine: opts.engine, retentionDays: opts.retentionDays, ...(opts.emailRetentionDays !== undefined ? { emailRetentionDays: opts.emailRetentionDays } : {}) },
        now,
      );
      metrics.runs.inc({ job: 'retention', outcome: 'ok' });
      metrics.lastRun.set({ job: 'retention' }, now.getTime() / 1000);
      log.info('retention', { executions: result.executions, rows: result.rows, objects: result.objects, bytes: result.objectBytes, complete: result.complete });
      return result;
    } catch (err) {
      metrics.runs.inc({ job: 'retention', outcome: 'error' });
      log.error('retention failed', { err });
      return NO_RETENTION;
    }
  };

  // `firedAt`: the cron time that asked for it (whole seconds), so a daily cron's runs are exactly 24 hours apart and each is due.
  const storageCleanup = async (firedAt?: Date): Promise<CleanupOutcome> => {
    const now = opts.now?.() ?? firedAt ?? new Date();
    try {
      const outcome = await runStorageCleanupIfDue({ ...common(), settleMs: opts.settleMs, instanceId: opts.instanceId }, now);
      if (outcome.ran) {
        metrics.runs.inc({ job: 'storage_cleanup', outcome: outcome.record.outcome === 'ok' ? 'ok' : 'interrupted' });
        metrics.lastRun.set({ job: 'storage_cleanup' }, now.getTime() / 1000);
        const r = outcome.record;
        log.info('storage cleanup', { outcome: r.outcome, duration_ms: r.duration_ms, objects: r.objects, rows: r.rows, kept: r.kept });
      } else {
        metrics.runs.inc({ job: 'storage_cleanup', outcome: 'not_due' });
        log.debug('storage cleanup not due', { last_started_at: outcome.last?.started_at ?? null });
      }
      return outcome;
    } catch (err) {
      metrics.runs.inc({ job: 'storage_cleanup', outcome: 'error' });
      log.error('storage cleanup failed', { err });
      return { ran: false, last: null };
    }
  };

  // One job at a time: each waits for the one before it; a job asked for while it waits or runs is that run.
  let chain: Promise<unknown> = Promise.resolve();
  const going = new Map<Job, Promise<RetentionResult | CleanupOutcome | null>>();
  function run(job: 'retention'): Promise<RetentionResult | null>;
  function run(job: 'storage_cleanup', firedAt?: Date): Promise<CleanupOutcome | null>;
  function run(job: Job, firedAt?: Date): Promise<RetentionResult | CleanupOutcome | null>;
  function run(job: Job, firedAt?: Date): Promise<RetentionResult | CleanupOutcome | null> {
    const existing = going.get(job);
    if (existing) return existing;
    const started = chain.then(async () => {
      if (!isHolder()) return null;
      return job === 'retention' ? retention() : storageCleanup(firedAt);
    });
    const tracked = started.finally(() => going.delete(job));
    going.set(job, tracked);
    chain = tracked.catch(() => undefined);
    return tracked;
  }

  const runNow = async (): Promise<MaintenanceReport | null> => {
    if (!isHolder()) return null;
    const [r, s] = await Promise.all([run('retention'), run('storage_cleanup')]);
    return r && s ? { retention: r, storage: s } : r ? { retention: r, storage: { ran: false, last: null } } : null;
  };

  // Fed by the lease ticks (every instance, holder or not) and the watchdog passes.
  const contact = new DbContact({ gapMs: Math.max(15_000, 3 * (opts.leaseTickMs ?? LEASE_TICK_MS), 3 * (opts.watchdogMs ?? 0)) });
  keeper = startLeaseKeeper({
    db: opts.db,
    log,
    holderId: opts.instanceId,
    now: opts.now,
    contact,
    ttlMs: opts.leaseTtlMs,
    tickMs: opts.leaseTickMs,
    onAcquired: () => {
      metrics.leaseHeld.set(1);
      void runNow();
    },
    onLost: () => metrics.leaseHeld.set(0),
  });
  // A tick on an instance that does not hold the lease does nothing (run() checks).
  const cronJob = (job: Job, expression: string): ScheduledTask =>
    schedule(expression, (fire) => void run(job, fire.date), { name: `maintenance ${job}`, timezone: 'UTC', unref: true });
  const crons = [cronJob('retention', opts.retentionCron ?? MAINTENANCE_CRON), cronJob('storage_cleanup', opts.storageCleanupCron ?? MAINTENANCE_CRON)];
  const watchdog = startWatchdog({
    db: opts.db,
    log,
    engine: opts.engine,
    now: opts.now,
    isHolder,
    contact,
    intervalMs: opts.watchdogMs,
    heartbeatTimeoutMs: opts.heartbeatTimeoutMs,
    metrics,
  });

  return {
    keeper,
    runNow,
    idle: async () => {
      await chain;
    },
    async stop() {
      stopped = true;
      for (const c of crons) await c.destroy();
      await watchdog.stop();
      await chain;
      await keeper.stop();
      metrics.leaseHeld.set(0);
    },
  };
}
