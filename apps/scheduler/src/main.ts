#!/usr/bin/env node
// The scheduler process: syncs schedules from the flows, fires due schedule
// triggers exactly once (however many scheduler instances run), and sweeps
// flow triggers that a crash left unfired. See scheduler.ts. Its periods
// (SVC_SCHEDULER_TICK_MS, _SYNC_MS, _SWEEP_MS) come from the configuration,
// so a bad value stops it with exit code 2 like any other.
import { Engine } from '@svc/engine';
import { runService } from '@svc/service';
import { createObjectStore } from '@svc/storage';
import { Scheduler } from './scheduler.js';

await runService({
  kind: 'scheduler',
  async start(ctx) {
    // The store is read when an execution starts (its namespace.yaml executor defaults).
    const storage = await createObjectStore(ctx.config.storage);
    const now = () => ctx.clock.now();
    const scheduler = new Scheduler({
      pool: ctx.db.pool,
      log: ctx.log,
      engine: new Engine({ pool: ctx.db.pool, storage, clock: ctx.clock, config: ctx.config, log: ctx.log }),
      now,
      tickMs: ctx.config.schedulerTickMs,
      syncMs: ctx.config.schedulerSyncMs,
      sweepMs: ctx.config.schedulerSweepMs,
    });
    const loop = scheduler.start();
    return {
      async stop() {
        await loop.stop();
        await storage.close?.();
      },
    };
  },
});
