// The standalone package (dist/standalone, built with the CLI): `npm pack`
// then `npm install -g` into a temporary prefix gives a `svc` that works on a
// PATH with only Node on it: help, offline validation, talking to a real
// server, and `svc exec` reaching the runner; the database commands say they
// need the full installation.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { repoRoot, startStack, writeTree, type Stack } from './support.js';

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-pkg-'));
const prefix = path.join(work, 'prefix');
const standalone = path.join(repoRoot, 'apps/cli/dist/standalone');
let s: Stack;
let svcBin: string;

// Only Node on the PATH (npm needs it too, so install with the full PATH first).
const onlyNode = () => {
  const bin = path.join(work, 'node-only');
  fs.mkdirSync(bin, { recursive: true });
  if (!fs.existsSync(path.join(bin, 'node'))) fs.symlinkSync(process.execPath, path.join(bin, 'node'));
  return `${path.join(prefix, 'bin')}:${bin}`;
};
const run = (args: string[], env: Record<string, string> = {}, cwd = work) =>
  spawnSync('svc', args, { cwd, encoding: 'utf8', env: { PATH: onlyNode(), HOME: work, ...env }, timeout: 60_000 });

before(async () => {
  const pack = spawnSync('npm', ['pack', standalone, '--pack-destination', work, '--silent'], { encoding: 'utf8' });
  assert.equal(pack.status, 0, pack.stderr);
  const tarball = path.join(work, pack.stdout.trim().split('\n').pop()!);
  const inst = spawnSync('npm', ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', '--offline', tarball], { encoding: 'utf8' });
  assert.equal(inst.status, 0, inst.stderr + inst.stdout);
  svcBin = path.join(prefix, 'bin', 'svc');
  s = await startStack({ maintenance: false });
});
after(async () => {
  await s?.stop();
  fs.rmSync(work, { recursive: true, force: true });
});

test('npm install -g of the packed CLI puts a working svc on the PATH', () => {
  assert.ok(fs.existsSync(svcBin), svcBin);
  const v = run(['--version']);
  assert.equal(v.status, 0, v.stderr);
  assert.match(v.stdout, /^svc \d+\.\d+\.\d+\n$/);
  const h = run(['--help']);
  assert.match(h.stdout, /ns\|namespace/);
  assert.ok(!fs.existsSync(path.join(prefix, 'lib/node_modules/svc-cli/node_modules')), 'no dependencies installed');
});

test('the installed svc validates offline and talks to a real server', () => {
  writeTree(work, { 'flows/a.flow.yaml': 'id: a\ntasks:\n  - id: x\n    type: command\n    command: ["true"]\n', 'flows/b.flow.yaml': 'id: b\ntasks: []\n' });
  const bad = run(['flow', 'validate', 'flows']);
  assert.equal(bad.status, 1);
  assert.equal(bad.stdout, 'flows/b.flow.yaml:2:1: tasks must have between 1 and 200 items, got 0\n');
  const env = { SVC_URL: s.url, SVC_TOKEN: s.token };
  const c = run(['ns', 'create', 'pkg.test'], env);
  assert.equal(c.status, 0, c.stderr);
  const l = run(['ns', 'list', '-o', 'json'], env);
  assert.equal(l.status, 0, l.stderr);
  assert.ok(JSON.parse(l.stdout).some((n: { name: string }) => n.name === 'pkg.test'));
});

test('svc exec reaches the bundled runner; the database commands ask for the full installation', () => {
  const e = run(['exec', '--help']);
  assert.equal(e.status, 0, e.stderr);
  assert.match(e.stdout + e.stderr, /--server/);
  const u = run(['org', 'create', 'acme']);
  assert.equal(u.status, 1);
  assert.match(u.stderr, /needs the full svc installation/);
});
