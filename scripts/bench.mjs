#!/usr/bin/env node
// `npm run bench`: builds, then runs every bench/*.bench.mjs (or those whose
// name contains an argument) and prints each one's results as JSON. Record
// notable results in bench/RESULTS.md with the date and machine.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bootstrap, root } from './bootstrap.mjs';
import { onProjectNode } from './node-runtime.mjs';

// On the images' Node (24): installed into .tools/ and run under it where this machine's is older.
await onProjectNode(fileURLToPath(import.meta.url));

bootstrap();
const filters = process.argv.slice(2);
const files = fs
  .readdirSync(path.join(root, 'bench'))
  .filter((f) => f.endsWith('.bench.mjs') && (!filters.length || filters.some((x) => f.includes(x))))
  .sort();
console.log(`# ${new Date().toISOString()} on ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`);
let failed = 0;
for (const f of files) {
  try {
    const { run } = await import(path.join(root, 'bench', f));
    const result = await run();
    console.log(`${f}: ${JSON.stringify(result, null, 2)}`);
  } catch (err) {
    failed++;
    console.error(`${f} failed: ${err.stack ?? err}`);
  }
}
process.exit(failed ? 1 : 0);
