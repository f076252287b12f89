// Subflow tasks over HTTP with real processes: wait true (the parent task
// ends with the child and carries its outputs), wait false (the parent task
// succeeds once the child started), children listed on the parent with
// parent_execution_id and chain_depth, a child's failure failing the parent,
// a cancelled parent cancelling the child it waits for, and a flow that calls
// itself stopped by the depth limit.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startStack, type Stack } from './stack.js';
import { flow, ms, run, sh } from './engine-support.js';

let s: Stack;
const NS = 'sub';

before(async () => {
  s = await startStack({ env: { SVC_WORKER_SLOTS: '16' } });
  await s.saveFlow('sub.lib', {
    'child.flow.yaml': flow({
      id: 'child',
      inputs: [
        { id: 'x', type: 'string' },
        { id: 'pause', type: 'number', default: 0 },
        { id: 'fail', type: 'boolean', default: false },
      ],
      tasks: [
        {
          id: 'work',
          type: 'command',
          env: { X: '{{ inputs.x }}', FAIL: '{{ inputs.fail }}' },
          command: sh('sleep {{ inputs.pause }}; [ "$FAIL" = true ] && { echo "child broke" >&2; exit 9; }; printf \'{"outputs": {"y": "%s-done"}}\\n\' "$X" >> "$SVC_OUTPUTS"'),
        },
      ],
      outputs: { y: '{{ tasks.work.outputs.y }}' },
    }),
  });
  await s.saveFlow(NS, {
    'waits.flow.yaml': flow({
      id: 'waits',
      inputs: [
        { id: 'v', type: 'string', default: 'abc' },
        { id: 'pause', type: 'number', default: 0.5 },
        { id: 'fail', type: 'boolean', default: false },
      ],
      tasks: [
        { id: 'call', type: 'subflow', flow: 'sub.lib/child', inputs: { x: '{{ inputs.v }}', pause: '{{ inputs.pause }}', fail: '{{ inputs.fail }}' } },
        {
          id: 'use',
          type: 'command',
          depends_on: ['call'],
          env: { Y: '{{ tasks.call.outputs.outputs.y }}' },
          command: sh('printf \'{"outputs": {"seen": "%s"}}\\n\' "$Y" >> "$SVC_OUTPUTS"'),
        },
      ],
    }),
    'fire.flow.yaml': flow({
      id: 'fire',
      tasks: [{ id: 'spawn', type: 'subflow', flow: 'sub.lib/child', wait: false, inputs: { x: 'bg', pause: '2' } }],
    }),
    'rec.flow.yaml': flow({ id: 'rec', tasks: [{ id: 'again', type: 'subflow', flow: 'sub/rec' }] }),
  });
});
after(() => s.stop());

const get = async (id: string) => (await s.api('GET', `/api/v1/executions/${id}`)).body;

test('a subflow task with wait true ends with its child and carries the child outputs; the child is listed on the parent', async () => {
  const e = await s.trigger(NS, 'waits', { inputs: { v: 'abc' } });
  const done = await s.waitEnded(e.id);
  assert.equal(done.state, 'SUCCESS', JSON.stringify(done));
  const call = run(done, 'call');
  assert.equal(call.executor_type, 'inline');
  assert.equal(call.state, 'SUCCESS');
  assert.equal(typeof call.child_execution_id, 'string');
  assert.equal(done.children.length, 1);
  assert.equal(done.children[0].id, call.child_execution_id);
  assert.equal(done.children[0].state, 'SUCCESS');
  assert.equal(typeof done.children[0].created_at, 'string');

  const child = await get(call.child_execution_id);
  assert.equal(child.parent_execution_id, e.id);
  assert.equal(child.chain_depth, 1);
  assert.equal(child.namespace, 'sub.lib');
  assert.equal(child.flow_id, 'child');
  assert.deepEqual(child.inputs, { x: 'abc', pause: 0.5, fail: false });
  assert.deepEqual(child.outputs, { y: 'abc-done' });
  assert.equal(call.outputs.execution_id, child.id);
  assert.deepEqual(call.outputs.outputs, { y: 'abc-done' });
  assert.deepEqual(run(done, 'use').outputs, { seen: 'abc-done' });
  // The parent task waited for the child.
  assert.ok(ms(call.ended_at) >= ms(child.ended_at), 'the subflow task ended after its child');
  assert.ok(call.duration_ms >= 400, `the subflow task lasted ${call.duration_ms} ms, the child sleeps 0.5 s`);
});

