#!/usr/bin/env node
// The maintenance process: holds the `maintenance` lease across instances and,
// while it holds it, ends timed-out executions and task runs and lost work.
// Retention and storage cleanup are built by the maintenance issue.
import { runService } from '@svc/service';
import { createObjectStore } from '@svc/storage';
import { startLeaseKeeper } from './lease-keeper.js';
import { startWatchdog } from './watchdog-loop.js';

await runService({
  kind: 'maintenance',
  async start(ctx) {
    // The store is read when a queued execution starts (its namespace.yaml executor defaults).
    const storage = await createObjectStore(ctx.config.storage);
    const keeper = startLeaseKeeper({ db: ctx.db, log: ctx.log, holderId: ctx.instanceId, now: () => ctx.clock.now() });
    const watchdog = startWatchdog({
      db: ctx.db,
      log: ctx.log,
      now: () => ctx.clock.now(),
      isHolder: () => keeper.isHolder(),
      engine: { config: { defaultExecutor: ctx.config.defaultExecutor, now: () => ctx.clock.now() }, storage },
      intervalMs: process.env.SVC_WATCHDOG_MS ? Number(process.env.SVC_WATCHDOG_MS) : undefined,
    });
    return {
      async stop() {
        await watchdog.stop();
        await keeper.stop();
        await storage.close?.();
      },
    };
  },
});
