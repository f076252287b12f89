// The runner checks the bundle it receives against the spec's bundle_hash
// before anything of it is unpacked: a bundle changed after it was built (in
// the object store, or on its way) fails the run executor_error, the task's
// command never starts, no file of the bundle is written, and no spool file is
// left. Each way a runner gets its bundle: a fresh run directory, the bundle
// cache, the working-directory pool, and `svc exec`'s HTTP transport.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { after, test } from 'node:test';
import { BundleCache, createHttpTransport, runTask, WorkdirPool, type RunnerTransport } from '../src/index.js';
import { bundleHashOf, listDir, makeSpec, makeTarGz, MemoryTransport, RunnerServer, tempRoot } from '../src/testing/index.js';

const cleanups: (() => Promise<unknown>)[] = [];
after(() => Promise.all(cleanups.map((c) => c())));
async function root() {
  const r = await tempRoot();
  cleanups.push(() => fsp.rm(r, { recursive: true, force: true }));
  return r;
}

const genuine = () => makeTarGz([{ name: 'job.sh', content: '#!/bin/sh\necho genuine\n', mode: 0o755 }]);
// The task writes a marker outside its directory: it ran if the marker exists.
const tampered = (marker: string) => makeTarGz([{ name: 'job.sh', content: `#!/bin/sh\necho tampered > ${marker}\n`, mode: 0o755 }]);
const MISMATCH =
  /^bundle: the bundle received has sha256 [0-9a-f]{64}, not the bundle_hash [0-9a-f]{64} of the task: it was changed after it was built; nothing of it was unpacked$/;

/** Every file under `dir` (relative paths). */
function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as fs.Dirent[])
    .filter((e) => !e.isDirectory())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
}

test('a bundle whose sha256 is not bundle_hash fails the run before it is unpacked, and the command never runs', async () => {
  const base = await root();
  const marker = path.join(base, 'ran');
  const workRoot = path.join(base, 'work');
  const t = new MemoryTransport(makeSpec({ command: ['./job.sh'], bundle_hash: bundleHashOf(await genuine()) }), await tampered(marker));
  const c = await runTask({ transport: t, workRoot });
  assert.equal(c.state, 'FAILED');
  assert.equal(c.reason, 'executor_error');
  assert.match(c.error, MISMATCH);
  assert.ok(c.error.includes(bundleHashOf(await genuine())), 'names the hash it expected');
  assert.equal(fs.existsSync(marker), false, 'the tampered script did not run');
  assert.deepEqual(filesUnder(workRoot), [], 'nothing of the bundle written, no spool file left');
  assert.deepEqual(
    t.completions.map((x) => x.state),
    ['FAILED'],
  );
});

test('the genuine bundle with its hash runs, and leaves no spool file', async () => {
  const base = await root();
  const workRoot = path.join(base, 'work');
  const t = new MemoryTransport(makeSpec({ command: ['./job.sh'], bundle_hash: bundleHashOf(await genuine()) }), await genuine());
  const c = await runTask({ transport: t, workRoot });
  assert.equal(c.state, 'SUCCESS', c.error);
  assert.deepEqual(
    t.lines.map((l) => l.text),
    ['genuine'],
  );
  assert.deepEqual(filesUnder(workRoot), []);
});

test('through the bundle cache and the working-directory pool: refused the same way, and nothing is cached under the hash', async () => {
  const base = await root();
  const marker = path.join(base, 'ran');
  const cache = new BundleCache({ root: path.join(base, 'cache') });
  const pool = new WorkdirPool({ root: path.join(base, 'pool'), cache });
  cleanups.push(async () => (pool.close(), cache.close()));
  const hash = bundleHashOf(await genuine());
  const ioDir = path.join(base, 'io');
  await fsp.mkdir(path.join(ioDir, 'artifacts'), { recursive: true });

  const viaCache = new MemoryTransport(makeSpec({ command: ['./job.sh'], bundle_hash: hash }), await tampered(marker));
  const c1 = await runTask({ transport: viaCache, workRoot: path.join(base, 'work'), bundleCache: cache });
  assert.match(c1.error, MISMATCH);
  const viaPool = new MemoryTransport(makeSpec({ command: ['./job.sh'], bundle_hash: hash }), await tampered(marker));
  const c2 = await runTask({ transport: viaPool, workRoot: path.join(base, 'work'), ioDir, bundleCache: cache, workdirs: pool });
  assert.match(c2.error, MISMATCH);
  assert.equal(fs.existsSync(marker), false, 'the tampered script did not run');
  assert.deepEqual(filesUnder(path.join(base, 'cache')), [], 'no extracted bundle and no spool file in the cache');

  // The genuine bytes under the same hash: accepted (the refused ones were not cached under it).
  const ok = new MemoryTransport(makeSpec({ command: ['./job.sh'], bundle_hash: hash }), await genuine());
  const c3 = await runTask({ transport: ok, workRoot: path.join(base, 'work'), ioDir, bundleCache: cache, workdirs: pool });
  assert.equal(c3.state, 'SUCCESS', c3.error);
  assert.deepEqual(
    ok.lines.map((l) => l.text),
    ['genuine'],
  );
});

test("over HTTP (svc exec's transport): a bundle changed on the server fails the run, reported to the server", async () => {
  const base = await root();
  const marker = path.join(base, 'ran');
  const spec = makeSpec({ command: ['./job.sh'], bundle_hash: bundleHashOf(await genuine()) });
  const s = await new RunnerServer({ token: 'tok', spec, bundle: await tampered(marker) }).start();
  cleanups.push(() => s.stop());
  const transport: RunnerTransport = createHttpTransport({ server: s.url, taskRunId: spec.task_run_id, token: 'tok', retryForMs: 2000 });
  const workRoot = path.join(base, 'work');
  const c = await runTask({ transport, workRoot });
  assert.match(c.error, MISMATCH);
  assert.equal(s.completions[0]?.state, 'FAILED');
  assert.match(s.completions[0]!.error, MISMATCH);
  assert.equal(fs.existsSync(marker), false);
  assert.deepEqual(await listDir(workRoot), []);
  // The expected hash is the genuine bundle's, not the one received.
  assert.notEqual(
    crypto
      .createHash('sha256')
      .update(await tampered(marker))
      .digest('hex'),
    spec.bundle_hash,
  );
});
