// Task gating with real processes: run_if success/failure/always (a task
// whose condition is not met ends SKIPPED reason condition_not_met), how the
// execution ends when a failure handler succeeds, and max_parallel bounding
// the task runs at once, queued in the flow's task order.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startStack, type Stack } from './stack.js';
import { flow, maxOverlap, ms, run, sh } from './engine-support.js';

let s: Stack;
const NS = 'gate';

const handlers = (first: Record<string, unknown>) => [
  first,
  { id: 'on_failure', type: 'command', depends_on: ['first'], run_if: 'failure', command: ['true'] },
  { id: 'always', type: 'command', depends_on: ['first'], run_if: 'always', command: ['true'] },
  { id: 'on_success', type: 'command', depends_on: ['first'], command: ['true'] },
  { id: 'after_success', type: 'command', depends_on: ['on_success'], run_if: 'success', command: ['true'] },
  { id: 'second_failure', type: 'command', depends_on: ['on_failure'], command: sh('echo second >&2; exit 5') },
];

before(async () => {
  s = await startStack({ env: { SVC_WORKER_SLOTS: '16' } });
  const sleeper = (id: string) => ({ id, type: 'command', command: ['sleep', '0.6'] });
  await s.saveFlow(NS, {
    'fails.flow.yaml': flow({ id: 'fails', tasks: handlers({ id: 'first', type: 'command', command: sh('echo first broke >&2; exit 4') }) }),
    'succeeds.flow.yaml': flow({
      id: 'succeeds',
      tasks: [{ id: 'first', type: 'command', command: ['true'] }, ...handlers({ id: 'x', type: 'command', command: ['true'] }).slice(1, 4)],
    }),
    'times.flow.yaml': flow({
      id: 'times',
      tasks: [
        { id: 'first', type: 'command', timeout: '1s', command: ['sleep', '30'] },
        { id: 'on_failure', type: 'command', depends_on: ['first'], run_if: 'failure', command: ['true'] },
      ],
    }),
    'narrow.flow.yaml': flow({ id: 'narrow', max_parallel: 2, tasks: ['t1', 't2', 't3', 't4', 't5'].map(sleeper) }),
    'wide.flow.yaml': flow({ id: 'wide', tasks: ['t1', 't2', 't3', 't4'].map(sleeper) }),
  });
});
after(() => s.stop());

test('when a task fails: failure and always handlers run, success dependents are SKIPPED, and the execution still FAILS with the first error', async () => {
  const e = await s.trigger(NS, 'fails');
  const done = await s.waitEnded(e.id);
  assert.equal(run(done, 'first').state, 'FAILED');
  assert.equal(run(done, 'on_failure').state, 'SUCCESS');
  assert.equal(run(done, 'always').state, 'SUCCESS');
  for (const k of ['on_success', 'after_success']) {
    assert.equal(run(done, k).state, 'SKIPPED', k);
    assert.equal(run(done, k).reason, 'condition_not_met', k);
    assert.equal(run(done, k).started_at, null, `${k} never started`);
  }
  assert.equal(run(done, 'second_failure').state, 'FAILED');
  // Handlers start only after the failure.
  assert.ok(ms(run(done, 'on_failure').started_at) >= ms(run(done, 'first').ended_at));
  assert.equal(done.state, 'FAILED', 'a successful failure handler does not make the execution succeed');
  // The first failing task in task list order names the error.
  assert.equal(done.error, 'exit code 4: first broke');
  assert.match(done.reason, /first/);
});

test('when the task succeeds: the failure handler is SKIPPED condition_not_met, always and success dependents run', async () => {
  const e = await s.trigger(NS, 'succeeds');
  const done = await s.waitEnded(e.id);
  assert.equal(done.state, 'SUCCESS');
  assert.equal(run(done, 'on_failure').state, 'SKIPPED');
  assert.equal(run(done, 'on_failure').reason, 'condition_not_met');
  assert.equal(run(done, 'always').state, 'SUCCESS');
  assert.equal(run(done, 'on_success').state, 'SUCCESS');
});

test('a TIMED_OUT dependency counts as a failure for run_if failure', async () => {
  const e = await s.trigger(NS, 'times');
  const done = await s.waitEnded(e.id);
  assert.equal(run(done, 'first').state, 'TIMED_OUT');
  assert.equal(run(done, 'on_failure').state, 'SUCCESS');
  assert.equal(done.state, 'FAILED');
});

test('max_parallel bounds the task runs at once and queues them in task order', async () => {
  const e = await s.trigger(NS, 'narrow');
  const done = await s.waitEnded(e.id);
  assert.equal(done.state, 'SUCCESS');
  const runs = ['t1', 't2', 't3', 't4', 't5'].map((k) => run(done, k));
  assert.equal(maxOverlap(runs.map((r) => [ms(r.started_at), ms(r.ended_at)])), 2);
  const queued = runs.map((r) => ms(r.queued_at));
  assert.deepEqual(
    queued,
    [...queued].sort((a, b) => a - b),
    'queued in the order of the task list',
  );
  assert.ok(ms(runs[2].queued_at) >= Math.min(ms(runs[0].ended_at), ms(runs[1].ended_at)), 't3 queued only once a place freed');
});

test('max_parallel 0 (the default) runs independent tasks all at once', async () => {
  const e = await s.trigger(NS, 'wide');
  const done = await s.waitEnded(e.id);
  assert.equal(done.state, 'SUCCESS');
  const runs = ['t1', 't2', 't3', 't4'].map((k) => run(done, k));
  assert.equal(maxOverlap(runs.map((r) => [ms(r.started_at), ms(r.ended_at)])), 4);
});
