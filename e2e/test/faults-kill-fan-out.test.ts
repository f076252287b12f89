// Fault injection in the middle of a fan-out (for_each): its items are task
// runs like any other, claimed through the same path, so a kill -9 of any
// app while items run loses no item and runs none twice. A stack with two
// dispatchers runs one task over 60 items, 6 at a time, each item retried up
// to 3 attempts; SIGKILL the dispatcher running the most items (its items end
// `lost` and run again elsewhere), then the gateway and maintenance together.
// After each: the execution ends SUCCESS, every item has exactly one SUCCESS
// run, no item has two attempts at once or two rows of one attempt, and the
// task's outputs list every item once, in order.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startStack, type Stack } from './stack.js';
import { flow, sh, until } from './engine-support.js';
import { gatewayUp, kill9, online, procsOf } from './faults/apps.js';
import { q } from './faults/invariants.js';

const NS = 'kill-fan';
const ITEMS = 60;
let s: Stack;

before(async () => {
  s = await startStack({ dispatchers: 2 });
  await s.saveFlow(NS, {
    'each.flow.yaml': flow({
      id: 'each',
      tasks: [
        {
          id: 'each',
          type: 'command',
          for_each: [...Array(ITEMS).keys()],
          for_each_concurrency: 6,
          retry: { max_attempts: 3, initial: '100ms' },
          command: sh(`sleep 0.4; printf '{"outputs": {"i": %s}}\\n' '{{ item }}' >> "$SVC_OUTPUTS"`),
        },
      ],
    }),
  });
});
after(() => s?.stop());

/** Item runs of execution `id`: index, attempt, state, reason, times. */
const itemRows = (id: string) =>
  q(
    s,
    `SELECT item_index, attempt, state, reason, started_at, ended_at, claimed_by FROM task_runs WHERE execution_id = $1 AND item_index IS NOT NULL ORDER BY item_index, attempt`,
    [id],
  );
const running = async (id: string) => (await itemRows(id)).filter((r) => r.state === 'RUNNING').length;

async function checkItems(id: string): Promise<any[]> {
  const done = await s.waitEnded(id, 180_000);
  assert.equal(done.state, 'SUCCESS', done.error);
  const rows = await itemRows(id);
  const byIndex = new Map<number, any[]>();
  for (const r of rows) byIndex.set(r.item_index, [...(byIndex.get(r.item_index) ?? []), r]);
  assert.deepEqual([...byIndex.keys()], [...Array(ITEMS).keys()], 'every item has runs, and only these items');
  for (const [i, runs] of byIndex) {
    assert.equal(runs.filter((r) => r.state === 'SUCCESS').length, 1, `item ${i} succeeded exactly once`);
    assert.deepEqual(
      runs.map((r) => r.attempt),
      runs.map((_, k) => k + 1),
      `item ${i}: one row per attempt`,
    );
    for (let k = 1; k < runs.length; k++) assert.ok(runs[k].started_at >= runs[k - 1].ended_at, `item ${i}: attempt ${k + 1} started after attempt ${k} ended`);
    assert.equal(runs.at(-1).state, 'SUCCESS', `item ${i}: the latest attempt is the one that succeeded`);
  }
  const parent = done.task_runs.find((r: any) => r.task_key === 'each' && r.item_index === undefined);
  assert.deepEqual(
    parent.outputs.map((o: any) => o.i),
    [...Array(ITEMS).keys()],
    'the outputs list every item once, in order',
  );
  return rows;
}

test('kill -9 the dispatcher running the most items: its items end lost and run again elsewhere, none lost, none twice', async () => {
  const ex = await s.trigger(NS, 'each');
  await until('items to run', async () => (await running(ex.id)) >= 4, 120_000, 50);
  const busiest = await q(
    s,
    `SELECT (i.metadata->>'pid')::int AS pid, count(*)::int AS n FROM task_runs t JOIN instances i ON i.id = t.claimed_by
     WHERE t.execution_id = $1 AND t.state = 'RUNNING' AND t.item_index IS NOT NULL GROUP BY 1 ORDER BY 2 DESC LIMIT 1`,
    [ex.id],
  );
  const victim = procsOf(s, 'dispatcher').find((p) => p.child.pid === busiest[0].pid);
  assert.ok(victim, 'the busiest dispatcher is one of the stack');
  await kill9(victim);
  const fresh = s.startApp('dispatcher');
  await online(s, fresh);
  const rows = await checkItems(ex.id);
  assert.ok(
    rows.some((r) => r.reason === 'lost'),
    `the killed dispatcher's items ended lost: ${JSON.stringify(rows.filter((r) => r.attempt > 1))}`,
  );
});

test('kill -9 the gateway and maintenance mid-fan-out: the items go on and end as if nothing happened', async () => {
  const ex = await s.trigger(NS, 'each');
  await until('items to run', async () => (await running(ex.id)) >= 4, 120_000, 50);
  const victims = [...procsOf(s, 'api-gateway'), ...procsOf(s, 'maintenance')];
  assert.equal(victims.length, 2);
  await Promise.all(victims.map(kill9));
  const gw = s.startApp('api-gateway');
  const mt = s.startApp('maintenance');
  await gatewayUp(s);
  await Promise.all([online(s, gw), online(s, mt)]);
  const rows = await checkItems(ex.id);
  assert.equal(rows.length, ITEMS, 'no item ran a second attempt: nothing they ran on was killed');
});
