// Fan-out (for_each, an extension of the flow format) on a real stack with
// real processes: a task runs once per element of a list an upstream task
// printed, four at a time (sampled over the execution's event stream and
// from the items' start and end times), three items that fail end the
// execution FAILED after the others ended, and restart from failed copies the
// 47 that succeeded and runs only the 3 (which now pass); downstream reads the
// list of item outputs in item order. Also: an empty list, a value that is
// not a list, fail_fast, per-item retries, the flow's max_parallel holding
// across items, a cancel in the middle, and a subflow fan-out that starts one
// child per item.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startStack, type Stack } from './stack.js';
import { emit, flow, maxOverlap, ms, run, sh, tmpDir, until } from './engine-support.js';
import { SseClient } from '../../apps/api-gateway/test/sse-client.js';

let s: Stack;
const NS = 'fan';
const dir = tmpDir();
const FAILING = [7, 19, 33];

/** The parent run of a fanned-out task (no item_index). */
const parentOf = (ex: any, key: string) => ex.task_runs.filter((r: any) => r.task_key === key && r.item_index === undefined).at(-1);
/** Every item run of a task, every attempt, by index then attempt. */
const itemsOf = (ex: any, key: string): any[] =>
  ex.task_runs.filter((r: any) => r.task_key === key && r.item_index !== undefined).sort((a: any, b: any) => a.item_index - b.item_index || a.attempt - b.attempt);
/** The latest attempt of each item, by index. */
const latestItems = (ex: any, key: string): any[] => {
  const m = new Map<number, any>();
  for (const r of itemsOf(ex, key)) m.set(r.item_index, r);
  return [...m.values()];
};

