// run_if as an expression (a CEL condition inside `{{ }}`) on a real stack:
// decided once the task's dependencies succeeded, over the execution's inputs
// and its upstream tasks' outputs and states; false skips the task
// (condition_not_met, with the condition in its error), an error fails it
// (condition_error, never retried), a condition on a task without
// dependencies is decided at start, and a broken one is refused at save with
// its field and place.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startStack, type Stack } from './stack.js';
import { emit, flow, run, runsOf, sh } from './engine-support.js';

let s: Stack;
const NS = 'cond';

before(async () => {
  s = await startStack({});
  await s.saveFlow(NS, {
    'load.flow.yaml': flow({
      id: 'load',
      inputs: [{ id: 'env', type: 'string', default: 'dev' }],
      tasks: [
        { id: 'check', type: 'command', command: sh(emit({ rows: 3, table: 'orders' })) },
        { id: 'load', type: 'command', depends_on: ['check'], run_if: "{{ inputs.env == 'prod' && tasks.check.outputs.rows > 0 }}", command: ['true'] },
        { id: 'report', type: 'command', depends_on: ['load'], command: ['true'] },
        { id: 'audit', type: 'command', depends_on: ['check'], run_if: "{{ tasks.check.outputs.table.startsWith('ord') }}", command: ['true'] },
      ],
    }),
    'broken.flow.yaml': flow({
      id: 'broken',
      tasks: [
        { id: 'check', type: 'command', command: sh(emit({ rows: 3 })) },
        { id: 'load', type: 'command', depends_on: ['check'], retry: { max_attempts: 3, initial: '10ms' }, run_if: '{{ tasks.check.outputs.missing > 0 }}', command: ['true'] },
      ],
    }),
    'first.flow.yaml': flow({
      id: 'first',
      inputs: [{ id: 'go', type: 'boolean', default: false }],
      tasks: [
        { id: 'only', type: 'command', run_if: '{{ inputs.go }}', command: ['true'] },
        { id: 'next', type: 'command', depends_on: ['only'], command: ['true'] },
      ],
    }),
  });
});
after(() => s?.stop());

test('true runs the task and its dependents; false skips it with the condition in its error, and success dependents skip too', async () => {
  const prod = await s.waitEnded((await s.trigger(NS, 'load', { inputs: { env: 'prod' } })).id);
  assert.equal(prod.state, 'SUCCESS');
  for (const k of ['check', 'load', 'report', 'audit']) assert.equal(run(prod, k).state, 'SUCCESS', k);

  const dev = await s.waitEnded((await s.trigger(NS, 'load', { inputs: { env: 'dev' } })).id);
  assert.equal(dev.state, 'SUCCESS', 'a false condition is not a failure');
  assert.equal(run(dev, 'load').state, 'SKIPPED');
  assert.equal(run(dev, 'load').reason, 'condition_not_met');
  assert.equal(run(dev, 'load').error, "run_if {{ inputs.env == 'prod' && tasks.check.outputs.rows > 0 }} is false");
  assert.equal(run(dev, 'load').started_at, null, 'never started');
  assert.equal(run(dev, 'report').state, 'SKIPPED');
  assert.equal(run(dev, 'report').error, '', 'a dependent skipped by success gating says nothing of a condition');
  assert.equal(run(dev, 'audit').state, 'SUCCESS', 'string functions work on outputs');
});

test('a condition that cannot be evaluated fails its task condition_error once, with no retry, and the execution says why', async () => {
  const done = await s.waitEnded((await s.trigger(NS, 'broken')).id);
  assert.equal(done.state, 'FAILED');
  const attempts = runsOf(done, 'load');
  assert.equal(attempts.length, 1, 'not retried: nothing ran');
  assert.equal(attempts[0].state, 'FAILED');
  assert.equal(attempts[0].reason, 'condition_error');
  assert.match(attempts[0].error, /^run_if \{\{ tasks\.check\.outputs\.missing > 0 \}\}: No such key: missing/);
  assert.equal(done.error, attempts[0].error);
});

test('a condition on a task without dependencies is decided at start', async () => {
  const no = await s.waitEnded((await s.trigger(NS, 'first')).id);
  assert.equal(no.state, 'SUCCESS');
  assert.equal(run(no, 'only').state, 'SKIPPED');
  assert.equal(run(no, 'next').state, 'SKIPPED');
  const yes = await s.waitEnded((await s.trigger(NS, 'first', { inputs: { go: true } })).id);
  assert.equal(run(yes, 'only').state, 'SUCCESS');
  assert.equal(run(yes, 'next').state, 'SUCCESS');
});

test('a save with a broken condition is refused 422 naming the field and the place, and changes nothing', async () => {
  const bad = [
    'id: bad',
    'tasks:',
    '  - id: a',
    '    type: command',
    '    command: [echo]',
    '  - id: b',
    '    type: command',
    '    command: [echo]',
    '    depends_on: [a]',
    '    run_if: "{{ tasks.a.outputs.n > }}"',
  ].join('\n');
  const r = await s.api('POST', `/api/v1/namespaces/${NS}/changes`, { message: 'bad', changes: [{ op: 'put', path: 'bad.flow.yaml', content: bad }] });
  assert.equal(r.status, 422, JSON.stringify(r.body));
  const text = JSON.stringify(r.body);
  assert.match(text, /tasks\[1\]\.run_if has an expression error at column \d+/);
  assert.match(text, /\(line 10, column \d+\)/);
  const get = await s.api('GET', `/api/v1/flows/${NS}/bad`);
  assert.equal(get.status, 404, 'nothing saved');
});
