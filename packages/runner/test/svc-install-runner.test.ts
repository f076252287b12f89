// `svc install-runner DEST`: its usage, its refusal outside a runner bundle,
// and the copy itself on a stand-in bundle. (The real bundle installing itself
// from the `runner` image is tested in packages/runner-bundle.)
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { bundleDirOf, installRunner, NotInBundleError } from '../src/exec/install-runner.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const MAIN = path.join(here, '../src/exec/main.ts');
const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-install-runner-'));
after(() => fs.rm(tmp, { recursive: true, force: true }));

function svc(args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', MAIN, ...args], { cwd: path.join(here, '..'), encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('svc install-runner without DEST, or with more, exits 2 with its usage', () => {
  for (const args of [['install-runner'], ['install-runner', 'a', 'b'], ['install-runner', '--force']]) {
    const r = svc(args);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /usage: svc install-runner DEST/);
  }
  const help = svc(['install-runner', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /usage: svc install-runner DEST/);
  assert.match(svc([]).stderr, /usage: svc install-runner DEST/, 'svc with no arguments names both commands');
});

test('svc install-runner run from the sources (not a bundle) exits 1 and says so', () => {
  const r = svc(['install-runner', path.join(tmp, 'never')]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /not running from a runner bundle/);
});

test('installRunner copies a bundle found through a link to its svc.cjs, modes kept', async () => {
  const bundle = path.join(tmp, 'bundle');
  await fs.mkdir(path.join(bundle, 'bin'), { recursive: true });
  await fs.mkdir(path.join(bundle, 'lib'));
  await fs.writeFile(path.join(bundle, 'svc.cjs'), '// svc');
  await fs.writeFile(path.join(bundle, 'bin/node'), 'ELF', { mode: 0o755 });
  await fs.writeFile(path.join(bundle, 'lib/libc.so.6'), 'libc', { mode: 0o755 });
  await fs.symlink(path.join(bundle, 'svc.cjs'), path.join(tmp, 'svc-link.cjs'));
  assert.equal(await bundleDirOf(path.join(tmp, 'svc-link.cjs')), bundle);
  await assert.rejects(bundleDirOf(path.join(bundle, 'bin/node')), NotInBundleError);

  const dest = path.join(tmp, 'shared/svc');
  await installRunner(bundle, dest);
  await installRunner(bundle, dest); // again over the first copy: an init container that restarted
  assert.equal(await fs.readFile(path.join(dest, 'lib/libc.so.6'), 'utf8'), 'libc');
  assert.equal((await fs.stat(path.join(dest, 'bin/node'))).mode & 0o777, 0o755);
  assert.deepEqual((await fs.readdir(dest)).sort(), ['bin', 'lib', 'svc.cjs']);
});