before(async () => {
  s = await startStack({ env: { SVC_WORKER_SLOTS: '16' } });
  const tables = Array.from({ length: 50 }, (_, i) => `t${String(i).padStart(2, '0')}`);
  await s.saveFlow('fan.lib', {
    'child.flow.yaml': flow({
      id: 'child',
      inputs: [{ id: 'name', type: 'string' }],
      tasks: [{ id: 'work', type: 'command', env: { NAME: '{{ inputs.name }}' }, command: sh(`printf '{"outputs": {"done": "%s"}}\\n' "$NAME" >> "$SVC_OUTPUTS"`) }],
      outputs: { done: '{{ tasks.work.outputs.done }}' },
    }),
  });
  await s.saveFlow(NS, {
    'load.flow.yaml': flow({
      id: 'load',
      tasks: [
        { id: 'list', type: 'command', command: sh(emit({ tables })) },
        {
          id: 'load',
          type: 'command',
          depends_on: ['list'],
          for_each: '{{ tasks.list.outputs.tables }}',
          for_each_concurrency: 4,
          env: { TABLE: '{{ item }}', INDEX: '{{ item_index }}' },
          // Items 7, 19 and 33 fail until the test writes the file `fixed`.
          command: sh(
            `sleep 0.05; case " ${FAILING.join(' ')} " in *" $INDEX "*) [ -f ${dir}/fixed ] || { echo "cannot load $TABLE" >&2; exit 3; };; esac; ` +
              `printf '{"outputs": {"table": "%s", "index": %s}}\\n' "$TABLE" "$INDEX" >> "$SVC_OUTPUTS"`,
          ),
        },
        { id: 'report', type: 'command', depends_on: ['load'], command: ['true'] },
      ],
      outputs: { loaded: '{{ tasks.load.outputs }}' },
    }),
    'shapes.flow.yaml': flow({
      id: 'shapes',
      inputs: [{ id: 'list', type: 'string', default: '[]' }],
      tasks: [
        { id: 'each', type: 'command', for_each: '{{ inputs.list }}', command: sh(emit({ seen: 1 })) },
        { id: 'after', type: 'command', depends_on: ['each'], command: ['true'] },
      ],
      outputs: { each: '{{ tasks.each.outputs }}' },
    }),
    'fast.flow.yaml': flow({
      id: 'fast',
      tasks: [
        {
          id: 'each',
          type: 'command',
          for_each: [0, 1, 2, 3, 4, 5],
          for_each_concurrency: 1,
          fail_fast: true,
          command: sh('[ "{{ item }}" = 1 ] && exit 4; true'),
        },
      ],
    }),
    'retries.flow.yaml': flow({
      id: 'retries',
      tasks: [
        {
          id: 'each',
          type: 'command',
          for_each: ['a', 'b', 'c'],
          retry: { max_attempts: 2, initial: '10ms' },
          // Item b fails its first attempt only.
          command: sh(`[ "{{ item }}" = b ] && [ ! -f ${dir}/b-once ] && { touch ${dir}/b-once; exit 5; }; true`),
        },
      ],
    }),
    'bounded.flow.yaml': flow({
      id: 'bounded',
      max_parallel: 2,
      tasks: [
        { id: 'each', type: 'command', for_each: [1, 2, 3, 4, 5, 6, 7, 8], for_each_concurrency: 10, command: ['sleep', '0.2'] },
        { id: 'other', type: 'command', command: ['sleep', '0.2'] },
      ],
    }),
    'slow.flow.yaml': flow({
      id: 'slow',
      tasks: [{ id: 'each', type: 'command', for_each: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], for_each_concurrency: 2, command: ['sleep', '30'] }],
    }),
    'calls.flow.yaml': flow({
      id: 'calls',
      tasks: [{ id: 'each', type: 'subflow', flow: 'fan.lib/child', for_each: tables, inputs: { name: '{{ item }}' } }],
      outputs: { all: '{{ tasks.each.outputs }}' },
    }),
  });
});
after(async () => {
  await s?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('50 items, 4 at a time: 3 failures fail the task after the rest; restart from failed copies 47 and runs the 3', async () => {
  const ex = await s.trigger(NS, 'load');
  const events = await SseClient.open(`${s.url}/api/v1/executions/${ex.id}/events`, { authorization: `Bearer ${s.token}` });
  await events.done;
  const samples = events.events.filter((e) => e.event === 'execution').map((e) => JSON.parse(e.data));
  assert.ok(samples.length > 10, `the stream sent ${samples.length} details`);
  for (const d of samples) {
    const running = latestItems(d, 'load').filter((r) => r.state === 'RUNNING').length;
    assert.ok(running <= 4, `${running} items running at once in a streamed detail`);
  }
  const done = (await s.api('GET', `/api/v1/executions/${ex.id}`)).body;
  assert.equal(done.state, 'FAILED');
  const items = latestItems(done, 'load');
  assert.equal(items.length, 50, 'one task run per item');
  assert.deepEqual(
    items.map((r) => r.item_index),
    [...Array(50).keys()],
  );
  assert.deepEqual(
    items.map((r) => r.item),
    Array.from({ length: 50 }, (_, i) => `t${String(i).padStart(2, '0')}`),
  );
  assert.deepEqual(
    items.filter((r) => r.state === 'FAILED').map((r) => r.item_index),
    FAILING,
  );
  assert.equal(items.filter((r) => r.state === 'SUCCESS').length, 47, 'the other items all ran to their end');
  assert.ok(maxOverlap(items.map((r) => [ms(r.started_at), ms(r.ended_at)])) <= 4, 'never more than 4 items running');
  const parent = parentOf(done, 'load');
  assert.equal(parent.state, 'FAILED');
  assert.equal(parent.fan_out, 50);
  assert.deepEqual(parent.item_counts, { total: 50, pending: 0, queued: 0, running: 0, success: 47, failed: 3, timed_out: 0, cancelled: 0, skipped: 0 });
  assert.match(parent.error, /^item 7 failed/);
  assert.ok(ms(parent.ended_at) >= Math.max(...items.map((r) => ms(r.ended_at))), 'the task ends after its last item');
  assert.equal(run(done, 'report').state, 'SKIPPED');
  assert.equal(done.error, parent.error);
  // Each item has its own logs.
  const logs = (await s.api('GET', `/api/v1/executions/${ex.id}/logs?limit=5000`)).body;
  const lines = (logs.items as any[]).filter((l) => /cannot load/.test(l.text));
  assert.deepEqual(lines.map((l: any) => l.text).sort(), ['cannot load t07', 'cannot load t19', 'cannot load t33']);
  assert.equal(new Set(lines.map((l: any) => l.task_run_id)).size, 3, 'one task run per failed item');

  fs.writeFileSync(path.join(dir, 'fixed'), '');
  const restarted = await s.api('POST', `/api/v1/executions/${ex.id}/restart`);
  assert.ok(restarted.status < 300 && restarted.body.id, JSON.stringify(restarted.body));
  const again = await s.waitEnded(restarted.body.id);
  assert.equal(again.state, 'SUCCESS', JSON.stringify(again.error));
  const second = latestItems(again, 'load');
  assert.equal(second.length, 50);
  assert.equal(second.filter((r) => r.reason === 'reused').length, 47, '47 items copied');
  assert.deepEqual(
    second.filter((r) => r.reason !== 'reused').map((r) => r.item_index),
    FAILING,
    'only the failed items ran again',
  );
  for (const r of second.filter((x) => x.reason === 'reused')) assert.ok(r.reused_from_id, 'a copied item names its original');
  assert.equal(run(again, 'report').state, 'SUCCESS');
  const loaded = JSON.parse(again.outputs.loaded);
  assert.deepEqual(
    loaded.map((o: any) => o.table),
    Array.from({ length: 50 }, (_, i) => `t${String(i).padStart(2, '0')}`),
    'the outputs are the list of item outputs in item order',
  );
});

test('an empty list ends the task SUCCESS with [] and its dependents run; a value that is not a list fails it saying what it got', async () => {
  const empty = await s.waitEnded((await s.trigger(NS, 'shapes', { inputs: { list: '[]' } })).id);
  assert.equal(empty.state, 'SUCCESS');
  assert.deepEqual(parentOf(empty, 'each').outputs, []);
  assert.equal(itemsOf(empty, 'each').length, 0);
  assert.equal(run(empty, 'after').state, 'SUCCESS');
  assert.equal(empty.outputs.each, '[]');

  const notList = await s.waitEnded((await s.trigger(NS, 'shapes', { inputs: { list: '{"a": 1}' } })).id);
  assert.equal(notList.state, 'FAILED');
  const p = parentOf(notList, 'each');
  assert.equal(p.reason, 'template_error');
  assert.match(p.error, /for_each of task each must be a list; got string "\{\\"a\\": 1\}"/);
  assert.equal(run(notList, 'after').state, 'SKIPPED');

  const three = await s.waitEnded((await s.trigger(NS, 'shapes', { inputs: { list: '["x", "y", "z"]' } })).id);
  assert.equal(three.state, 'SUCCESS');
  assert.deepEqual(JSON.parse(three.outputs.each), [{ seen: 1 }, { seen: 1 }, { seen: 1 }]);
});

test('fail_fast cancels the items not started once one fails', async () => {
  const done = await s.waitEnded((await s.trigger(NS, 'fast')).id);
  assert.equal(done.state, 'FAILED');
  const items = latestItems(done, 'each');
  assert.deepEqual(
    items.map((r) => r.state),
    ['SUCCESS', 'FAILED', 'CANCELLED', 'CANCELLED', 'CANCELLED', 'CANCELLED'],
  );
  for (const r of items.slice(2)) {
    assert.equal(r.started_at, null, 'never started');
    assert.match(r.error, /item 1 failed \(fail_fast\)/);
  }
  assert.match(parentOf(done, 'each').error, /^item 1 failed/);
});

test('retries are per item: the item that failed gets a second attempt, the others one', async () => {
  const done = await s.waitEnded((await s.trigger(NS, 'retries')).id);
  assert.equal(done.state, 'SUCCESS');
  const attempts = itemsOf(done, 'each').map((r) => [r.item, r.attempt, r.state]);
  assert.deepEqual(attempts, [
    ['a', 1, 'SUCCESS'],
    ['b', 1, 'FAILED'],
    ['b', 2, 'SUCCESS'],
    ['c', 1, 'SUCCESS'],
  ]);
  assert.equal(parentOf(done, 'each').attempt, 1, 'the task itself is not retried');
});

test("the flow's max_parallel holds across items and other tasks", async () => {
  const done = await s.waitEnded((await s.trigger(NS, 'bounded')).id);
  assert.equal(done.state, 'SUCCESS');
  const runs = [...latestItems(done, 'each'), run(done, 'other')];
  assert.equal(runs.length, 9);
  assert.ok(maxOverlap(runs.map((r) => [ms(r.started_at), ms(r.ended_at)])) <= 2, 'never more than max_parallel runs at once');
});

test('a cancel in the middle stops the running items, cancels the rest, and ends the task CANCELLED', async () => {
  const ex = await s.trigger(NS, 'slow');
  await s.waitFor(ex.id, (e) => latestItems(e, 'each').filter((r) => r.state === 'RUNNING').length === 2);
  assert.equal((await s.api('POST', `/api/v1/executions/${ex.id}/cancel`)).status, 200);
  const done = await s.waitEnded(ex.id);
  assert.equal(done.state, 'CANCELLED');
  const items = latestItems(done, 'each');
  assert.ok(
    items.every((r) => r.state === 'CANCELLED'),
    JSON.stringify(items.map((r) => r.state)),
  );
  assert.equal(items.filter((r) => r.started_at !== null).length, 2, 'only two ever started');
  assert.equal(parentOf(done, 'each').state, 'CANCELLED');
});

test('a subflow fan-out starts one child per item and collects their outputs in order', async () => {
  const done = await s.waitEnded((await s.trigger(NS, 'calls')).id, 120_000);
  assert.equal(done.state, 'SUCCESS', done.error);
  assert.equal(done.children.length, 50, 'one child per item');
  const items = latestItems(done, 'each');
  assert.equal(new Set(items.map((r) => r.child_execution_id)).size, 50);
  const kids = await Promise.all(items.slice(0, 3).map(async (r) => (await s.api('GET', `/api/v1/executions/${r.child_execution_id}`)).body));
  assert.deepEqual(
    kids.map((k) => k.inputs.name),
    ['t00', 't01', 't02'],
  );
  const all = JSON.parse(done.outputs.all);
  assert.equal(all.length, 50);
  assert.equal(all[49].outputs.done, 't49');
  await until(
    'children all ended',
    async () => (await s.db.query(`SELECT count(*)::int AS n FROM executions WHERE parent_execution_id = $1 AND state = 'SUCCESS'`, [done.id])).rows[0].n === 50,
  );
});
