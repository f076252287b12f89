#!/usr/bin/env node
// The dispatcher process: claims queued task runs of its pools (SVC_POOLS)
// for its executors (SVC_EXECUTORS plus the always-on inline executor).
import { runService } from '@svc/service';
import { createObjectStore } from '@svc/storage';
import { createContext } from './context.js';
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
    const ctx = createContext({
      ...svc,
      storage,
      engine: { config: { defaultExecutor: svc.config.defaultExecutor, now: () => svc.clock.now() }, storage },
      heartbeatMs: 10_000,
      // Spec: SIGKILL 10 s after SIGTERM. SVC_KILL_DELAY (a duration) shortens it for tests.
      killDelayMs: process.env.SVC_KILL_DELAY_MS ? Number(process.env.SVC_KILL_DELAY_MS) : 10_000,
    });
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
