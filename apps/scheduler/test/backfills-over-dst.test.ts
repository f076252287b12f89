// Backfills advanced by the scheduler's BackfillAdvancer on a
// real database: 1,000 daily fire times over six daylight-saving changes
// are exactly the expected instants (checked against a rule written here
// from Intl alone, not from the scheduler's code), created once each by two
// advancers at the same time; the in-flight limit, pause, resume and cancel,
// a new advancer taking over (a restart), and the flow's concurrency rule.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { newId } from '@svc/db';
import { cancelBackfill, getBackfill, insertBackfill, setBackfillState } from '@svc/scheduling';
import type { Engine } from '@svc/engine';
import { FireTimes, ZoneClock } from '@svc/timing';
import { BackfillAdvancer, BACKFILL_LABEL } from '../src/index.js';
import { flowFile, silent, startWorld, type World } from './support.js';

let w: World;

before(async () => {
  w = await startWorld();
  await w.save('bf', {
    'daily.flow.yaml': flowFile('daily', [{ id: 'nightly', type: 'schedule', cron: '30 2 * * *', timezone: 'Europe/Berlin' }]),
    'small.flow.yaml': flowFile('small', [{ id: 'hourly', type: 'schedule', cron: '0 * * * *', timezone: 'America/New_York' }]),
    'single.flow.yaml': flowFile('single', [{ id: 'hourly', type: 'schedule', cron: '0 * * * *' }], { concurrency: { limit: 1, behavior: 'skip' } }),
  });
});
after(() => w.close());

/** An advancer on its own pool and engine, as another scheduler instance would be. */
function advancer(): { a: BackfillAdvancer; engine: Engine } {
  // A scheduler's own pool and engine (support.ts builds them for each instance).
  const { deps } = w.scheduler() as unknown as { deps: { pool: pg.Pool; engine: Engine } };
  return { a: new BackfillAdvancer({ pool: deps.pool, engine: deps.engine, log: silent }), engine: deps.engine };
}

async function create(
  flowId: string,
  triggerId: string,
  cron: string,
  timezone: string,
  from: string,
  to: string,
  maxInFlight: number,
): Promise<{ id: string; fireTimes: Date[] }> {
  const id = newId();
  // As the gateway's createBackfill computes them.
  const fireTimes = new FireTimes(cron, new ZoneClock(timezone)).between(new Date(from), new Date(to), 10_000);
  await insertBackfill(w.pool, {
    id,
    namespace: 'bf',
    flowId,
    triggerId,
    cron,
    timezone,
    from: new Date(from),
    to: new Date(to),
    maxInFlight,
    createdBy: 'test',
    fireTimes,
    now: new Date(),
  });
  return { id, fireTimes };
}

/**
 * The expected instant of local 02:30 on `day` (YYYY-MM-DD) in Berlin, from
 * the spec's rules and Intl only: of the offsets +01:00 and +02:00, the
 * earliest instant whose Berlin wall time reads that day 02:30; when none
 * does (the clock skips 02:00-03:00), the next valid minute, 03:00 at +02:00.
 */
function expectedBerlin0230(day: string): string {
  const fmt = new Intl.DateTimeFormat('sv-SE', {
    timeZone: 'Europe/Berlin',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  });
  const candidates = [2, 1]
    .map((h) => new Date(Date.parse(`${day}T02:30:00Z`) - h * 3_600_000))
    .filter((t) => fmt.format(t) === `${day} 02:30`)
    .sort((a, b) => a.getTime() - b.getTime());
  if (candidates.length) return candidates[0]!.toISOString();
  return new Date(Date.parse(`${day}T03:00:00Z`) - 2 * 3_600_000).toISOString();
}

