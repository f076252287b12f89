// Templates and secrets at dispatch, with real processes: outputs flow from
// one task to the next and into the execution's outputs; a template that does
// not resolve fails the task run `template_error`, an unknown secret
// `secret_not_found`; secrets resolve from the namespace, its parents and the
// global scope, are listed in secret_keys_used and are masked in the logs.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startStack, type Stack } from './stack.js';
import { emit, flow, run, sh } from './engine-support.js';

let s: Stack;
const NS = 'tpl';
const CHILD = 'tpl.team';
const OWN = 'own-Secret-value-7731';
const PARENT = 'parent-Secret-value-5512';
const GLOBAL = 'global-Secret-value-9090';

before(async () => {
  s = await startStack();
  await s.saveFlow(NS, {
    'pass.flow.yaml': flow({
      id: 'pass',
      inputs: [{ id: 'who', type: 'string', default: 'world' }],
      tasks: [
        { id: 'produce', type: 'command', command: sh(`${emit({ n: 42, word: 'hello', nested: { list: [1, 2] } })}; echo produced`) },
        {
          id: 'consume',
          type: 'command',
          depends_on: ['produce'],
          env: { GOT: '{{ tasks.produce.outputs.word }} {{ inputs.who }} {{ tasks.produce.outputs.n }} {{ tasks.produce.outputs.nested.list[1] }} {{ tasks.produce.state }}' },
          command: sh(`printf '{"outputs": {"got": "%s"}}\\n' "$GOT" >> "$SVC_OUTPUTS"`),
        },
      ],
      outputs: { final: '{{ tasks.consume.outputs.got }}', count: '{{ tasks.produce.outputs.n }}' },
    }),
    'badtemplate.flow.yaml': flow({
      id: 'badtemplate',
      inputs: [{ id: 'cfg', type: 'json', default: {} }],
      tasks: [
        { id: 'broken', type: 'command', env: { X: '{{ inputs.cfg.missing_key }}' }, command: ['true'] },
        { id: 'downstream', type: 'command', depends_on: ['broken'], command: ['true'] },
      ],
    }),
    'badoutputs.flow.yaml': flow({
      id: 'badoutputs',
      tasks: [{ id: 'a', type: 'command', command: sh(emit({ present: 1 })) }],
      outputs: { missing: '{{ tasks.a.outputs.absent }}' },
    }),
    'nosecret.flow.yaml': flow({
      id: 'nosecret',
      tasks: [{ id: 'needs', type: 'command', env: { S: "{{ secret('NOT_SET_ANYWHERE') }}" }, command: ['true'] }],
    }),
  });
  await s.saveFlow(CHILD, {
    'secrets.flow.yaml': flow({
      id: 'secrets',
      tasks: [
        {
          id: 'uses',
          type: 'command',
          env: { OWN: "{{ secret('DB_PASS') }}", UP: "{{ secret('PARENT_TOKEN') }}", GL: "{{ secret('GLOBAL_KEY') }}" },
          command: sh('echo "own=$OWN"; echo "parent=$UP" >&2; echo "global $GL and again $GL"; echo "plain line"'),
        },
        { id: 'quiet', type: 'command', command: ['echo', 'nothing secret'] },
      ],
    }),
  });
  for (const [ns, key, value] of [
    [CHILD, 'DB_PASS', OWN],
    [NS, 'PARENT_TOKEN', PARENT],
  ] as const) {
    const r = await s.api('PUT', `/api/v1/namespaces/${ns}/secrets/${key}`, { value });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  }
  const g = await s.api('PUT', '/api/v1/secrets/GLOBAL_KEY', { value: GLOBAL });
  assert.equal(g.status, 200, JSON.stringify(g.body));
});
after(() => s.stop());

test('outputs of a task reach the templates of the tasks after it and the execution outputs', async () => {
  const e = await s.trigger(NS, 'pass', { inputs: { who: 'svc' } });
  const done = await s.waitEnded(e.id);
  assert.equal(done.state, 'SUCCESS', JSON.stringify(done));
  assert.deepEqual(run(done, 'produce').outputs, { n: 42, word: 'hello', nested: { list: [1, 2] } });
  assert.deepEqual(run(done, 'consume').outputs, { got: 'hello svc 42 2 SUCCESS' });
  assert.deepEqual(done.outputs, { final: 'hello svc 42 2 SUCCESS', count: '42' });
});

