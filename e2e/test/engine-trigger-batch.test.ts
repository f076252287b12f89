// The batch trigger over HTTP with real processes (triggerFlowBatch,
// docs/using/executions.md#batch-trigger): one request creates one execution
// per item, in item order, each with its own inputs and labels and its own
// audit event (input names only); it is all or nothing (0 items, 1,001 items,
// one bad item: 422 and nothing created); a concurrency limit of 2 over 5
// items leaves 2 RUNNING and 3 QUEUED (or SKIPPED), which then run in item
// order; a viewer gets 403 and a user bound operator on team-a cannot batch
// team-b's flow. A batch of 1,000 is created in one request (its time is
// printed, not asserted: speed belongs to bench/).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Answer, Schemas } from '@svc/api-spec';
import { boundUser, startStack, type Stack } from './stack.js';
import { flow, ms, sh } from './engine-support.js';

type BatchResult = Schemas['TriggerFlowBatchResult'];

let s: Stack;
const NS = 'batch';

/** A value that must never come back in an answer or an audit event. */
const SECRETISH = 'hunter2-batch-value';

before(async () => {
  s = await startStack();
  const dated = flow({
    id: 'dated',
    labels: { team: 'data' },
    inputs: [
      { id: 'date', type: 'string', required: true },
      { id: 'n', type: 'int', default: 1 },
    ],
    tasks: [{ id: 'echo', type: 'command', command: sh('echo "{{ inputs.date }} {{ inputs.n }}"') }],
  });
  await s.saveFlow(NS, {
    'dated.flow.yaml': dated,
    'two.flow.yaml': flow({ id: 'two', concurrency: { limit: 2, behavior: 'queue' }, tasks: [{ id: 'a', type: 'command', command: ['sleep', '0.5'] }] }),
    'twoskip.flow.yaml': flow({ id: 'twoskip', concurrency: { limit: 2, behavior: 'skip' }, tasks: [{ id: 'a', type: 'command', command: ['sleep', '30'] }] }),
    // Its task waits for a pool no dispatcher serves: a thousand executions cost nothing to run.
    'parked.flow.yaml': flow({ id: 'parked', tasks: [{ id: 'a', type: 'command', executor: { type: 'process', pool: 'nowhere' }, command: ['true'] }] }),
  });
  for (const ns of ['team-a', 'team-b']) await s.saveFlow(ns, { 'dated.flow.yaml': dated });
});
after(() => s.stop());

/** triggerFlowBatch with a bearer token (the stack's admin by default). */
async function batch(ns: string, flowId: string, body: unknown, token = s.token): Promise<{ status: number; body: any; text: string }> {
  const r = await fetch(`${s.url}/api/v1/flows/${ns}/${flowId}/executions/batch`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null, text };
}

const countOf = async (ns: string, flowId: string) =>
  Number((await s.db.query(`SELECT count(*)::int AS n FROM executions WHERE namespace = $1 AND flow_id = $2`, [ns, flowId])).rows[0].n);

test('a batch creates one execution per item, in order, each with its own inputs, labels and audit event', async () => {
  const items = [
    { inputs: { date: '2026-01-01' }, labels: { part: 'a' } },
    { inputs: { date: '2026-01-02', n: '7' }, labels: { part: 'b', team: 'ops' } },
    { inputs: { date: SECRETISH } },
  ];
  const r = await batch(NS, 'dated', { items });
  assert.equal(r.status, 201, r.text);
  const out = r.body as BatchResult;
  assert.equal(out.executions.length, 3);
  assert.equal(out.dry_run, false);
  assert.equal(out.count, 3);
  assert.deepEqual(
    out.executions.map((e) => e.state),
    ['RUNNING', 'RUNNING', 'RUNNING'],
  );
  assert.equal(new Set(out.executions.map((e) => e.id)).size, 3);
  const ended = await Promise.all(out.executions.map((e) => s.waitEnded(e.id)));
  assert.deepEqual(
    ended.map((e) => e.state),
    ['SUCCESS', 'SUCCESS', 'SUCCESS'],
  );
  assert.deepEqual(ended[0].inputs, { date: '2026-01-01', n: 1 });
  assert.deepEqual(ended[1].inputs, { date: '2026-01-02', n: 7 }, 'inputs are coerced as triggerFlow does');
  assert.deepEqual(ended[0].labels, { team: 'data', part: 'a' });
  assert.deepEqual(ended[1].labels, { team: 'ops', part: 'b' }, "an item's labels win over the flow's");
  assert.equal(ended[0].trigger_type, 'manual');
  // Created in item order (lists and queues read creation order; the API shows milliseconds, the rows microseconds).
  const order = await s.db.query(`SELECT id FROM executions WHERE id = ANY($1) ORDER BY created_at`, [out.executions.map((e) => e.id)]);
  assert.deepEqual(
    order.rows.map((x) => x.id),
    out.executions.map((e) => e.id),
  );
  const logs = await s.api('GET', `/api/v1/executions/${out.executions[1]!.id}/logs`);
  assert.ok(
    logs.body.items.some((l: any) => l.text.includes('2026-01-02 7')),
    JSON.stringify(logs.body),
  );

  // One execution.trigger event each, input names only.
  const audit = await s.api('GET', `/api/v1/audit?action=execution.trigger&limit=200`);
  assert.equal(audit.status, 200);
  const mine = audit.body.items.filter((i: any) => out.executions.some((e) => i.target === `execution:${e.id}`));
  assert.equal(mine.length, 3, JSON.stringify(audit.body.items.slice(0, 3)));
  for (const ev of mine) {
    assert.deepEqual(ev.payload.input_keys, ['date'].concat(ev.payload.batch_index === 1 ? ['n'] : []));
    assert.equal(ev.payload.batch_size, 3);
  }
  assert.ok(!JSON.stringify(audit.body).includes(SECRETISH), 'no input value in the audit log');
});