test('1,000 daily fire times over six DST changes: exactly the expected instants, once each, with two advancers at once', async () => {
  const { id, fireTimes } = await create('daily', 'nightly', '30 2 * * *', 'Europe/Berlin', '2025-06-01T00:00:00Z', '2028-02-25T23:59:59Z', 1000);
  assert.equal(fireTimes.length, 1000);
  const expected: string[] = [];
  for (let d = Date.UTC(2025, 5, 1); expected.length < 1000; d += 86_400_000) expected.push(expectedBerlin0230(new Date(d).toISOString().slice(0, 10)));
  assert.equal(expected.at(-1), '2028-02-25T01:30:00.000Z');
  // Spot checks of the rules: skipped (2026-03-29 03:00 +02:00), repeated (2026-10-25, first pass +02:00), summer and winter days.
  for (const t of ['2026-03-29T01:00:00.000Z', '2026-10-25T00:30:00.000Z', '2026-07-01T00:30:00.000Z', '2026-12-01T01:30:00.000Z', '2027-03-28T01:00:00.000Z'])
    assert.ok(expected.includes(t), t);
  assert.deepEqual(
    fireTimes.map((t) => t.toISOString()),
    expected,
  );

  const one = advancer();
  const two = advancer();
  const t0 = performance.now();
  const [r1, r2] = await Promise.all([one.a.advance(new Date()), two.a.advance(new Date())]);
  assert.equal(r1.created + r2.created, 1000, `created ${r1.created} + ${r2.created}`);
  const ms = performance.now() - t0;

  const rows = await w.pool.query<{
    fire_time: string;
    trigger_type: string;
    trigger_id: string;
    payload: Record<string, unknown>;
    labels: Record<string, string>;
    created_by: string;
  }>(
    `SELECT trigger_payload->>'fire_time' AS fire_time, trigger_type, trigger_id, trigger_payload AS payload, labels, created_by FROM executions WHERE labels->>'backfill' = $1 ORDER BY 1`,
    [id],
  );
  assert.equal(rows.rows.length, 1000);
  assert.deepEqual(
    rows.rows.map((r) => r.fire_time),
    expected,
  );
  const r0 = rows.rows[0]!;
  assert.equal(r0.trigger_type, 'schedule');
  assert.equal(r0.trigger_id, 'nightly');
  assert.equal(r0.created_by, 'backfill');
  assert.equal(r0.labels[BACKFILL_LABEL], id);
  assert.deepEqual(r0.payload, { fire_time: expected[0], schedule: 'nightly', cron: '30 2 * * *', timezone: 'Europe/Berlin', backfill: id });

  const b = await getBackfill(w.pool, id);
  assert.equal(b?.total, 1000);
  assert.equal(b?.left, 0);
  assert.equal((b?.running ?? 0) + (b?.done ?? 0) + (b?.failed ?? 0), 1000);
  // Another pass creates nothing more.
  const again = await one.a.advance(new Date());
  assert.equal(again.created, 0);
  console.log(`# 1,000 backfilled executions created in ${Math.round(ms)} ms`);
});

