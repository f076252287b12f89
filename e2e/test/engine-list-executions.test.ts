// listExecutions over HTTP: filters by state, namespace (with its children,
// not a namespace that merely shares a prefix), flow and label, and cursor
// paging newest first with no repeat and no gap.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startStack, type Stack } from './stack.js';
import { assertExecutionShape, flow } from './engine-support.js';

let s: Stack;
/** Ids by what they are, oldest first. */
const ids: Record<string, string[]> = { ok: [], bad: [], child: [], other: [] };

const ok = (id: string) => flow({ id, tasks: [{ id: 'a', type: 'command', command: ['true'] }] });

before(async () => {
  s = await startStack();
  await s.saveFlow('lst', { 'ok.flow.yaml': ok('ok'), 'bad.flow.yaml': flow({ id: 'bad', tasks: [{ id: 'a', type: 'command', command: ['false'] }] }) });
  await s.saveFlow('lst.child', { 'ok.flow.yaml': ok('ok') });
  await s.saveFlow('lstother', { 'ok.flow.yaml': ok('ok') });
  const go = async (kind: string, ns: string, f: string, labels?: Record<string, string>) => {
    const e = await s.trigger(ns, f, labels ? { labels } : {});
    ids[kind]!.push(e.id);
    await s.waitEnded(e.id);
  };
  await go('ok', 'lst', 'ok', { env: 'prod', tier: 'gold' });
  await go('ok', 'lst', 'ok', { env: 'dev' });
  await go('bad', 'lst', 'bad', { env: 'prod', tier: 'silver' });
  await go('ok', 'lst', 'ok', { env: 'prod', tier: 'silver' });
  await go('child', 'lst.child', 'ok', { env: 'prod' });
  await go('ok', 'lst', 'ok');
  await go('other', 'lstother', 'ok', { env: 'prod' });
});
after(() => s.stop());

const list = async (q: string) => {
  const r = await s.api('GET', `/api/v1/executions?${q}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body as { items: any[]; next_cursor?: string };
};
const newestFirst = (xs: string[]) => [...xs].reverse();

test('the namespace filter selects the namespace and its children, not a namespace sharing its prefix', async () => {
  const all = await list('namespace=lst&limit=200');
  all.items.forEach(assertExecutionShape);
  assert.deepEqual(new Set(all.items.map((e) => e.id)), new Set([...ids.ok!, ...ids.bad!, ...ids.child!]));
  assert.deepEqual(
    (await list('namespace=lst.child')).items.map((e) => e.id),
    ids.child,
  );
  assert.deepEqual(
    (await list('namespace=lstother')).items.map((e) => e.id),
    ids.other,
  );
});

test('the state filter selects executions in that state', async () => {
  assert.deepEqual(
    (await list('namespace=lst&state=FAILED')).items.map((e) => e.id),
    ids.bad,
  );
  const succeeded = await list('namespace=lst&state=SUCCESS&limit=200');
  assert.ok(succeeded.items.every((e) => e.state === 'SUCCESS'));
  assert.deepEqual(new Set(succeeded.items.map((e) => e.id)), new Set([...ids.ok!, ...ids.child!]));
  assert.deepEqual((await list('namespace=lst&state=RUNNING')).items, []);
  const bad = await s.api('GET', '/api/v1/executions?state=BOGUS');
  assert.equal(bad.status, 422);
  assert.ok(
    bad.body.error.details.some((d: any) => d.field === 'state'),
    JSON.stringify(bad.body),
  );
});

test('the flow filter selects executions of that flow', async () => {
  // namespace/flow names one flow exactly.
  assert.deepEqual(
    (await list('flow=lst/ok&limit=200')).items.map((e) => e.id),
    newestFirst(ids.ok!),
  );
  assert.deepEqual(
    (await list('flow=lst/bad')).items.map((e) => e.id),
    ids.bad,
  );
  // A flow id with a namespace filter: that flow id in the namespace and its children.
  const withChildren = (await list('flow=ok&namespace=lst&limit=200')).items.map((e) => e.id);
  assert.deepEqual(new Set(withChildren), new Set([...ids.ok!, ...ids.child!]));
});

test('the label filter selects executions carrying that label; repeated labels must all match', async () => {
  const prod = (await list('namespace=lst&label=env:prod&limit=200')).items;
  assert.ok(prod.every((e) => e.labels.env === 'prod'));
  assert.deepEqual(new Set(prod.map((e) => e.id)), new Set([ids.ok![0], ids.bad![0], ids.ok![2], ids.child![0]]));
  const both = (await list('namespace=lst&label=env:prod&label=tier:silver&limit=200')).items;
  assert.deepEqual(new Set(both.map((e) => e.id)), new Set([ids.bad![0], ids.ok![2]]));
  assert.deepEqual((await list('namespace=lst&label=env:nowhere')).items, []);
});

test('pages follow the cursor newest first with no repeat and no gap; the last page has no next_cursor', async () => {
  const everything = (await list('namespace=lst&limit=200')).items.map((e) => e.id);
  assert.equal(everything.length, 6);
  // Newest first: created_at descending.
  const created = (await list('namespace=lst&limit=200')).items.map((e) => Date.parse(e.created_at));
  assert.deepEqual(
    created,
    [...created].sort((a, b) => b - a),
  );
  assert.equal(everything[0], ids.ok![3], 'the newest execution comes first');

  const seen: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await list(`namespace=lst&limit=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    assert.ok(page.items.length <= 4);
    seen.push(...page.items.map((e) => e.id));
    cursor = page.next_cursor;
    pages++;
  } while (cursor && pages < 10);
  assert.equal(pages, 2);
  assert.deepEqual(seen, everything);

  const exact = await list('namespace=lst&limit=6');
  assert.equal(exact.items.length, 6);
  assert.equal(exact.next_cursor, undefined, 'no next_cursor when no more rows follow');
});

test('a limit above 200 or a cursor that does not decode is refused with 422 naming the field', async () => {
  const big = await s.api('GET', '/api/v1/executions?limit=201');
  assert.equal(big.status, 422);
  assert.ok(big.body.error.details.some((d: any) => d.field === 'limit'));
  const cur = await s.api('GET', '/api/v1/executions?cursor=%%%not-a-cursor');
  assert.equal(cur.status, 422);
  assert.ok(
    cur.body.error.details.some((d: any) => d.field === 'cursor'),
    JSON.stringify(cur.body),
  );
});
