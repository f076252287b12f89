#!/usr/bin/env node
// Writes the runner bundle of this checkout (built first: scripts/bootstrap.mjs)
// to the directory given, for infra/runner.Dockerfile. The bundle carries the
// node that runs this script, as the dispatcher's own bundle carries its node.
//   node infra/runner-bundle.mjs OUT_DIR
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const out = process.argv[2];
if (!out) {
  console.error('usage: node infra/runner-bundle.mjs OUT_DIR');
  process.exit(2);
}
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { ensureRunnerBundle } = await import(path.join(root, 'packages/runner-bundle/dist/index.js'));
const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-runner-bundle-'));
const bundle = await ensureRunnerBundle({ cacheDir });
fs.rmSync(out, { recursive: true, force: true });
fs.cpSync(bundle.dir, out, { recursive: true, verbatimSymlinks: true });
fs.rmSync(cacheDir, { recursive: true, force: true });
console.log(`runner bundle ${bundle.hash} (${bundle.arch}) written to ${out}; argv: ${JSON.stringify(bundle.argv())}`);
