// The runner bundle on this machine, no container: its layout, svc exec run
// through the bundle's own loader with an empty environment (process.execPath
// then names the loader: nothing may rely on it), its tar stream, and two
// processes building the same bundle at once.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import tar from 'tar-stream';
import { makeSpec, RunnerServer, tempRoot } from '@svc/runner/testing';
import { ensureRunnerBundle, readElfInfo, RUNNER_MOUNT, NotElfError } from '../src/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const TOKEN = 'bundle-token';
const cleanups: (() => Promise<unknown>)[] = [];
after(() => Promise.all(cleanups.map((c) => c())));
async function scratch() {
  const r = await tempRoot('svc-runner-bundle-test-');
  cleanups.push(() => fs.rm(r, { recursive: true, force: true }));
  return r;
}

test('node is an ELF executable with a loader; a text file is not ELF', async () => {
  const elf = await readElfInfo(process.execPath);
  assert.match(elf.interpreter ?? '', /ld-linux-x86-64\.so\.2$/);
  assert.equal(elf.arch, 'amd64');
  await assert.rejects(readElfInfo(fileURLToPath(import.meta.url)), NotElfError);
});

test('the bundle holds node, its loader and libraries and svc; argv starts it from where it is mounted', async () => {
  const b = await ensureRunnerBundle();
  assert.match(b.hash, /^[0-9a-f]{32}$/);
  assert.equal(path.basename(b.dir), b.hash);
  const lib = (await fs.readdir(path.join(b.dir, 'lib'))).sort();
  for (const l of ['ld-linux-x86-64.so.2', 'libc.so.6', 'libm.so.6', 'libstdc++.so.6', 'libgcc_s.so.1']) assert.ok(lib.includes(l), `${l} in ${lib}`);
  assert.deepEqual((await fs.readdir(b.dir)).sort(), ['bin', 'bundle.json', 'lib', 'svc', 'svc.cjs']);
  assert.deepEqual(b.argv(), [
    `${RUNNER_MOUNT}/lib/ld-linux-x86-64.so.2`,
    '--inhibit-cache',
    '--library-path',
    `${RUNNER_MOUNT}/lib`,
    `${RUNNER_MOUNT}/bin/node`,
    `${RUNNER_MOUNT}/svc.cjs`,
  ]);
  assert.equal(b.argv('/x')[4], '/x/bin/node');
  assert.equal((await ensureRunnerBundle()).dir, b.dir, 'the second call finds the same bundle');
});

test('svc exec from the bundle, through its own loader and with an empty environment, runs a task to its end', async () => {
  const b = await ensureRunnerBundle();
  const spec = makeSpec({ command: ['sh', '-c', 'echo hello; echo oops >&2; exit 3'], env: { PATH: '/usr/bin:/bin' } });
  const s = await new RunnerServer({ token: TOKEN, spec }).start();
  cleanups.push(() => s.stop());
  const [file, ...args] = b.argv(b.dir);
  const r = await promisify(execFile)(file!, [...args, 'exec', '--server', s.url, '--task-run', spec.task_run_id], {
    env: { SVC_RUN_TOKEN: TOKEN, SVC_WORK_ROOT: await scratch() },
    encoding: 'utf8',
  });
  assert.match(r.stderr, /ended FAILED/);
  assert.deepEqual(
    s.lines.map((l) => [l.stream, l.text]),
    [
      ['stdout', 'hello'],
      ['stderr', 'oops'],
    ],
  );
  assert.equal(s.completions.length, 1);
  assert.equal(s.completions[0]!.state, 'FAILED');
  assert.equal(s.completions[0]!.exit_code, 3);
});

test('tar() streams every file of the bundle, under a prefix when given', async () => {
  const b = await ensureRunnerBundle();
  const entries = new Map<string, { type: string; size: number; mode: number }>();
  const extract = tar.extract();
  extract.on('entry', (h, stream, next) => {
    entries.set(h.name, { type: h.type ?? 'file', size: h.size ?? 0, mode: h.mode ?? 0 });
    stream.on('end', next);
    stream.resume();
  });
  const done = new Promise<void>((resolve, reject) => extract.on('finish', () => resolve()).on('error', reject));
  b.tar('.svc-runner').pipe(extract as unknown as NodeJS.WritableStream);
  await done;
  assert.equal(entries.get('.svc-runner')?.type, 'directory');
  const node = await fs.stat(path.join(b.dir, 'bin/node'));
  assert.deepEqual(entries.get('.svc-runner/bin/node'), { type: 'file', size: node.size, mode: 0o755 });
  assert.ok(entries.has('.svc-runner/lib/libc.so.6'));
  assert.ok(entries.has('.svc-runner/svc.cjs'));
});

test('two processes building the same bundle at once end with one complete directory', async () => {
  const cacheDir = await scratch();
  const script = `import('${path.join(here, '../dist/index.js')}').then(async (m) => console.log((await m.ensureRunnerBundle({ cacheDir: process.argv[1] })).dir))`;
  const build = () =>
    new Promise<string>((resolve, reject) => {
      const c = spawn(process.execPath, ['-e', script, cacheDir], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      c.stdout.on('data', (d: Buffer) => (out += d.toString()));
      c.on('exit', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`exit ${code}`))));
    });
  const [a, b] = await Promise.all([build(), build()]);
  assert.equal(a, b);
  assert.deepEqual(await fs.readdir(cacheDir), [path.basename(a)], 'no temporary build directory left');
  assert.ok((await fs.stat(path.join(a, 'bundle.json'))).isFile());
});

test('a build removes bundles of other hashes unused for a week and dead builds, and keeps recent ones', async () => {
  const cacheDir = await scratch();
  const old = new Date(Date.now() - 8 * 24 * 3600_000);
  for (const name of ['0'.repeat(32), '1'.repeat(32), '.build-dead']) {
    await fs.mkdir(path.join(cacheDir, name));
    if (name !== '1'.repeat(32)) await fs.utimes(path.join(cacheDir, name), old, old);
  }
  const b = await ensureRunnerBundle({ cacheDir });
  assert.deepEqual((await fs.readdir(cacheDir)).sort(), ['1'.repeat(32), b.hash].sort());
});