test('in-flight limit, pause, resume, a new advancer after a restart, and cancel as one unit', async () => {
  const { id } = await create('small', 'hourly', '0 * * * *', 'America/New_York', '2026-11-01T04:00:00Z', '2026-11-01T11:00:00Z', 2);
  const b0 = await getBackfill(w.pool, id);
  // 00:00 to 06:00 New York on the fall-back day: 1:00 EDT and 1:00 EST are one wall time, fired once.
  assert.equal(b0?.total, 7);
  const first = advancer();
  assert.equal((await first.a.advance(new Date())).created, 2);
  assert.equal((await first.a.advance(new Date())).created, 0, 'two in flight: no room');
  let b = await getBackfill(w.pool, id);
  assert.deepEqual([b?.running, b?.left], [2, 5]);

  // An execution ending makes room.
  const { engine } = first;
  const inFlight = await w.pool.query<{ id: string }>(`SELECT id FROM executions WHERE labels->>'backfill' = $1 ORDER BY trigger_payload->>'fire_time'`, [id]);
  await engine.executions.cancel(inFlight.rows[0]!.id, 'test');
  await w.pool.query(`UPDATE executions SET state = 'CANCELLED' WHERE id = $1 AND state = 'CANCELLING'`, [inFlight.rows[0]!.id]);

  assert.ok(await setBackfillState(w.pool, id, ['running'], 'paused', new Date()));
  assert.equal((await first.a.advance(new Date())).created, 0, 'paused');
  assert.ok(await setBackfillState(w.pool, id, ['paused'], 'running', new Date()));

  // A restart: a new advancer on new connections carries on from the rows.
  const second = advancer();
  assert.equal((await second.a.advance(new Date())).created, 1);
  b = await getBackfill(w.pool, id);
  assert.deepEqual([b?.running, b?.failed, b?.left], [2, 1, 4]);

  const toCancel = await cancelBackfill(w.pool, id, new Date());
  assert.equal(toCancel?.length, 2);
  for (const e of toCancel ?? []) await engine.executions.cancel(e, 'test');
  assert.equal(await cancelBackfill(w.pool, id, new Date()), null, 'cancelled once');
  assert.equal((await second.a.advance(new Date())).created, 0);
  b = await getBackfill(w.pool, id);
  assert.equal(b?.state, 'cancelled');
  assert.deepEqual([b?.left, b?.cancelled], [0, 4]);
  const fires = await w.pool.query<{ fire_time: string }>(`SELECT trigger_payload->>'fire_time' AS fire_time FROM executions WHERE labels->>'backfill' = $1 ORDER BY 1`, [id]);
  assert.deepEqual(
    fires.rows.map((r) => r.fire_time),
    ['2026-11-01T04:00:00.000Z', '2026-11-01T05:00:00.000Z', '2026-11-01T07:00:00.000Z'],
  );
});

test("the flow's concurrency rule applies: limit 1 with skip leaves the others SKIPPED, and the backfill ends done", async () => {
  const { id } = await create('single', 'hourly', '0 * * * *', 'UTC', '2026-01-01T00:00:00Z', '2026-01-01T02:00:00Z', 10);
  const { a } = advancer();
  assert.equal((await a.advance(new Date())).created, 3);
  const states = await w.pool.query<{ state: string }>(`SELECT state FROM executions WHERE labels->>'backfill' = $1 ORDER BY trigger_payload->>'fire_time'`, [id]);
  assert.equal(states.rows.filter((r) => r.state === 'SKIPPED').length, 2, JSON.stringify(states.rows));
  // End the one that ran; the next pass finds nothing left and nothing in flight.
  await w.pool.query(`UPDATE executions SET state = 'SUCCESS', ended_at = now() WHERE labels->>'backfill' = $1 AND state <> 'SKIPPED'`, [id]);
  const r = await a.advance(new Date());
  assert.deepEqual(r.finished, [id]);
  const b = await getBackfill(w.pool, id);
  assert.equal(b?.state, 'done');
  assert.equal(b?.done, 3);
});

test('a disabled flow pauses its backfill with its fire times left; enabled and resumed, it carries on', async () => {
  const { id } = await create('small', 'hourly', '0 * * * *', 'America/New_York', '2026-06-01T00:00:00Z', '2026-06-01T02:00:00Z', 10);
  await w.pool.query(`UPDATE flows SET enabled = false WHERE namespace = 'bf' AND flow_id = 'small'`);
  const { a } = advancer();
  assert.equal((await a.advance(new Date())).created, 0);
  let b = await getBackfill(w.pool, id);
  assert.deepEqual([b?.state, b?.left, b?.failed], ['paused', 3, 0]);
  await w.pool.query(`UPDATE flows SET enabled = true WHERE namespace = 'bf' AND flow_id = 'small'`);
  assert.ok(await setBackfillState(w.pool, id, ['paused'], 'running', new Date()));
  assert.equal((await a.advance(new Date())).created, 3);
  b = await getBackfill(w.pool, id);
  assert.deepEqual([b?.state, b?.left, (b?.running ?? 0) + (b?.done ?? 0)], ['running', 0, 3]);
});