test('0 items, 1,001 items and one bad item are refused with 422 and nothing is created', async () => {
  const before = await countOf(NS, 'dated');
  const none = await batch(NS, 'dated', { items: [] });
  assert.equal(none.status, 422, none.text);
  assert.equal(none.body.error.code, 'validation_failed');
  assert.ok(
    none.body.error.details.some((d: any) => d.field === 'items'),
    none.text,
  );

  const many = await batch(NS, 'dated', { items: Array.from({ length: 1001 }, (_, i) => ({ inputs: { date: `d${i}` } })) });
  assert.equal(many.status, 422, many.text.slice(0, 500));
  assert.ok(
    many.body.error.details.some((d: any) => d.field === 'items' && /1000/.test(d.message)),
    many.text.slice(0, 500),
  );

  // Item 3 lacks its required date, item 5 has a bad number: one 422 naming both, nothing created.
  const items = Array.from({ length: 8 }, (_, i) => ({ inputs: { date: `2026-02-0${i + 1}` } })) as { inputs: Record<string, unknown> }[];
  items[3] = { inputs: {} };
  items[5] = { inputs: { date: 'x', n: SECRETISH } };
  const bad = await batch(NS, 'dated', { items });
  assert.equal(bad.status, 422, bad.text);
  assert.equal(bad.body.error.code, 'validation_failed');
  assert.deepEqual(bad.body.error.details.map((d: any) => d.field).sort(), ['items[3].inputs.date', 'items[5].inputs.n']);
  assert.ok(!bad.text.includes(SECRETISH), 'the refused value is not echoed');

  // A bad label (not a string) is refused by the schema, naming its item.
  const label = await batch(NS, 'dated', { items: [{ inputs: { date: 'a' } }, { inputs: { date: 'b' }, labels: { k: 1 } }] });
  assert.equal(label.status, 422, label.text);
  assert.ok(
    label.body.error.details.some((d: any) => String(d.field).startsWith('items[1].labels') || String(d.field).startsWith('items.1.labels')),
    label.text,
  );
  assert.equal(await countOf(NS, 'dated'), before, 'no execution was created by a refused batch');

  // A dry run checks the same way and creates nothing.
  const dryBad = await batch(NS, 'dated', { items, dry_run: true });
  assert.equal(dryBad.status, 422, dryBad.text);
  assert.deepEqual(dryBad.body.error.details.map((d: any) => d.field).sort(), ['items[3].inputs.date', 'items[5].inputs.n']);
  const dry = await batch(NS, 'dated', { items: [{ inputs: { date: 'a' } }, { inputs: { date: 'b' } }], dry_run: true });
  assert.equal(dry.status, 200, dry.text);
  assert.deepEqual(dry.body, { executions: [], dry_run: true, count: 2 });
  assert.equal(await countOf(NS, 'dated'), before, 'a dry run creates nothing');

  // An unknown flow: 404.
  assert.equal((await batch(NS, 'nope', { items: [{}] })).status, 404);
});

