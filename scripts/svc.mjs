#!/usr/bin/env node
// `npm run svc -- ARGS`: the svc CLI from the repository root (built on demand).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { bootstrap, root } from './bootstrap.mjs';

try {
  bootstrap();
} catch (err) {
  console.error(`[svc] ${err.message}`);
  process.exit(1);
}
process.env.SVC_DATA_DIR ??= path.join(root, '.svc-data');
const r = spawnSync(process.execPath, [path.join(root, 'apps/cli/dist/main.js'), ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(r.status ?? 1);
