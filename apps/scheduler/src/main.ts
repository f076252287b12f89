#!/usr/bin/env node
// The scheduler process: syncs schedules from the flows, fires due schedule
// triggers exactly once (however many scheduler instances run), and sweeps
// flow triggers that a crash left unfired. See scheduler.ts.
import { runService } from '@svc/service';
import { createObjectStore } from '@svc/storage';
import { Scheduler } from './scheduler.js';

/** Optional millisecond intervals (tests shorten them); bad values are all printed, then exit 2 like every config error. */
const problems: string[] = [];
function intervalFromEnv(name: string): number | undefined {
  const text = process.env[name];
  if (text === undefined || text === '') return undefined;
  const n = Number(text);
  if (Number.isInteger(n) && n >= 10) return n;
  problems.push(`${name}: expected an integer number of milliseconds >= 10, got ${JSON.stringify(text)}`);
  return undefined;
}

const tickMs = intervalFromEnv('SVC_SCHEDULER_TICK_MS');
const syncMs = intervalFromEnv('SVC_SCHEDULER_SYNC_MS');
const sweepMs = intervalFromEnv('SVC_SCHEDULER_SWEEP_MS');
if (problems.length) {
  process.stderr.write(`${problems.join('\n')}\n`);
  process.exit(2);
}

await runService({
  kind: 'scheduler',
  async start(ctx) {
    // The store is read when an execution starts (its namespace.yaml executor defaults).
    const storage = await createObjectStore(ctx.config.storage);
    const now = () => ctx.clock.now();
    const scheduler = new Scheduler({
      pool: ctx.db.pool,
      log: ctx.log,
      engine: { config: { defaultExecutor: ctx.config.defaultExecutor, now }, storage },
      now,
      tickMs,
      syncMs,
      sweepMs,
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