test("a waited child's failure fails the subflow task and the parent", async () => {
  const e = await s.trigger(NS, 'waits', { inputs: { fail: true, pause: 0 } });
  const done = await s.waitEnded(e.id);
  const call = run(done, 'call');
  const child = await get(call.child_execution_id);
  assert.equal(child.state, 'FAILED');
  assert.equal(call.state, 'FAILED');
  assert.match(call.error, /child broke|FAILED/);
  assert.equal(run(done, 'use').state, 'SKIPPED');
  assert.equal(done.state, 'FAILED');
});

test('a subflow task with wait false succeeds once the child started; the child still runs and names its parent', async () => {
  const e = await s.trigger(NS, 'fire');
  const done = await s.waitEnded(e.id);
  assert.equal(done.state, 'SUCCESS');
  const spawn = run(done, 'spawn');
  assert.equal(spawn.state, 'SUCCESS');
  const childId = spawn.child_execution_id ?? spawn.outputs?.execution_id;
  assert.equal(typeof childId, 'string');
  const child = await get(childId);
  assert.ok(['QUEUED', 'RUNNING'].includes(child.state), `the child is ${child.state} when the parent has ended`);
  assert.equal(child.parent_execution_id, e.id);
  assert.equal(child.chain_depth, 1);
  assert.deepEqual(
    done.children.map((c: any) => c.id),
    [childId],
  );
  const childDone = await s.waitEnded(childId);
  assert.equal(childDone.state, 'SUCCESS');
  assert.ok(ms(childDone.ended_at) > ms(done.ended_at));
});

test('cancelling a parent cancels the child it waits for', async () => {
  const e = await s.trigger(NS, 'waits', { inputs: { pause: 300 } });
  const waiting = await s.waitFor(e.id, (x) => x.children.length === 1 && x.children[0].state === 'RUNNING');
  const childId = waiting.children[0].id;
  await s.waitFor(childId, (x) => run(x, 'work').state === 'RUNNING');
  const r = await s.api('POST', `/api/v1/executions/${e.id}/cancel`);
  assert.equal(r.status, 200);
  const [p, c] = await Promise.all([s.waitEnded(e.id), s.waitEnded(childId)]);
  assert.equal(p.state, 'CANCELLED');
  assert.equal(c.state, 'CANCELLED');
  assert.equal(run(p, 'call').state, 'CANCELLED');
});

test('a flow that calls itself is stopped by the depth limit: the deepest subflow task fails and every level fails', async () => {
  const e = await s.trigger(NS, 'rec');
  const done = await s.waitEnded(e.id);
  assert.equal(done.state, 'FAILED');
  const chain: any[] = [done];
  for (let cur = done; run(cur, 'again').child_execution_id;) {
    cur = await s.waitEnded(run(cur, 'again').child_execution_id);
    chain.push(cur);
    assert.ok(chain.length < 100, 'the recursion did not stop');
  }
  chain.forEach((x, depth) => {
    assert.equal(x.chain_depth, depth);
    assert.equal(x.state, 'FAILED', `level ${depth}`);
    if (depth > 0) assert.equal(x.parent_execution_id, chain[depth - 1].id);
  });
  const deepest = run(chain[chain.length - 1], 'again');
  assert.equal(deepest.child_execution_id, null);
  assert.equal(deepest.state, 'FAILED');
  assert.match(deepest.reason + deepest.error, /depth/);
  const all = await s.api('GET', `/api/v1/executions?flow=${NS}/rec&limit=200`);
  assert.equal(all.body.items.length, chain.length, 'no execution beyond the depth limit was created');
  assert.ok(chain.length >= 2 && chain.length <= 50, `depth limit at ${chain.length - 1}`);
});
