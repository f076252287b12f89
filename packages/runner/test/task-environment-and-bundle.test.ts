// What the task finds when it starts: environment, bundle files (with their
// executable bits), the spec's files, and its working directory — and what the
// runner refuses to write.
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { runTask } from '../src/index.js';
import { listDir, makeSpec, makeTarGz, MemoryTransport, scratchRoots } from '../src/testing/index.js';

const root = scratchRoots();

test('the task gets the spec env, SVC_OUTPUTS and SVC_ARTIFACTS_DIR, and PATH/HOME of the runner', async () => {
  const workRoot = await root();
  const spec = makeSpec({ command: ['bash', '-c', 'env | sort'], task_run_id: 'tr-env' });
  spec.env.GREETING = 'hi there';
  const t = new MemoryTransport(spec);
  const c = await runTask({ transport: t, workRoot });
  assert.equal(c.state, 'SUCCESS');
  const env = new Map(t.text('stdout').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
  for (const [k, v] of Object.entries(spec.env)) assert.equal(env.get(k), v, k);
  assert.equal(env.get('PATH'), process.env.PATH);
  assert.equal(env.get('HOME'), process.env.HOME ?? os.homedir());
  const real = await fs.realpath(workRoot);
  assert.match(env.get('SVC_OUTPUTS')!, new RegExp(`^${real}/tr-env-[^/]+/outputs\\.jsonl$`));
  assert.match(env.get('SVC_ARTIFACTS_DIR')!, new RegExp(`^${real}/tr-env-[^/]+/artifacts$`));
  assert.equal(env.get('SVC_RUN_TOKEN'), undefined, 'nothing of the runner environment leaks beyond PATH and HOME');
});

test('the spec env may set PATH and HOME itself', async () => {
  const spec = makeSpec({ command: ['/usr/bin/env'] });
  spec.env.PATH = '/usr/bin:/bin';
  spec.env.HOME = '/nonexistent-home';
  const t = new MemoryTransport(spec);
  await runTask({ transport: t, workRoot: await root() });
  assert.ok(t.text().includes('PATH=/usr/bin:/bin'));
  assert.ok(t.text().includes('HOME=/nonexistent-home'));
});

test('the bundle is extracted with executable bits; files are written; cwd is the workdir', async () => {
  const bundle = await makeTarGz([
    { name: 'bin/', type: 'directory' },
    { name: 'bin/tool.sh', content: '#!/bin/sh\necho "tool ran in $(pwd)"\n', mode: 0o755 },
    { name: 'jobs/', type: 'directory' },
    { name: 'jobs/daily/', type: 'directory' },
    { name: 'jobs/daily/data.csv', content: 'a,b\n1,2\n', mode: 0o644 },
    { name: 'jobs/daily/link.csv', type: 'symlink', linkname: 'data.csv' },
  ]);
  const script = [
    'set -e',
    '../../bin/tool.sh',
    'test -x ../../bin/tool.sh && echo "tool executable"',
    'test ! -x data.csv && echo "data not executable"',
    'cat link.csv',
    'cat generated.txt; echo',
    'cat ../../conf/app.ini',
  ].join('\n');
  const t = new MemoryTransport(
    makeSpec({ command: ['bash', '-c', script], workdir: 'jobs/daily', files: { 'jobs/daily/generated.txt': 'from spec', 'conf/app.ini': 'x=1' } }),
    bundle,
  );
  const c = await runTask({ transport: t, workRoot: await root() });
  assert.equal(c.state, 'SUCCESS', c.error);
  const out = t.text('stdout');
  assert.match(out[0]!, /^tool ran in \/.*\/bundle\/jobs\/daily$/);
  assert.deepEqual(out.slice(1), ['tool executable', 'data not executable', 'a,b', '1,2', 'from spec', 'x=1']);
});

test('a spec file starting with #! can be run directly', async () => {
  const t = new MemoryTransport(makeSpec({ command: ['./gen.sh', 'arg1'], files: { 'gen.sh': '#!/bin/bash\necho "gen $1"\n' } }));
  const c = await runTask({ transport: t, workRoot: await root() });
  assert.equal(c.state, 'SUCCESS', c.error);
  assert.deepEqual(t.text(), ['gen arg1']);
});

test('a workdir missing from the bundle is FAILED executor_error', async () => {
  const t = new MemoryTransport(makeSpec({ command: ['true'], workdir: 'nope' }));
  const c = await runTask({ transport: t, workRoot: await root() });
  assert.equal(c.reason, 'executor_error');
  assert.match(c.error, /workdir "nope"/);
});

test('an empty bundle archive and an empty stream are both an empty bundle', async () => {
  for (const bundle of [await makeTarGz([]), Buffer.alloc(0)]) {
    const t = new MemoryTransport(makeSpec({ command: ['bash', '-c', 'ls -A | wc -l'] }), bundle.length ? bundle : null);
    if (!bundle.length) t.getBundle = async () => (await import('node:stream')).Readable.from([]);
    const c = await runTask({ transport: t, workRoot: await root() });
    assert.equal(c.state, 'SUCCESS', c.error);
    assert.deepEqual(t.text(), ['0']);
  }
});

for (const [label, entries] of [
  ['a ../ entry', [{ name: '../escaped.txt', content: 'x' }]],
  ['an absolute entry', [{ name: '/tmp/svc-runner-abs-escape.txt', content: 'x' }]],
  ['a symlink to outside', [{ name: 'out', type: 'symlink', linkname: '../../..' }]],
  [
    'a write through a symlink chain',
    [
      { name: 'a/', type: 'directory' },
      { name: 'a/b', type: 'symlink', linkname: '..' },
      { name: 'c', type: 'symlink', linkname: 'a/b/../..' },
      { name: 'c/escaped.txt', content: 'x' },
    ],
  ],
  ['a hard link to outside', [{ name: 'h', type: 'link', linkname: '../../etc/passwd' }]],
] as const) {
  test(`a bundle with ${label} is refused (executor_error) and nothing lands outside`, async () => {
    const workRoot = await root();
    const bundle = await makeTarGz(entries as never);
    const t = new MemoryTransport(makeSpec({ command: ['bash', '-c', 'echo should not run'] }), bundle);
    const c = await runTask({ transport: t, workRoot });
    assert.equal(c.state, 'FAILED');
    assert.equal(c.reason, 'executor_error');
    assert.match(c.error, /^bundle: unsafe path/);
    assert.deepEqual(t.text(), []);
    assert.deepEqual(await listDir(workRoot), [], 'run directory removed');
    assert.ok(!(await listDir(path.dirname(workRoot))).includes('escaped.txt'));
    assert.ok(!(await listDir('/tmp')).includes('svc-runner-abs-escape.txt'));
  });
}

test('a spec file path escaping the bundle root is refused', async () => {
  const workRoot = await root();
  const t = new MemoryTransport(makeSpec({ command: ['true'], files: { '../../evil.txt': 'x' } }));
  const c = await runTask({ transport: t, workRoot });
  assert.equal(c.reason, 'executor_error');
  assert.match(c.error, /escapes the bundle root/);
  assert.ok(!(await listDir(path.dirname(workRoot))).includes('evil.txt'));
});

test('a bundle over limits.max_bundle_bytes is refused', async () => {
  const bundle = await makeTarGz([{ name: 'big.bin', content: 'x'.repeat(5000) }]);
  const spec = makeSpec({ command: ['true'] });
  spec.limits.max_bundle_bytes = 1000;
  const c = await runTask({ transport: new MemoryTransport(spec, bundle), workRoot: await root() });
  assert.equal(c.reason, 'executor_error');
  assert.match(c.error, /exceeds the limit of 1000 bytes/);
});
