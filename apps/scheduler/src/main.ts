#!/usr/bin/env node
// The scheduler process. It registers and heartbeats its instance row; firing
// schedule triggers is built by the triggers issue.
import { runService } from '@svc/service';

await runService({
  kind: 'scheduler',
  async start() {
    return { async stop() {} };
  },
});
