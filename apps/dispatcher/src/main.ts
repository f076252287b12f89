#!/usr/bin/env node
// The dispatcher process: claims queued task runs of its pools (SVC_POOLS)
// for its executors (SVC_EXECUTORS plus the always-on inline executor).
import { Engine } from '@svc/engine';
import { runService } from '@svc/service';
import { createObjectStore } from '@svc/storage';
import type { DispatcherContext } from './context.js';
import { Dispatcher } from './dispatcher.js';
import { inlineExecutor } from './executors/inline.js';
import { processExecutor } from './executors/process.js';
import type { Executor } from './executors/types.js';

await runService({
  kind: 'dispatcher',
  pools: (config) => config.pools,
  executors: (config) => ['inline', ...config.executors],
  async start(svc) {
    const storage = await createObjectStore(svc.config.storage);
    const ctx: DispatcherContext = {
      ...svc,
      storage,
      engine: new Engine({ pool: svc.db.pool, storage, clock: svc.clock, config: svc.config, log: svc.log }),
      heartbeatMs: 10_000,
      // Spec: SIGKILL 10 s after SIGTERM (SVC_KILL_DELAY_MS shortens it for tests).
      killDelayMs: svc.config.killDelayMs,
    };
    const executors: Executor[] = [inlineExecutor(ctx)];
    if (svc.config.executors.includes('process')) executors.push(processExecutor(ctx));
    const dispatcher = new Dispatcher(ctx, executors);
    await dispatcher.start();
    return {
      async stop() {
        await dispatcher.stop();
        await storage.close?.();
      },
    };
  },
});
