// runTask with real child processes: exit codes, log lines, completion, cleanup.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runTask } from '../src/index.js';
import { listDir, makeSpec, MemoryTransport, scratchRoots } from '../src/testing/index.js';

const root = scratchRoots();

test('exit 0 is SUCCESS; complete is called once, last; the run directory is removed', async () => {
  const workRoot = await root();
  const t = new MemoryTransport(makeSpec({ command: ['bash', '-c', 'echo hello'] }));
  const c = await runTask({ transport: t, workRoot });
  assert.deepEqual(c, { state: 'SUCCESS', reason: '', error: '', exit_code: 0, outputs: {}, metrics: [] });
  assert.deepEqual(t.completions, [c]);
  assert.equal(t.calls.filter((x) => x === 'complete').length, 1);
  assert.equal(t.calls.at(-1), 'complete');
  assert.deepEqual(t.text(), ['hello']);
  assert.deepEqual(await listDir(workRoot), []);
});

test('a non-zero exit is FAILED exit_code with the last stderr line in the error', async () => {
  const t = new MemoryTransport(makeSpec({ command: ['bash', '-c', 'echo first >&2; echo "disk full" >&2; echo out; exit 3'] }));
  const c = await runTask({ transport: t, workRoot: await root() });
  assert.equal(c.state, 'FAILED');
  assert.equal(c.reason, 'exit_code');
  assert.equal(c.exit_code, 3);
  assert.equal(c.error, 'exit code 3: disk full');
});

test('the quoted stderr line is cut to 500 characters', async () => {
  const t = new MemoryTransport(makeSpec({ command: ['bash', '-c', 'printf "%0.sx" {1..2000} >&2; exit 1'] }));
  const c = await runTask({ transport: t, workRoot: await root() });
  assert.equal(c.error, `exit code 1: ${'x'.repeat(500)}`);
});

test('stdout and stderr lines arrive in order, numbered without gaps, ts increasing', async () => {
  const script = 'for i in $(seq 1 30); do echo "out $i"; echo "err $i" >&2; sleep 0.002; done; printf "no newline"';
  const t = new MemoryTransport(makeSpec({ command: ['bash', '-c', script] }));
  const c = await runTask({ transport: t, workRoot: await root(), logBatchLines: 7 });
  assert.equal(c.state, 'SUCCESS');
  const lines = t.lines;
  assert.deepEqual(
    lines.map((l) => l.n),
    Array.from({ length: 61 }, (_, i) => i + 1),
  );
  assert.deepEqual(t.text('stdout'), [...Array.from({ length: 30 }, (_, i) => `out ${i + 1}`), 'no newline']);
  assert.deepEqual(
    t.text('stderr'),
    Array.from({ length: 30 }, (_, i) => `err ${i + 1}`),
  );
  // Lines are numbered in arrival order. Between two pipes the OS gives no
  // order (a loaded machine may deliver "err i" before "out i"), so only each
  // stream's own order is asserted above.
  for (let i = 1; i < lines.length; i++) assert.ok(BigInt(lines[i]!.ts) > BigInt(lines[i - 1]!.ts));
  const nowNs = BigInt(Date.now()) * 1_000_000n;
  assert.ok(nowNs - BigInt(lines[0]!.ts) < 60_000_000_000n, 'ts is nanoseconds since the epoch');
  assert.ok(t.posts.every((p) => p.length <= 7));
  assert.equal(t.maxPostsInFlight, 1);
});

test('many lines against a slow service: never two postLogs at once, nothing lost', async () => {
  const t = new MemoryTransport(makeSpec({ command: ['bash', '-c', 'seq 1 5000'] }));
  t.postDelayMs = 5;
  const c = await runTask({ transport: t, workRoot: await root(), logBatchLines: 100 });
  assert.equal(c.state, 'SUCCESS');
  assert.deepEqual(
    t.text(),
    Array.from({ length: 5000 }, (_, i) => String(i + 1)),
  );
  assert.deepEqual(
    t.lines.map((l) => l.n),
    Array.from({ length: 5000 }, (_, i) => i + 1),
  );
  assert.equal(t.maxPostsInFlight, 1);
  assert.ok(t.posts.every((p) => p.length <= 100));
});

test('a missing command is FAILED executor_error "command not found: X"; complete still called once', async () => {
  const workRoot = await root();
  const t = new MemoryTransport(makeSpec({ command: ['no-such-tool-xyz', '--flag'] }));
  const c = await runTask({ transport: t, workRoot });
  assert.deepEqual(c, { state: 'FAILED', reason: 'executor_error', error: 'command not found: no-such-tool-xyz', exit_code: null, outputs: {}, metrics: [] });
  assert.deepEqual(t.completions, [c]);
  assert.deepEqual(await listDir(workRoot), []);
});

test('a file that is not executable is FAILED executor_error', async () => {
  const t = new MemoryTransport(makeSpec({ command: ['./data.txt'], files: { 'data.txt': 'plain' } }));
  const c = await runTask({ transport: t, workRoot: await root() });
  assert.equal(c.reason, 'executor_error');
  assert.equal(c.error, 'command not executable: ./data.txt');
});

test('a failing getSpec still ends in exactly one complete (FAILED executor_error)', async () => {
  const t = new MemoryTransport(async () => {
    throw new Error('service unreachable');
  });
  const c = await runTask({ transport: t, workRoot: await root() });
  assert.equal(c.state, 'FAILED');
  assert.equal(c.reason, 'executor_error');
  assert.match(c.error, /service unreachable/);
  assert.equal(t.completions.length, 1);
});

test('a malformed spec is an executor_error, not a crash', async () => {
  const t = new MemoryTransport(makeSpec({ command: 'echo hi' as unknown as string[] }));
  const c = await runTask({ transport: t, workRoot: await root() });
  assert.equal(c.reason, 'executor_error');
  assert.match(c.error, /invalid runner spec: bad command/);
});

test('keepWorkdir leaves the run directory, named after the task run', async () => {
  const workRoot = await root();
  const spec = makeSpec({ command: ['true'], task_run_id: 'tr-keep' });
  await runTask({ transport: new MemoryTransport(spec), workRoot, keepWorkdir: true });
  const left = await listDir(workRoot);
  assert.equal(left.length, 1);
  assert.match(left[0]!, /^tr-keep-/);
});

test('a task killed by a signal reports 128 + signal number', async () => {
  const t = new MemoryTransport(makeSpec({ command: ['bash', '-c', 'kill -KILL $$'] }));
  const c = await runTask({ transport: t, workRoot: await root() });
  assert.equal(c.state, 'FAILED');
  assert.equal(c.exit_code, 137);
  assert.match(c.error, /^exit code 137 \(killed by SIGKILL\)/);
});
