// `npm start`, `npm test` and `npm run bench` run on the Node of the images
// (24; infra/Dockerfile's NODE_IMAGE). Where the machine's Node is older (Node
// 20 is end-of-life since April 2026), the script installs Node's official
// binary from the npm registry (the node-<platform>-<arch> package, which the
// `node` package itself installs) into .tools/node-v<version>/ once, as
// bootstrap.mjs installs pnpm into .tools/, and runs itself again under it,
// with it first on PATH, so that npm, pnpm, turbo and every process the run
// starts use it too. SVC_SYSTEM_NODE=1 keeps the machine's Node.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The major of the images' Node, and the version installed where the machine's is older. */
export const NODE_MAJOR = 24;
export const NODE_VERSION = '24.22.3';

const log = (msg) => process.stderr.write(`[node] ${msg}\n`);

/** The directory holding bin/node of the project's Node, installed when missing; null where it cannot be. */
export function projectNodeDir() {
  const dir = path.join(root, '.tools', `node-v${NODE_VERSION}`);
  if (fs.existsSync(path.join(dir, 'bin', 'node'))) return dir;
  const pkg = `node-${process.platform}-${process.arch}@${NODE_VERSION}`;
  log(`this machine's Node is ${process.version}; installing Node ${NODE_VERSION} (${pkg}) into .tools/ from the npm registry, once`);
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-node-'));
  try {
    const packed = spawnSync('npm', ['pack', '--silent', pkg, '--pack-destination', tmp], { encoding: 'utf8', timeout: 300_000 });
    const file = packed.stdout?.trim().split('\n').at(-1);
    if (packed.status !== 0 || !file) throw new Error(`npm pack ${pkg} failed: ${(packed.stderr || packed.stdout || String(packed.error)).trim().slice(-500)}`);
    const untar = spawnSync('tar', ['-xzf', path.join(tmp, file), '-C', tmp], { encoding: 'utf8', timeout: 120_000 });
    if (untar.status !== 0) throw new Error(`unpacking ${file} failed: ${untar.stderr}`);
    if (!fs.existsSync(path.join(tmp, 'package', 'bin', 'node'))) throw new Error(`${pkg} holds no bin/node`);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.renameSync(path.join(tmp, 'package'), dir);
    return dir;
  } catch (err) {
    log(`${err.message}: going on with Node ${process.version}`);
    return null;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * Makes the calling script (`script`, its file) run on Node NODE_MAJOR or
 * newer: returns at once when it does (or SVC_SYSTEM_NODE is set); otherwise
 * runs it again under the project's Node, passing signals on, and exits with
 * its code, never returning.
 */
export async function onProjectNode(script) {
  if (Number(process.versions.node.split('.')[0]) >= NODE_MAJOR || process.env.SVC_SYSTEM_NODE) return;
  const dir = projectNodeDir();
  if (!dir) return;
  const bin = path.join(dir, 'bin');
  const child = spawn(path.join(bin, 'node'), [script, ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` },
  });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => child.kill(sig));
  const code = await new Promise((resolve) => child.once('exit', (c, s) => resolve(c ?? (s ? 128 + (os.constants.signals[s] ?? 0) : 1))));
  process.exit(code);
}
