#!/usr/bin/env node
// The maintenance process: holds the `maintenance` lease across instances.
// The work done under it (timeouts, lost work, retention, storage cleanup) is
// built by the maintenance issue.
import { runService } from '@svc/service';
import { startLeaseKeeper } from './lease-keeper.js';

await runService({
  kind: 'maintenance',
  async start(ctx) {
    const keeper = startLeaseKeeper({ db: ctx.db, log: ctx.log, holderId: ctx.instanceId, now: () => ctx.clock.now() });
    return { stop: () => keeper.stop() };
  },
});
