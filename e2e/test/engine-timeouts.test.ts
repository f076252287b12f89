// Both timeouts with real processes: a task timeout ends the task run
// TIMED_OUT reason timeout (its process group killed); a flow timeout, seen by
// the maintenance lease holder, ends the execution TIMED_OUT and stops what
// still runs; a task run with no runner report 60 s after its timeout is ended
// TIMED_OUT reason timeout by the engine.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startStack, type Stack } from './stack.js';
import { alive, flow, ms, pidFrom, run, sh, tmpDir, until } from './engine-support.js';

let s: Stack;
const NS = 'tmo';
const dir = tmpDir();

before(async () => {
  s = await startStack();
  await s.saveFlow(NS, {
    'task.flow.yaml': flow({
      id: 'task',
      inputs: [{ id: 'pidfile', type: 'string' }],
      tasks: [
        // The child sleep is in the task's process group and must die with it.
        { id: 'slow', type: 'command', timeout: '1s', command: sh('sleep 300 & echo $! > "{{ inputs.pidfile }}"; wait') },
        { id: 'next', type: 'command', depends_on: ['slow'], command: ['true'] },
      ],
    }),
    'whole.flow.yaml': flow({
      id: 'whole',
      timeout: '1s',
      inputs: [{ id: 'pidfile', type: 'string' }],
      tasks: [
        { id: 'quick', type: 'command', command: ['true'] },
        { id: 'long', type: 'command', depends_on: ['quick'], command: sh('sleep 300 & echo $! > "{{ inputs.pidfile }}"; wait') },
        { id: 'never', type: 'command', depends_on: ['long'], command: ['true'] },
      ],
    }),
    'silent.flow.yaml': flow({
      id: 'silent',
      inputs: [{ id: 'pidfile', type: 'string' }],
      tasks: [{ id: 'hangs', type: 'command', timeout: '1h', command: sh('sleep 300 & echo $! > "{{ inputs.pidfile }}"; wait') }],
    }),
  });
});
after(() => s.stop());

test('a task past its timeout ends TIMED_OUT reason timeout, its processes killed, and its execution fails', async () => {
  const pidfile = path.join(dir, 'task.pid');
  const e = await s.trigger(NS, 'task', { inputs: { pidfile } });
  const child = await pidFrom(pidfile);
  const done = await s.waitEnded(e.id);
  const slow = run(done, 'slow');
  assert.equal(slow.state, 'TIMED_OUT');
  assert.equal(slow.reason, 'timeout');
  assert.ok(slow.duration_ms >= 900 && slow.duration_ms < 5000, `ran ${slow.duration_ms} ms with a 1s timeout`);
  assert.equal(done.state, 'FAILED');
  assert.match(done.reason, /slow/);
  assert.equal(done.error, slow.error);
  // The dependent task never ran.
  assert.equal(run(done, 'next').state, 'SKIPPED');
  assert.equal(run(done, 'next').reason, 'condition_not_met');
  await until('the timed-out task process group to be gone', () => !alive(child), 5000);
});

test('a flow past its timeout ends TIMED_OUT: the running task is stopped and the unstarted ones are cancelled', async () => {
  const pidfile = path.join(dir, 'whole.pid');
  const e = await s.trigger(NS, 'whole', { inputs: { pidfile } });
  const child = await pidFrom(pidfile);
  const done = await s.waitEnded(e.id);
  assert.equal(done.state, 'TIMED_OUT', JSON.stringify(done));
  const took = ms(done.ended_at) - ms(done.started_at);
  assert.ok(took >= 1000 && took < 6000, `the execution ended ${took} ms after it started, with a 1s flow timeout`);
  assert.equal(run(done, 'quick').state, 'SUCCESS');
  assert.equal(run(done, 'never').state, 'CANCELLED');
  assert.equal(run(done, 'never').reason, 'execution_timed_out');
  // The task that was running is stopped: it ends, and its processes go.
  await until(
    'the running task of the timed-out execution to end',
    async () => {
      const now = (await s.api('GET', `/api/v1/executions/${e.id}`)).body;
      return !['PENDING', 'QUEUED', 'RUNNING'].includes(run(now, 'long').state);
    },
    10_000,
  );
  await until('the running task process group to be gone', () => !alive(child), 5000);
  const later = (await s.api('GET', `/api/v1/executions/${e.id}`)).body;
  assert.equal(later.state, 'TIMED_OUT', 'the execution stays TIMED_OUT once its running task is stopped');
  assert.notEqual(run(later, 'long').state, 'SUCCESS');
});

test('a task run with no runner report 60 s after its timeout is ended TIMED_OUT reason timeout by the maintenance holder', async () => {
  const pidfile = path.join(dir, 'silent.pid');
  const e = await s.trigger(NS, 'silent', { inputs: { pidfile } });
  const child = await pidFrom(pidfile);
  const running = await s.waitFor(e.id, (x) => run(x, 'hangs').state === 'RUNNING');
  // Instead of waiting for a real timeout plus 60 s of silence, move this run's
  // timeout two minutes into the past: to the engine this is exactly a runner
  // that has not reported for 60 s after the task timeout.
  await s.db.query(`UPDATE task_runs SET timeout_at = now() - interval '2 minutes' WHERE id = $1`, [run(running, 'hangs').id]);
  const done = await s.waitEnded(e.id);
  const hangs = run(done, 'hangs');
  assert.equal(hangs.state, 'TIMED_OUT');
  assert.equal(hangs.reason, 'timeout');
  assert.equal(done.state, 'FAILED');
  // The dispatcher notices its run was ended and stops the process.
  await until('the silent task process group to be gone', () => !alive(child), 10_000);
});