test("the flow's concurrency rule applies to each item in order: limit 2 over 5 items", async () => {
  const r = await batch(NS, 'two', { items: Array.from({ length: 5 }, (_, i) => ({ labels: { i: String(i) } })) });
  assert.equal(r.status, 201, r.text);
  const out = r.body as BatchResult;
  assert.deepEqual(
    out.executions.map((e) => e.state),
    ['RUNNING', 'RUNNING', 'QUEUED', 'QUEUED', 'QUEUED'],
  );
  const ended = await Promise.all(out.executions.map((e) => s.waitEnded(e.id, 60_000)));
  assert.deepEqual(
    ended.map((e) => e.state),
    ['SUCCESS', 'SUCCESS', 'SUCCESS', 'SUCCESS', 'SUCCESS'],
  );
  // The queued ones started in item order.
  assert.ok(ms(ended[2].started_at) <= ms(ended[3].started_at) && ms(ended[3].started_at) <= ms(ended[4].started_at));

  const sk = await batch(NS, 'twoskip', { items: [{}, {}, {}, {}, {}] });
  assert.equal(sk.status, 201, sk.text);
  assert.deepEqual(
    (sk.body as BatchResult).executions.map((e) => e.state),
    ['RUNNING', 'RUNNING', 'SKIPPED', 'SKIPPED', 'SKIPPED'],
  );
  const skipped = await s.api('GET', `/api/v1/executions/${(sk.body as BatchResult).executions[4]!.id}`);
  assert.equal(skipped.body.state, 'SKIPPED');
  assert.equal(skipped.body.reason, 'concurrency_limit');
  for (const e of (sk.body as BatchResult).executions.slice(0, 2)) await s.api('POST', `/api/v1/executions/${e.id}/cancel`);
});

test("a viewer gets 403; a user bound operator on team-a batches team-a's flow but not team-b's", async () => {
  const v = await boundUser(s, { email: 'batch-viewer@example.com', password: 'viewer password 1', namespace: 'team-a', role: 'viewer', tokenName: 'v' });
  const a = await boundUser(s, { email: 'batch-op-a@example.com', password: 'op-a password 1', namespace: 'team-a', role: 'operator', tokenName: 'a' });
  const body = { items: [{ inputs: { date: 'x' } }] };
  const beforeA = await countOf('team-a', 'dated');
  const beforeB = await countOf('team-b', 'dated');

  const byViewer = await batch('team-a', 'dated', body, v.token);
  assert.equal(byViewer.status, 403, byViewer.text);
  assert.equal(byViewer.body.error.code, 'forbidden');

  const other = await batch('team-b', 'dated', body, a.token);
  assert.equal(other.status, 403, other.text);
  assert.equal(await countOf('team-b', 'dated'), beforeB, 'nothing created in team-b');

  const own = await batch('team-a', 'dated', body, a.token);
  assert.equal(own.status, 201, own.text);
  assert.equal(await countOf('team-a', 'dated'), beforeA + 1);
  assert.ok(!own.text.includes(a.token) && !byViewer.text.includes(v.token), 'no credential in an answer');
});

test('a batch of 1,000 is created in one request, in order', async () => {
  const before = await countOf(NS, 'parked');
  const items = Array.from({ length: 1000 }, (_, i) => ({ labels: { i: String(i) } }));
  const t0 = performance.now();
  const r = await batch(NS, 'parked', { items });
  const took = performance.now() - t0;
  assert.equal(r.status, 201, r.text.slice(0, 500));
  const out = r.body as BatchResult;
  assert.equal(out.executions.length, 1000);
  assert.ok(out.executions.every((e) => e.state === 'RUNNING'));
  assert.equal(await countOf(NS, 'parked'), before + 1000);
  // Item order is creation order, and each has its own labels and task run.
  const rows = (
    await s.db.query(
      `SELECT e.id, e.labels->>'i' AS i, (SELECT count(*)::int FROM task_runs t WHERE t.execution_id = e.id) AS runs
         FROM executions e WHERE e.id = ANY($1) ORDER BY e.created_at, e.id`,
      [out.executions.map((e) => e.id)],
    )
  ).rows;
  assert.deepEqual(
    rows.map((x) => x.id),
    out.executions.map((e) => e.id),
  );
  assert.ok(rows.every((x, i) => x.i === String(i) && x.runs === 1));
  // listExecutions pages through all of them, newest first: the batch's rows are a microsecond apart, and a cursor
  // cut to the millisecond would end the list after the first page.
  const listed: string[] = [];
  for (let cursor: string | undefined; ;) {
    const page = await fetch(`${s.url}/api/v1/executions?namespace=${NS}&flow=parked&limit=150${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
      headers: { authorization: `Bearer ${s.token}` },
    }).then((x) => x.json() as Promise<Answer<'listExecutions'>>);
    listed.push(...page.items.map((e) => e.id));
    cursor = page.next_cursor ?? undefined;
    if (!cursor) break;
  }
  const mine = new Set(out.executions.map((e) => e.id));
  assert.deepEqual(
    listed.filter((id) => mine.has(id)),
    out.executions.map((e) => e.id).reverse(),
  );
  process.stderr.write(`# a batch of 1,000 executions took ${took.toFixed(0)} ms (request to answer)\n`);
});
