// Triggering a flow over HTTP with real dispatcher and maintenance processes:
// the 201 Execution object with every required field of the spec, inputs
// validated and coerced (422 naming inputs.<id>, defaults applied), labels
// merged, a disabled flow refused with 409 flow_disabled.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startStack, type Stack } from './stack.js';
import { assertExecutionShape, emit, flow, run, sh } from './engine-support.js';

let s: Stack;
const NS = 'trig';

before(async () => {
  s = await startStack();
  await s.saveFlow(NS, {
    'hello.flow.yaml': flow({
      id: 'hello',
      labels: { team: 'data', env: 'dev' },
      tasks: [
        { id: 'a', type: 'command', command: sh(`echo hello; ${emit({ n: 1 })}`) },
        { id: 'b', type: 'command', depends_on: ['a'], command: ['echo', 'b'] },
      ],
    }),
    'typed.flow.yaml': flow({
      id: 'typed',
      inputs: [
        { id: 's', type: 'string' },
        { id: 'i', type: 'int' },
        { id: 'n', type: 'number' },
        { id: 'b', type: 'boolean' },
        { id: 'sel', type: 'select', values: ['red', 'green'] },
        { id: 'j', type: 'json' },
        { id: 'd', type: 'string', default: 'dflt' },
        { id: 'k', type: 'int', default: 7 },
        { id: 'req', type: 'string', required: true },
        { id: 'opt', type: 'string' },
      ],
      tasks: [
        {
          id: 'show',
          type: 'command',
          env: { SEEN: '{{ inputs.i }}|{{ inputs.b }}|{{ inputs.d }}|{{ inputs.k }}|{{ inputs.j.x }}' },
          command: sh(`printf '{"outputs": {"seen": "%s"}}\\n' "$SEEN" >> "$SVC_OUTPUTS"`),
        },
      ],
    }),
    'toggle.flow.yaml': flow({ id: 'toggle', tasks: [{ id: 'a', type: 'command', command: ['true'] }] }),
  });
});
after(() => s.stop());

test('triggerFlow answers 201 with every required field of the Execution object, with its type', async () => {
  const r = await s.api('POST', `/api/v1/flows/${NS}/hello/executions`, {});
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const e = r.body;
  assertExecutionShape(e);
  assert.equal(e.namespace, NS);
  assert.equal(e.flow_id, 'hello');
  assert.equal(typeof e.flow_revision_id, 'string');
  assert.equal(typeof e.snapshot_version, 'number');
  assert.equal(e.parent_execution_id, null);
  assert.equal(e.restart_of_id, null);
  assert.equal(e.chain_depth, 0);
  assert.deepEqual(e.children, []);
  assert.equal(e.created_by, 'e2e@example.com');
  assert.equal(e.trigger_type, 'manual');
  assert.deepEqual(e.secret_keys_used, []);
  assert.ok(['QUEUED', 'RUNNING'].includes(e.state), e.state);
  // A started execution has one task run (attempt 1) per task at once.
  assert.deepEqual(e.task_runs.map((t: any) => t.task_key).sort(), ['a', 'b']);
  assert.ok(e.task_runs.every((t: any) => t.attempt === 1));

  const done = await s.waitEnded(e.id);
  assertExecutionShape(done);
  assert.equal(done.state, 'SUCCESS');
  assert.equal(typeof done.started_at, 'string');
  assert.equal(typeof done.ended_at, 'string');
  assert.equal(typeof done.duration_ms, 'number');
  assert.ok(Date.parse(done.ended_at) >= Date.parse(done.started_at));
  for (const t of done.task_runs) {
    assert.equal(t.state, 'SUCCESS');
    assert.equal(t.executor_type, 'process');
    assert.equal(t.pool, 'default');
    assert.equal(t.exit_code, 0);
    assert.equal(typeof t.duration_ms, 'number');
    for (const f of ['queued_at', 'started_at', 'ended_at']) assert.equal(typeof t[f], 'string', f);
  }
  assert.deepEqual(run(done, 'a').outputs, { n: 1 });
  // b waited for a.
  assert.ok(Date.parse(run(done, 'b').started_at) >= Date.parse(run(done, 'a').ended_at));

  const got = await s.api('GET', `/api/v1/executions/${e.id}`);
  assert.equal(got.status, 200);
  assert.deepEqual(got.body, done);
});

