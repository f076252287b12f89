// Stopping a task: timeout, cancel (AbortSignal or heartbeat), runner shutdown.
// The whole process group goes: SIGTERM, then SIGKILL after the kill delay.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { runTask } from '../src/index.js';
import { makeSpec, MemoryTransport, pidAlive, scratchRoots } from '../src/testing/index.js';

const root = scratchRoots();

async function waitFor(cond: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('sleep 30 with timeout_seconds 1 ends TIMED_OUT within a few seconds', async () => {
  const t = new MemoryTransport(makeSpec({ command: ['sleep', '30'], timeout_seconds: 1 }));
  const started = Date.now();
  const c = await runTask({ transport: t, workRoot: await root(), killDelayMs: 500 });
  const took = Date.now() - started;
  assert.equal(c.state, 'TIMED_OUT');
  assert.equal(c.reason, 'timeout');
  assert.equal(c.error, 'timed out after 1s');
  assert.equal(c.exit_code, 143, 'SIGTERM was enough');
  assert.ok(took >= 1000 && took < 4000, `took ${took} ms`);
  assert.equal(t.completions.length, 1);
});

test('a task that traps SIGTERM is SIGKILLed after the kill delay', async () => {
  const script = 'trap "echo got TERM" TERM; echo ready; while true; do sleep 0.05; done';
  const t = new MemoryTransport(makeSpec({ command: ['bash', '-c', script], timeout_seconds: 1 }));
  const started = Date.now();
  const c = await runTask({ transport: t, workRoot: await root(), killDelayMs: 500 });
  const took = Date.now() - started;
  assert.equal(c.state, 'TIMED_OUT');
  assert.equal(c.exit_code, 137, 'killed by SIGKILL');
  assert.ok(took >= 1500 && took < 5000, `took ${took} ms`);
  assert.ok(t.text().includes('got TERM'), 'the task saw SIGTERM first');
});

test('the whole process group is killed: a child of the task is gone too', async () => {
  const workRoot = await root();
  const pidFile = path.join(workRoot, 'child.pid');
  // The child ignores SIGTERM and is not waited for by its parent: only a group SIGKILL ends it.
  const script = `bash -c 'trap "" TERM; while true; do sleep 0.05; done' & echo $! > ${pidFile}; wait`;
  const t = new MemoryTransport(makeSpec({ command: ['bash', '-c', script], timeout_seconds: 1 }));
  const c = await runTask({ transport: t, workRoot, killDelayMs: 300 });
  assert.equal(c.state, 'TIMED_OUT');
  const childPid = Number(await fs.readFile(pidFile, 'utf8'));
  assert.ok(childPid > 0);
  await waitFor(() => !pidAlive(childPid), 2000);
});

test('a leftover background process does not keep a finished task running', async () => {
  const workRoot = await root();
  const pidFile = path.join(workRoot, 'bg.pid');
  const t = new MemoryTransport(makeSpec({ command: ['bash', '-c', `sleep 30 & echo $! > ${pidFile}; echo done`] }));
  const started = Date.now();
  const c = await runTask({ transport: t, workRoot, killDelayMs: 500 });
  assert.equal(c.state, 'SUCCESS');
  assert.ok(Date.now() - started < 10_000);
  await waitFor(() => !pidAlive(Number(readFileSync(pidFile, 'utf8'))), 10_000);
});

test('cancel through the AbortSignal ends CANCELLED', async () => {
  const ac = new AbortController();
  const t = new MemoryTransport(makeSpec({ command: ['bash', '-c', 'echo started; sleep 30'] }));
  const run = runTask({ transport: t, workRoot: await root(), signal: ac.signal, killDelayMs: 500, logBatchMs: 5 });
  await waitFor(() => t.text().includes('started'));
  const cancelledAt = Date.now();
  ac.abort();
  const c = await run;
  assert.equal(c.state, 'CANCELLED');
  assert.equal(c.reason, 'cancelled');
  assert.ok(Date.now() - cancelledAt < 5000, 'ended well before the 30 s sleep');
  assert.equal(t.completions.length, 1);
});

test('an AbortSignal already aborted ends CANCELLED without starting the task', async () => {
  const ac = new AbortController();
  ac.abort();
  const t = new MemoryTransport(makeSpec({ command: ['bash', '-c', 'echo should not run'] }));
  const c = await runTask({ transport: t, workRoot: await root(), signal: ac.signal });
  assert.equal(c.state, 'CANCELLED');
  assert.equal(c.exit_code, null);
  assert.deepEqual(t.text(), []);
});

test('cancel through a heartbeat answer ends CANCELLED', async () => {
  const t = new MemoryTransport(makeSpec({ command: ['sleep', '30'] }));
  t.cancelAtHeartbeat = 3;
  const started = Date.now();
  const c = await runTask({ transport: t, workRoot: await root(), heartbeatMs: 100, killDelayMs: 500 });
  assert.equal(c.state, 'CANCELLED');
  assert.equal(c.reason, 'cancelled');
  assert.ok(t.heartbeats >= 3);
  assert.ok(Date.now() - started < 10_000);
});

test('heartbeats are sent while the task runs and stop afterwards', async () => {
  const t = new MemoryTransport(makeSpec({ command: ['sleep', '0.5'] }));
  await runTask({ transport: t, workRoot: await root(), heartbeatMs: 50 });
  const seen = t.heartbeats;
  assert.ok(seen >= 5, `heartbeats: ${seen}`);
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(t.heartbeats, seen);
});

test('a runner shutdown ends FAILED instance_shutdown', async () => {
  const ac = new AbortController();
  const t = new MemoryTransport(makeSpec({ command: ['bash', '-c', 'echo started; sleep 30'] }));
  const run = runTask({ transport: t, workRoot: await root(), shutdownSignal: ac.signal, killDelayMs: 500, logBatchMs: 5 });
  await waitFor(() => t.text().includes('started'));
  ac.abort();
  const c = await run;
  assert.equal(c.state, 'FAILED');
  assert.equal(c.reason, 'instance_shutdown');
});
