// After the task: the outputs file becomes outputs and metrics, files under
// $SVC_ARTIFACTS_DIR are uploaded, and all of it happens before complete.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runTask } from '../src/index.js';
import { makeSpec, MemoryTransport, scratchRoots } from '../src/testing/index.js';

const root = scratchRoots();

test('outputs and metrics come from the outputs file', async () => {
  const script = [
    `echo '{"outputs": {"rows": 42, "table": "users"}}' >> "$SVC_OUTPUTS"`,
    `echo '{"metrics": [{"name": "duration", "value": 1.5, "tags": {"step": "load"}}]}' >> "$SVC_OUTPUTS"`,
    `echo '{"outputs": {"rows": 43}, "metrics": [{"name": "count", "value": 7}]}' >> "$SVC_OUTPUTS"`,
  ].join('\n');
  const t = new MemoryTransport(makeSpec({ command: ['bash', '-c', script] }));
  const c = await runTask({ transport: t, workRoot: await root() });
  assert.equal(c.state, 'SUCCESS');
  assert.deepEqual(c.outputs, { rows: 43, table: 'users' });
  assert.deepEqual(c.metrics, [
    { name: 'duration', value: 1.5, tags: { step: 'load' } },
    { name: 'count', value: 7 },
  ]);
});

test('a bad outputs line fails nothing and becomes a [svc] warning on stderr', async () => {
  const script = [`echo 'this is not json' >> "$SVC_OUTPUTS"`, `echo '{"outputs": {"ok": true}}' >> "$SVC_OUTPUTS"`, 'echo task done'].join('\n');
  const t = new MemoryTransport(makeSpec({ command: ['bash', '-c', script] }));
  const c = await runTask({ transport: t, workRoot: await root() });
  assert.equal(c.state, 'SUCCESS');
  assert.deepEqual(c.outputs, { ok: true });
  assert.deepEqual(
    t.lines.map((l) => [l.n, l.stream, l.text]),
    [
      [1, 'stdout', 'task done'],
      [2, 'stderr', '[svc] outputs line 1 ignored: not valid JSON'],
    ],
  );
});

test('outputs are kept when the task fails', async () => {
  const t = new MemoryTransport(makeSpec({ command: ['bash', '-c', `echo '{"outputs": {"partial": 1}}' >> "$SVC_OUTPUTS"; exit 4`] }));
  const c = await runTask({ transport: t, workRoot: await root() });
  assert.equal(c.state, 'FAILED');
  assert.deepEqual(c.outputs, { partial: 1 });
});

test('every regular file under SVC_ARTIFACTS_DIR is uploaded by relative path; one over the limit is skipped', async () => {
  const script = [
    'cd "$SVC_ARTIFACTS_DIR"',
    'echo "report" > report.txt',
    'mkdir -p plots/daily && printf "png-bytes" > plots/daily/a.png',
    'head -c 5000 /dev/zero > huge.bin',
    'ln -s /etc/passwd passwd-link',
  ].join('\n');
  const spec = makeSpec({ command: ['bash', '-c', script] });
  spec.limits.max_artifact_bytes = 4096;
  const t = new MemoryTransport(spec);
  const c = await runTask({ transport: t, workRoot: await root() });
  assert.equal(c.state, 'SUCCESS');
  assert.deepEqual([...t.artifacts.keys()].sort(), ['plots/daily/a.png', 'report.txt']);
  assert.equal(t.artifacts.get('report.txt')!.toString(), 'report\n');
  assert.equal(t.artifacts.get('plots/daily/a.png')!.toString(), 'png-bytes');
  assert.equal(t.artifactSizes.get('plots/daily/a.png'), 9);
  assert.deepEqual(t.text('stderr').sort(), [
    '[svc] artifact huge.bin skipped: 5000 bytes exceeds the limit of 4096 bytes',
    '[svc] artifact passwd-link skipped: not a regular file',
  ]);
  // Uploads and the warning lines happen before complete.
  assert.equal(t.calls.at(-1), 'complete');
  assert.ok(t.calls.indexOf('putArtifact:report.txt') < t.calls.indexOf('complete'));
});

test('a failed upload is a warning, not a failure', async () => {
  const t = new MemoryTransport(makeSpec({ command: ['bash', '-c', 'echo x > "$SVC_ARTIFACTS_DIR/a.txt"'] }));
  t.putArtifact = async () => {
    throw new Error('store down');
  };
  const c = await runTask({ transport: t, workRoot: await root() });
  assert.equal(c.state, 'SUCCESS');
  assert.deepEqual(t.text('stderr'), ['[svc] artifact a.txt upload failed: store down']);
});