test('inputs are coerced to their declared types and defaults are applied', async () => {
  const e = await s.trigger(NS, 'typed', { inputs: { s: 5, i: '42', n: '2.5', b: 'true', sel: 'green', j: '{"x": [1, 2]}', req: 'yes' } });
  assert.deepEqual(e.inputs, { s: '5', i: 42, n: 2.5, b: true, sel: 'green', j: { x: [1, 2] }, d: 'dflt', k: 7, req: 'yes' });
  const done = await s.waitEnded(e.id);
  assert.equal(done.state, 'SUCCESS', JSON.stringify(done));
  assert.deepEqual(run(done, 'show').outputs, { seen: '42|true|dflt|7|[1,2]' });

  // Native JSON values pass as they are; a given value wins over the default.
  const e2 = await s.trigger(NS, 'typed', { inputs: { i: 3, b: false, n: 1, j: { y: null }, d: 'mine', req: 'r', sel: 'red' } });
  assert.deepEqual(e2.inputs, { i: 3, b: false, n: 1, j: { y: null }, d: 'mine', k: 7, req: 'r', sel: 'red' });
  await s.waitEnded(e2.id);
});

test('invalid inputs are refused with 422 validation_failed, one detail per field named inputs.<id>, and nothing is created', async () => {
  const countBefore = (await s.api('GET', `/api/v1/executions?namespace=${NS}&flow=typed&limit=200`)).body.items.length;
  const r = await s.api('POST', `/api/v1/flows/${NS}/typed/executions`, { inputs: { i: 'abc', n: 'x', b: 'maybe', sel: 'blue', zzz: 1 } });
  assert.equal(r.status, 422, JSON.stringify(r.body));
  assert.equal(r.body.error.code, 'validation_failed');
  const fields = r.body.error.details.map((d: any) => d.field).sort();
  assert.deepEqual(fields, ['inputs.b', 'inputs.i', 'inputs.n', 'inputs.req', 'inputs.sel', 'inputs.zzz']);
  for (const d of r.body.error.details) assert.equal(typeof d.message, 'string');

  const one = await s.api('POST', `/api/v1/flows/${NS}/typed/executions`, { inputs: { i: 1.5, req: 'x' } });
  assert.equal(one.status, 422);
  assert.deepEqual(
    one.body.error.details.map((d: any) => d.field),
    ['inputs.i'],
  );

  const afterCount = (await s.api('GET', `/api/v1/executions?namespace=${NS}&flow=typed&limit=200`)).body.items.length;
  assert.equal(afterCount, countBefore, 'no execution is created for refused inputs');
});

test('a trigger body that does not match the schema is refused with 422 naming the field', async () => {
  for (const [body, field] of [
    [{ labels: { env: 1 } }, 'labels.env'],
    [{ labels: 'x' }, 'labels'],
    [{ inputs: [1] }, 'inputs'],
  ] as const) {
    const r = await s.api('POST', `/api/v1/flows/${NS}/hello/executions`, body);
    assert.equal(r.status, 422, JSON.stringify(body));
    assert.equal(r.body.error.code, 'validation_failed');
    assert.deepEqual(
      r.body.error.details.map((d: any) => d.field),
      [field],
    );
  }
  const raw = await fetch(`${s.url}/api/v1/flows/${NS}/hello/executions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
    body: '{not json',
  });
  assert.equal(raw.status, 422);
  assert.deepEqual(((await raw.json()) as { error: { details: unknown } }).error.details, [{ field: 'body', message: 'invalid JSON' }]);
});

test('labels of the flow and of the request are merged, the request winning on the same key', async () => {
  const e = await s.trigger(NS, 'hello', { labels: { env: 'prod', run: 'nightly' } });
  assert.deepEqual(e.labels, { team: 'data', env: 'prod', run: 'nightly' });
  const done = await s.waitEnded(e.id);
  assert.deepEqual(done.labels, { team: 'data', env: 'prod', run: 'nightly' });
  const plain = await s.trigger(NS, 'hello');
  assert.deepEqual(plain.labels, { team: 'data', env: 'dev' });
  await s.waitEnded(plain.id);
});

test('a disabled flow is refused with 409 flow_disabled and runs again once enabled', async () => {
  const off = await s.api('PATCH', `/api/v1/flows/${NS}/toggle`, { enabled: false });
  assert.equal(off.status, 200, JSON.stringify(off.body));
  const r = await s.api('POST', `/api/v1/flows/${NS}/toggle/executions`, {});
  assert.equal(r.status, 409, JSON.stringify(r.body));
  assert.equal(r.body.error.code, 'flow_disabled');
  const on = await s.api('PATCH', `/api/v1/flows/${NS}/toggle`, { enabled: true });
  assert.equal(on.status, 200);
  const e = await s.trigger(NS, 'toggle');
  assert.equal((await s.waitEnded(e.id)).state, 'SUCCESS');
});

test('triggering a flow that does not exist answers 404', async () => {
  const r = await s.api('POST', `/api/v1/flows/${NS}/nope/executions`, {});
  assert.equal(r.status, 404, JSON.stringify(r.body));
  const missing = await s.api('GET', '/api/v1/executions/01nonexistent0000000000000');
  assert.equal(missing.status, 404);
  assert.equal(missing.body.error.code, 'execution_not_found');
});
