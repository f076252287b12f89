// The process executor spawns task processes through a small helper process
// (SpawnHelper): the task must behave exactly as when spawned directly —
// output, exit code, back-pressure, the process group killed on cancel — and
// a helper that dies must not leave a task running or a run waiting forever.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { runTask, SpawnHelper } from '../src/index.js';
import { makeSpec, MemoryTransport, pidAlive, scratchRoots } from '../src/testing/index.js';

const helper = new SpawnHelper();
const root = scratchRoots();
after(() => helper.close());
async function waitFor(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('through the helper: stdout and stderr lines in order, the exit code and the last stderr line in the error', async () => {
  const script = 'for i in 1 2 3; do echo "out $i"; done; echo "err 1" >&2; echo "$SVC_TASK_ID" ; exit 3';
  const t = new MemoryTransport(makeSpec({ command: ['bash', '-c', script], env: { SVC_TASK_ID: 'via-helper' } }));
  const c = await runTask({ transport: t, workRoot: await root(), spawn: helper.spawn });
  assert.equal(c.state, 'FAILED');
  assert.equal(c.exit_code, 3);
  assert.equal(c.error, 'exit code 3: err 1');
  assert.deepEqual(t.text('stdout'), ['out 1', 'out 2', 'out 3', 'via-helper']);
  assert.deepEqual(t.text('stderr'), ['err 1']);
  assert.ok(helper.helperPid && helper.helperPid !== process.pid, 'a separate helper process spawned it');
});

test('through the helper: a large output arrives whole (50,000 lines)', async () => {
  const t = new MemoryTransport(makeSpec({ command: ['bash', '-c', 'seq 1 50000'] }));
  const c = await runTask({ transport: t, workRoot: await root(), spawn: helper.spawn, logBatchLines: 500 });
  assert.equal(c.state, 'SUCCESS');
  const lines = t.text('stdout');
  assert.equal(lines.length, 50000);
  assert.equal(lines[0], '1');
  assert.equal(lines[49999], '50000');
});

test('through the helper: cancel kills the whole process group, a child ignoring SIGTERM included', async () => {
  const workRoot = await root();
  const pidFile = path.join(workRoot, 'child.pid');
  const ac = new AbortController();
  const script = `bash -c 'trap "" TERM; while true; do sleep 0.05; done' & echo $! > ${pidFile}; echo started; wait`;
  const t = new MemoryTransport(makeSpec({ command: ['bash', '-c', script] }));
  const run = runTask({ transport: t, workRoot, signal: ac.signal, killDelayMs: 300, logBatchMs: 5, spawn: helper.spawn });
  await waitFor(() => t.text().includes('started'));
  ac.abort();
  const c = await run;
  assert.equal(c.state, 'CANCELLED');
  await waitFor(() => !pidAlive(Number(readFileSync(pidFile, 'utf8'))), 3000);
});

test('a helper that dies mid-task: the task is killed and reported, and the next task gets a new helper', async () => {
  const own = new SpawnHelper();
  try {
    const workRoot = await root();
    const pidFile = path.join(workRoot, 'task.pid');
    const t = new MemoryTransport(makeSpec({ command: ['bash', '-c', `echo $$ > ${pidFile}; echo started; sleep 30`] }));
    const run = runTask({ transport: t, workRoot, killDelayMs: 300, logBatchMs: 5, spawn: own.spawn });
    await waitFor(() => t.text().includes('started'));
    const first = own.helperPid!;
    process.kill(first, 'SIGKILL');
    const c = await run;
    assert.equal(c.state, 'FAILED');
    assert.match(c.error, /SIGKILL/);
    await waitFor(() => !pidAlive(Number(readFileSync(pidFile, 'utf8'))), 3000);
    const t2 = new MemoryTransport(makeSpec({ command: ['echo', 'again'] }));
    const c2 = await runTask({ transport: t2, workRoot, spawn: own.spawn });
    assert.equal(c2.state, 'SUCCESS');
    assert.deepEqual(t2.text('stdout'), ['again']);
    assert.notEqual(own.helperPid, first);
  } finally {
    own.close();
  }
});

test('through the helper: a leftover holding the output open does not keep a finished task running', async () => {
  const workRoot = await root();
  const pidFile = path.join(workRoot, 'bg.pid');
  const t = new MemoryTransport(makeSpec({ command: ['bash', '-c', `sleep 30 & echo $! > ${pidFile}; echo done`] }));
  const started = Date.now();
  const c = await runTask({ transport: t, workRoot, killDelayMs: 500, spawn: helper.spawn });
  assert.equal(c.state, 'SUCCESS');
  assert.ok(Date.now() - started < 3000, `took ${Date.now() - started} ms`);
  await waitFor(() => !pidAlive(Number(readFileSync(pidFile, 'utf8'))), 2000);
});
