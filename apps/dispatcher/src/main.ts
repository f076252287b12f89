#!/usr/bin/env node
// The dispatcher process. Its instance row advertises the pools (SVC_POOLS)
// and executors (SVC_EXECUTORS plus the always-on `inline`) it serves; claiming
// task runs is built by the execution engine issue.
import { runService } from '@svc/service';

await runService({
  kind: 'dispatcher',
  pools: (config) => config.pools,
  executors: (config) => ['inline', ...config.executors],
  async start() {
    return { async stop() {} };
  },
});
