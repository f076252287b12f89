#!/usr/bin/env node
// `npm start`: installs and builds what is missing, then runs `svc local`:
// embedded PostgreSQL (unless SVC_DATABASE_URL is set) and every service, in
// the foreground until Ctrl-C.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bootstrap, root } from './bootstrap.mjs';
import { onProjectNode } from './node-runtime.mjs';

// On the images' Node (24): installed into .tools/ and run under it where this machine's is older.
await onProjectNode(fileURLToPath(import.meta.url));

try {
  bootstrap();
} catch (err) {
  console.error(`[start] ${err.message}`);
  process.exit(1);
}
process.env.SVC_DATA_DIR ??= path.join(root, '.svc-data');
const { runLocal } = await import(path.join(root, 'apps/cli/dist/local/supervisor.js'));
try {
  process.exit(await runLocal(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr }));
} catch (err) {
  console.error(`[start] ${err.message}`);
  process.exit(1);
}