test('a template that does not resolve fails the task run with reason template_error naming the expression', async () => {
  const e = await s.trigger(NS, 'badtemplate');
  const done = await s.waitEnded(e.id);
  const broken = run(done, 'broken');
  assert.equal(broken.state, 'FAILED');
  assert.equal(broken.reason, 'template_error');
  assert.match(broken.error, /inputs\.cfg\.missing_key/);
  assert.equal(broken.exit_code, null, 'no process was started');
  assert.equal(run(done, 'downstream').state, 'SKIPPED');
  assert.equal(done.state, 'FAILED');
  assert.equal(done.error, broken.error);
});

test('flow outputs that do not resolve fail the execution with reason template_error', async () => {
  const done = await s.waitEnded((await s.trigger(NS, 'badoutputs')).id);
  assert.equal(run(done, 'a').state, 'SUCCESS');
  assert.equal(done.state, 'FAILED');
  assert.equal(done.reason, 'template_error');
  assert.match(done.error, /tasks\.a\.outputs\.absent/);
  assert.equal(done.outputs, null);
});

test('a secret set in no scope fails the task run with reason secret_not_found', async () => {
  const e = await s.trigger(NS, 'nosecret');
  const done = await s.waitEnded(e.id);
  const needs = run(done, 'needs');
  assert.equal(needs.state, 'FAILED');
  assert.equal(needs.reason, 'secret_not_found');
  assert.match(needs.error, /NOT_SET_ANYWHERE/);
  assert.equal(done.state, 'FAILED');
});

test('secrets resolve from the namespace, its parent and the global scope, are recorded in secret_keys_used and masked in the logs', async () => {
  const e = await s.trigger(CHILD, 'secrets');
  const done = await s.waitEnded(e.id);
  assert.equal(done.state, 'SUCCESS', JSON.stringify(done));
  assert.deepEqual([...done.secret_keys_used].sort(), ['DB_PASS', 'GLOBAL_KEY', 'PARENT_TOKEN']);

  const lines = (await s.db.query(`SELECT task_key, n, stream, text FROM log_lines WHERE execution_id = $1 ORDER BY task_key, n`, [e.id])).rows;
  const uses = lines.filter((l) => l.task_key === 'uses');
  assert.deepEqual(
    uses.map((l) => l.n),
    [1, 2, 3, 4],
    'sequence numbers 1..n without gaps',
  );
  const text = (stream: string) => uses.filter((l) => l.stream === stream).map((l) => l.text);
  assert.deepEqual(text('stdout'), ['own=***', 'global *** and again ***', 'plain line']);
  assert.deepEqual(text('stderr'), ['parent=***']);
  // No stored line, of any task, holds a secret value.
  const all = (await s.db.query(`SELECT text FROM log_lines WHERE execution_id = $1`, [e.id])).rows.map((r) => r.text).join('\n');
  for (const v of [OWN, PARENT, GLOBAL]) assert.ok(!all.includes(v), `a log line holds the secret value ${v}`);
  assert.deepEqual(
    lines.filter((l) => l.task_key === 'quiet').map((l) => l.text),
    ['nothing secret'],
  );

  // The values are never stored with the execution either.
  const row = JSON.stringify((await s.db.query(`SELECT * FROM executions WHERE id = $1`, [e.id])).rows[0]);
  const runs = JSON.stringify((await s.db.query(`SELECT * FROM task_runs WHERE execution_id = $1`, [e.id])).rows);
  for (const v of [OWN, PARENT, GLOBAL]) assert.ok(!row.includes(v) && !runs.includes(v), `the secret value ${v} is stored`);
});

test('flow outputs see vars: the flow variables and the namespace.yaml ones', async () => {
  await s.saveFlow('tplvars', {
    'namespace.yaml': 'variables:\n  place: world\n',
    'vars.flow.yaml': flow({
      id: 'vars',
      variables: { greeting: 'hello' },
      tasks: [{ id: 't', type: 'command', command: ['true'] }],
      outputs: { msg: '{{ vars.greeting }} {{ vars.place }}' },
    }),
  });
  const e = await s.trigger('tplvars', 'vars');
  const done = await s.waitEnded(e.id);
  assert.equal(done.state, 'SUCCESS', JSON.stringify(done));
  assert.deepEqual(done.outputs, { msg: 'hello world' });
});
