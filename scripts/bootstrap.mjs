#!/usr/bin/env node
// Brings a fresh clone to a runnable state with nothing but Node 20+ and npm
// (`npm start` and `npm test` run it on Node 24: node-runtime.mjs):
// pnpm is installed into .tools/ (corepack fails on our machines, and a global
// install needs root), then the workspace is installed and built with turbo.
// Each step is skipped when its inputs have not changed since the last run.
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PNPM_VERSION = '12.21.0';
const toolsDir = path.join(root, '.tools');
export const pnpmBin = path.join(toolsDir, 'node_modules', '.bin', 'pnpm');

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, {
    cwd: root,
    stdio: opts.quiet ? ['ignore', 'pipe', 'pipe'] : ['inherit', 2, 2],
    env: { ...process.env, PATH: `${path.dirname(pnpmBin)}${path.delimiter}${process.env.PATH}`, ...opts.env },
  });
  if (r.status !== 0) {
    if (opts.quiet) process.stderr.write(`${r.stdout ?? ''}${r.stderr ?? ''}`);
    throw new Error(`${cmd} ${args.join(' ')} exited with ${r.status ?? r.signal}`);
  }
}

function log(msg) {
  process.stderr.write(`[bootstrap] ${msg}\n`);
}

function hashFiles(files) {
  const h = crypto.createHash('sha256');
  for (const f of files) {
    h.update(f);
    if (fs.existsSync(path.join(root, f))) h.update(fs.readFileSync(path.join(root, f)));
  }
  return h.digest('hex');
}

function workspaceManifests() {
  const out = ['package.json', 'pnpm-workspace.yaml', 'pnpm-lock.yaml'];
  for (const dir of ['apps', 'packages']) {
    for (const d of fs.readdirSync(path.join(root, dir)).sort()) out.push(`${dir}/${d}/package.json`);
  }
  out.push('e2e/package.json', 'bench/package.json');
  return out;
}

export function ensurePnpm() {
  if (fs.existsSync(pnpmBin)) return;
  log(`installing pnpm ${PNPM_VERSION} into .tools/`);
  fs.mkdirSync(toolsDir, { recursive: true });
  run('npm', ['install', '--prefix', toolsDir, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--loglevel=error', `pnpm@${PNPM_VERSION}`], { quiet: true });
}

export function ensureInstalled() {
  ensurePnpm();
  const stamp = path.join(root, 'node_modules', '.svc-install-stamp');
  const want = hashFiles(workspaceManifests());
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === want) return;
  log('installing dependencies (pnpm install)');
  const frozen = fs.existsSync(path.join(root, 'pnpm-lock.yaml')) && process.env.CI ? ['--frozen-lockfile'] : [];
  run(pnpmBin, ['install', ...frozen, '--reporter=append-only'], { env: { npm_config_update_notifier: 'false' } });
  fs.writeFileSync(stamp, hashFiles(workspaceManifests()));
}

export function ensureBuilt() {
  log('building (turbo, cached)');
  run(pnpmBin, ['exec', 'turbo', 'run', 'build', '--output-logs=errors-only', '--log-prefix=none'], {
    env: { TURBO_TELEMETRY_DISABLED: '1', DO_NOT_TRACK: '1', TURBO_NO_UPDATE_NOTIFIER: '1' },
  });
}

export function bootstrap() {
  ensureInstalled();
  ensureBuilt();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    // --install-only: the dependencies alone, from the manifests (infra/Dockerfile's
    // cached dependency layer, made before the sources are copied in).
    if (process.argv.includes('--install-only')) ensureInstalled();
    else bootstrap();
  } catch (err) {
    log(err.message);
    process.exit(1);
  }
}
