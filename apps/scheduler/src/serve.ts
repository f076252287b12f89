// The scheduler process: syncs schedules from the flows, fires due schedule
// triggers exactly once (however many scheduler instances run), and sweeps
// flow triggers that a crash left unfired. See scheduler.ts. It advances
// backfills (backfills.ts). Its periods
// (SVC_SCHEDULER_TICK_MS, _SYNC_MS, _SWEEP_MS) come from the configuration,
// so a bad value stops it with exit code 2 like any other. It also runs the
// git sync worker (requested syncs and polling of git sources; see
// @svc/git-sources worker.ts), woken through the process's one notifier
// when a sync is requested (the requests are a job queue, @svc/jobs). With
// SVC_HEALTH_PORT it serves /healthz, /readyz and /metrics (@svc/service).
import { Engine } from '@svc/engine';
import { GitSyncWorker } from '@svc/git-sources';
import { PlatformSecretStore } from '@svc/secrets';
import { runService } from '@svc/service';
import { createObjectStore } from '@svc/storage';
import { BackfillAdvancer } from './backfills.js';
import { Scheduler } from './scheduler.js';

await runService({
  kind: 'scheduler',
  health: true,
  async start(ctx) {
    // The store is read when an execution starts (its namespace.yaml executor defaults).
    const storage = await createObjectStore(ctx.config.storage);
    const now = () => ctx.clock.now();
    const engine = new Engine({ pool: ctx.db.pool, storage, clock: ctx.clock, config: ctx.config, log: ctx.log });
    const scheduler = new Scheduler({
      pool: ctx.db.pool,
      log: ctx.log,
      engine,
      now,
      tickMs: ctx.config.schedulerTickMs,
      syncMs: ctx.config.schedulerSyncMs,
      sweepMs: ctx.config.schedulerSweepMs,
      metrics: ctx.metrics,
    });
    const loop = scheduler.start();
    // Backfills (backfills.ts): rows the gateway writes, advanced on the tick's period.
    const backfills = new BackfillAdvancer({
      pool: ctx.db.pool,
      engine,
      log: ctx.log,
      maxInFlightPerFlow: ctx.config.backfillMaxInFlightPerFlow,
      maxInFlightPerNamespace: ctx.config.backfillMaxInFlightPerNamespace,
    }).start({ now, intervalMs: ctx.config.schedulerTickMs });
    const git = await new GitSyncWorker({
      db: ctx.db,
      pool: ctx.db.pool,
      storage,
      now,
      log: ctx.log,
      holderId: ctx.instanceId,
      credentials: new PlatformSecretStore({ db: ctx.db.pool, keys: ctx.config.masterKeys }),
      maxFileBytes: ctx.config.maxFileBytes,
      maxBundleBytes: ctx.config.maxBundleBytes,
      tickMs: ctx.config.gitSyncTickMs,
    }).start(ctx.notifier);
    return {
      async stop() {
        await loop.stop();
        await backfills.stop();
        await git.stop();
        await storage.close?.();
      },
    };
  },
});
