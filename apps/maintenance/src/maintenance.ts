// The lease holder's work, as one unit main.ts starts and tests run twice in
// one process. Modes of an instance:
//
// - standby: it does not hold the `maintenance` lease. It tries to take it
//   every lease tick and does nothing else: runNow() and the watchdog return
//   at once.
// - holder: it took the lease (onAcquired). It runs retention and, when due,
//   the storage cleanup at once, then every `intervalMs` (an hour); the
//   watchdog runs every `watchdogMs`. Runs never overlap: a run asked for while
//   one is going returns the one going. Between batches a run checks that the
//   lease is still held, and stops when it is not (back to standby).
//
// Time comes from the injected `now`, so tests move it instead of waiting.
// Without one (production), the lease and the watchdog use the database's
// clock (they compare times other hosts wrote) and retention the process's
// (its limits are days).
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

/** Retention and the storage cleanup check run this often while holding the lease (spec: every hour). */
export const MAINTENANCE_INTERVAL_MS = 3_600_000;

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
  /** Period of retention and the cleanup check. Default {@link MAINTENANCE_INTERVAL_MS}. */
  intervalMs?: number;
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

export function startMaintenance(opts: MaintenanceOptions): Maintenance {
  const { log, metrics } = opts;
  let current: Promise<MaintenanceReport | null> | null = null;
  let stopped = false;
  let keeper: LeaseKeeper | undefined;
  const isHolder = () => !stopped && (keeper?.isHolder() ?? false);

  const runOnce = async (): Promise<MaintenanceReport | null> => {
    if (!isHolder()) return null;
    const now = opts.now?.() ?? new Date();
    const common = { db: opts.db, storage: opts.storage, log, metrics, batchSize: opts.batchSize, shouldContinue: isHolder };
    let retention: RetentionResult;
    try {
      retention = await runRetention(
        { ...common, engine: opts.engine, retentionDays: opts.retentionDays, ...(opts.emailRetentionDays !== undefined ? { emailRetentionDays: opts.emailRetentionDays } : {}) },
        now,
      );
      metrics.runs.inc({ job: 'retention', outcome: 'ok' });
      metrics.lastRun.set({ job: 'retention' }, now.getTime() / 1000);
      log.info('retention', { executions: retention.executions, rows: retention.rows, objects: retention.objects, bytes: retention.objectBytes, complete: retention.complete });
    } catch (err) {
      metrics.runs.inc({ job: 'retention', outcome: 'error' });
      log.error('retention failed', { err });
      retention = { executions: 0, rows: {}, objects: 0, objectBytes: 0, complete: false };
    }
    let storage: CleanupOutcome;
    try {
      storage = isHolder() ? await runStorageCleanupIfDue({ ...common, settleMs: opts.settleMs, instanceId: opts.instanceId }, now) : { ran: false, last: null };
      if (storage.ran) {
        metrics.runs.inc({ job: 'storage_cleanup', outcome: storage.record.outcome === 'ok' ? 'ok' : 'interrupted' });
        metrics.lastRun.set({ job: 'storage_cleanup' }, now.getTime() / 1000);
        const r = storage.record;
        log.info('storage cleanup', { outcome: r.outcome, duration_ms: r.duration_ms, objects: r.objects, rows: r.rows, kept: r.kept });
      } else {
        metrics.runs.inc({ job: 'storage_cleanup', outcome: 'not_due' });
        log.debug('storage cleanup not due', { last_started_at: storage.last?.started_at ?? null });
      }
    } catch (err) {
      metrics.runs.inc({ job: 'storage_cleanup', outcome: 'error' });
      log.error('storage cleanup failed', { err });
      storage = { ran: false, last: null };
    }
    return { retention, storage };
  };

  const runNow = () => {
    current ??= runOnce().finally(() => (current = null));
    return current;
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
  const timer = setInterval(() => void runNow(), opts.intervalMs ?? MAINTENANCE_INTERVAL_MS);
  timer.unref();
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
      await current;
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await watchdog.stop();
      await current;
      await keeper.stop();
      metrics.leaseHeld.set(0);
    },
  };
}
