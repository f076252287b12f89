// The caps across backfills on a real stack (docs/using/backfills.md): two
// scheduler processes with SVC_BACKFILL_MAX_IN_FLIGHT_PER_FLOW=2 and
// ..._PER_NAMESPACE=3 run, through a real dispatcher, two backfills of one
// flow and one backfill each of two flows of another namespace. Sampled every
// 50 ms while they run, the executions in flight of the flow never pass 2
// (and reach it) and those of the namespace never pass 3 (and reach it);
// every fire time runs once and each backfill ends done. A max_in_flight
// above a cap answers 422 naming the field; one left out is the lower cap.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { flow, sh, sleep } from './engine-support.js';
import { startStack, type Stack } from './stack.js';

let s: Stack;
const CAPS = { SVC_BACKFILL_MAX_IN_FLIGHT_PER_FLOW: '2', SVC_BACKFILL_MAX_IN_FLIGHT_PER_NAMESPACE: '3' };
const scheduled = (id: string) =>
  flow({ id, triggers: [{ id: 'every10', type: 'schedule', cron: '*/10 * * * *' }], tasks: [{ id: 't', type: 'command', command: sh('sleep 0.5') }] });

before(async () => {
  s = await startStack({ env: CAPS, dispatchers: 1 });
  await s.saveFlow('bf.one', { 'f.flow.yaml': scheduled('f') });
  await s.saveFlow('bf.two', { 'g.flow.yaml': scheduled('g'), 'h.flow.yaml': scheduled('h') });
});
after(async () => s?.stop());

/** Fire times every 10 minutes from `from` to one hour later: 7 of them. */
const range = (from: string) => ({ from, to: new Date(Date.parse(from) + 3_600_000).toISOString() });

test('a max_in_flight above a cap is refused with the field named; one left out is the lower cap', async () => {
  const over = await s.api('POST', '/api/v1/flows/bf.one/f/backfills', { ...range('2026-01-01T00:00:00Z'), max_in_flight: 3, dry_run: true });
  assert.equal(over.status, 422, JSON.stringify(over.body));
  assert.deepEqual(
    over.body.error.details.map((d: { field: string }) => d.field),
    ['max_in_flight'],
  );
  assert.match(over.body.error.details[0].message, /at most 2 \(SVC_BACKFILL_MAX_IN_FLIGHT_PER_FLOW/);
});

test('two schedulers keep a flow under its cap and a namespace under its own, across all their backfills', async () => {
  const made: string[] = [];
  for (const [path, from] of [
    ['bf.one/f', '2026-01-01T00:00:00Z'],
    ['bf.one/f', '2026-02-01T00:00:00Z'],
    ['bf.two/g', '2026-01-01T00:00:00Z'],
    ['bf.two/h', '2026-01-01T00:00:00Z'],
  ] as const) {
    const r = await s.api('POST', `/api/v1/flows/${path}/backfills`, range(from));
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.max_in_flight, 2, 'the lower cap, below the default of 10');
    made.push(r.body.id);
  }
  s.startApp('scheduler');
  s.startApp('scheduler');

  const peak: Record<string, number> = {};
  const deadline = Date.now() + 240_000;
  for (;;) {
    const r = await s.db.query<{ namespace: string; flow_id: string; n: number }>(
      `SELECT namespace, flow_id, count(*)::int AS n FROM executions WHERE labels ? 'backfill' AND state IN ('QUEUED', 'RUNNING', 'CANCELLING') GROUP BY 1, 2`,
    );
    const byNamespace: Record<string, number> = {};
    for (const row of r.rows) {
      assert.ok(row.n <= 2, `${row.namespace}/${row.flow_id}: ${row.n} in flight`);
      peak[`${row.namespace}/${row.flow_id}`] = Math.max(peak[`${row.namespace}/${row.flow_id}`] ?? 0, row.n);
      byNamespace[row.namespace] = (byNamespace[row.namespace] ?? 0) + row.n;
    }
    for (const [ns, n] of Object.entries(byNamespace)) {
      assert.ok(n <= 3, `${ns}: ${n} in flight`);
      peak[ns] = Math.max(peak[ns] ?? 0, n);
    }
    const states = await Promise.all(made.map(async (id) => (await s.api('GET', `/api/v1/backfills/${id}`)).body.state));
    if (states.every((x) => x === 'done')) break;
    assert.ok(Date.now() < deadline, `backfills still ${states.join(', ')}`);
    await sleep(50);
  }
  assert.equal(peak['bf.one/f'], 2, 'the flow reached its cap');
  assert.equal(peak['bf.two'], 3, 'the namespace reached its cap');
  for (const id of made) {
    const b = (await s.api('GET', `/api/v1/backfills/${id}`)).body;
    assert.deepEqual(b.progress, { total: 7, done: 7, running: 0, failed: 0, left: 0, cancelled: 0 });
  }
  const once = await s.db.query(
    `SELECT count(*)::int AS n, count(DISTINCT (labels->>'backfill', trigger_payload->>'fire_time'))::int AS d FROM executions WHERE labels ? 'backfill'`,
  );
  assert.deepEqual(once.rows[0], { n: 28, d: 28 }, 'each fire time once');
});
