// The caps across backfills (docs/using/backfills.md, SVC_BACKFILL_MAX_IN_FLIGHT_PER_FLOW
// and ..._PER_NAMESPACE) on a real database, with no dispatcher, so the
// executions stay QUEUED until the test ends them: two advancers (each on
// its own pool and engine, as two scheduler instances) advance at the same
// time, over and over, and the executions in flight of all backfills of a
// flow never pass the per-flow cap, nor those of a namespace the
// per-namespace cap, each backfill's own max_in_flight higher; ending some
// lets exactly that many more start; a paused backfill's executions still
// count; every fire time is run in the end and each backfill ends done.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { newId } from '@svc/db';
import { getBackfill, insertBackfill, setBackfillState } from '@svc/scheduling';
import type { Engine } from '@svc/engine';
import { FireTimes, ZoneClock } from '@svc/timing';
import { BackfillAdvancer } from '../src/index.js';
import { flowFile, silent, startWorld, type World } from './support.js';

let w: World;
const HOURLY = [{ id: 'hourly', type: 'schedule', cron: '0 * * * *' }];

before(async () => {
  w = await startWorld();
  await w.save('caps', { 'f.flow.yaml': flowFile('f', HOURLY), 'g.flow.yaml': flowFile('g', HOURLY), 'h.flow.yaml': flowFile('h', HOURLY) });
  await w.save('caps.child', { 'k.flow.yaml': flowFile('k', HOURLY) });
});
after(() => w.close());

function advancer(caps: { maxInFlightPerFlow: number; maxInFlightPerNamespace: number }): BackfillAdvancer {
  const { deps } = w.scheduler() as unknown as { deps: { pool: pg.Pool; engine: Engine } };
  return new BackfillAdvancer({ pool: deps.pool, engine: deps.engine, log: silent, ...caps });
}

async function backfill(namespace: string, flowId: string, from: string, to: string, maxInFlight: number): Promise<string> {
  const id = newId();
  const fireTimes = new FireTimes('0 * * * *', new ZoneClock('UTC')).between(new Date(from), new Date(to), 10_000);
  await insertBackfill(w.pool, {
    id,
    namespace,
    flowId,
    triggerId: 'hourly',
    cron: '0 * * * *',
    timezone: 'UTC',
    from: new Date(from),
    to: new Date(to),
    maxInFlight,
    createdBy: 'test',
    fireTimes,
    now: new Date(),
  });
  return id;
}

/** Unended backfill executions per `namespace/flow` and per namespace, read from the executions themselves. */
async function inFlight(): Promise<{ flows: Record<string, number>; namespaces: Record<string, number>; ids: string[] }> {
  const r = await w.pool.query<{ id: string; namespace: string; flow_id: string }>(
    `SELECT id, namespace, flow_id FROM executions WHERE labels ? 'backfill' AND state IN ('QUEUED', 'RUNNING', 'CANCELLING') ORDER BY id`,
  );
  const flows: Record<string, number> = {};
  const namespaces: Record<string, number> = {};
  for (const e of r.rows) {
    flows[`${e.namespace}/${e.flow_id}`] = (flows[`${e.namespace}/${e.flow_id}`] ?? 0) + 1;
    namespaces[e.namespace] = (namespaces[e.namespace] ?? 0) + 1;
  }
  return { flows, namespaces, ids: r.rows.map((e) => e.id) };
}

test('two advancers at once keep every flow under its cap and every namespace under its own, across all backfills', async () => {
  const caps = { maxInFlightPerFlow: 3, maxInFlightPerNamespace: 5 };
  const [a, b] = [advancer(caps), advancer(caps)];
  const now = new Date();
  // Two backfills of f (own limit 10 each), one each of g and h: f is held by the flow cap, caps by the namespace cap.
  const f1 = await backfill('caps', 'f', '2026-01-01T00:00:00Z', '2026-01-01T09:00:00Z', 10);
  const f2 = await backfill('caps', 'f', '2026-02-01T00:00:00Z', '2026-02-01T09:00:00Z', 10);
  const g1 = await backfill('caps', 'g', '2026-01-01T00:00:00Z', '2026-01-01T09:00:00Z', 10);
  const h1 = await backfill('caps', 'h', '2026-01-01T00:00:00Z', '2026-01-01T09:00:00Z', 10);
  // A child namespace counts apart.
  const k1 = await backfill('caps.child', 'k', '2026-01-01T00:00:00Z', '2026-01-01T09:00:00Z', 10);
  const all = [f1, f2, g1, h1, k1];

  let sawFlowFull = false;
  let sawNamespaceFull = false;
  let sawChildFull = false;
  for (let round = 0; round < 200; round++) {
    await Promise.all([a.advance(now), b.advance(now), a.advance(now)]);
    const seen = await inFlight();
    for (const [flow, n] of Object.entries(seen.flows)) assert.ok(n <= 3, `${flow}: ${n} in flight (round ${round})`);
    assert.ok((seen.namespaces.caps ?? 0) <= 5, `caps: ${seen.namespaces.caps} in flight (round ${round})`);
    assert.ok((seen.namespaces['caps.child'] ?? 0) <= 3, `caps.child: ${seen.namespaces['caps.child']} in flight`);
    if ((seen.flows['caps/f'] ?? 0) === 3) sawFlowFull = true;
    if ((seen.namespaces.caps ?? 0) === 5) sawNamespaceFull = true;
    // The child namespace has its own room: its flow fills to the flow cap whatever caps holds.
    if ((seen.flows['caps.child/k'] ?? 0) === 3) sawChildFull = true;
    if (round === 3) {
      // A paused backfill's executions in flight still count.
      assert.ok(await setBackfillState(w.pool, f1, ['running'], 'paused', new Date()));
    }
    if (round === 6) assert.ok(await setBackfillState(w.pool, f1, ['paused'], 'running', new Date()));
    if (!seen.ids.length) {
      const states = await Promise.all(all.map((id) => getBackfill(w.pool, id)));
      if (states.every((x) => x?.state === 'done')) break;
    }
    // Two end per round: the next rounds fill exactly what they free.
    for (const id of seen.ids.slice(0, 2)) await w.pool.query(`UPDATE executions SET state = 'SUCCESS', ended_at = now() WHERE id = $1`, [id]);
  }
  assert.ok(sawFlowFull, 'f was held at its cap at some point');
  assert.ok(sawNamespaceFull, 'caps was held at its cap at some point');
  assert.ok(sawChildFull, 'caps.child filled to the flow cap beside a full caps');
  for (const id of all) {
    const done = await getBackfill(w.pool, id);
    assert.equal(done?.state, 'done', id);
    assert.deepEqual([done?.left, done?.running, done?.done], [0, 0, 10], id);
  }
  const made = await w.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM executions WHERE labels ? 'backfill'`);
  assert.equal(made.rows[0]!.n, 50, 'each fire time once');
});

test('without caps the advancer keeps to each backfill own limit only, as before', async () => {
  const a = new BackfillAdvancer({ pool: w.pool, engine: (w.scheduler() as unknown as { deps: { engine: Engine } }).deps.engine, log: silent });
  const id = await backfill('caps', 'g', '2026-03-01T00:00:00Z', '2026-03-01T09:00:00Z', 7);
  await a.advance(new Date());
  const b = await getBackfill(w.pool, id);
  assert.equal(b?.running, 7);
});
