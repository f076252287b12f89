// Daylight-saving days, ticked minute by minute with an injected clock:
// a wall time the clock skips fires once at the next valid minute, and a
// repeated hour fires once. 2026: Europe/Berlin 29 March (02:00 → 03:00) and
// 25 October (03:00 → 02:00); America/New_York 8 March (02:00 → 03:00) and
// 1 November (02:00 → 01:00).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ZoneClock } from '../src/index.js';
import { at, flowFile, scheduledRuns, startWorld, type World } from './support.js';

let w: World;

before(async () => {
  w = await startWorld();
  await w.save('dst', {
    'berlin.flow.yaml': flowFile('berlin', [
      { id: 'daily_0230', type: 'schedule', cron: '30 2 * * *', timezone: 'Europe/Berlin', catch_up: 'none' },
      { id: 'half_hourly', type: 'schedule', cron: '*/30 * * * *', timezone: 'Europe/Berlin', catch_up: 'none' },
    ]),
    'newyork.flow.yaml': flowFile('newyork', [
      { id: 'daily_0215', type: 'schedule', cron: '15 2 * * *', timezone: 'America/New_York', catch_up: 'none' },
      { id: 'daily_0130', type: 'schedule', cron: '30 1 * * *', timezone: 'America/New_York', catch_up: 'none' },
      { id: 'hourly', type: 'schedule', cron: '0 * * * *', timezone: 'America/New_York', catch_up: 'none' },
    ]),
  });
});
after(() => w.close());

/**
 * Schedules of `zone` only, created at `from`, ticked every minute (5 s past
 * it) until `to`; returns each trigger's fires as `UTC hh:mm = local hh:mm`.
 */
async function ticked(zone: string, from: string, to: string): Promise<Record<string, string[]>> {
  const s = w.scheduler();
  await w.pool.query(`DELETE FROM schedules`);
  await s.sync(at(from));
  await w.pool.query(`DELETE FROM schedules WHERE timezone <> $1`, [zone]);
  for (let t = at(from, 5).getTime(); t <= Date.parse(to) + 5000; t += 60_000) {
    const r = await s.tick(new Date(t));
    assert.equal(r.failed, 0);
    assert.ok(
      r.fired.every((f) => f.executionId),
      `nothing dropped at ${new Date(t).toISOString()}: ${JSON.stringify(r.fired)}`,
    );
  }
  const clock = new ZoneClock(zone);
  const runs = await scheduledRuns(w.pool, `trigger_payload->>'fire_time' BETWEEN $1 AND $2 AND trigger_payload->>'timezone' = $3`, [from, to, zone]);
  const out: Record<string, string[]> = {};
  for (const r of runs) {
    const local = new Date(clock.wallOf(Date.parse(r.fire_time))).toISOString().slice(11, 16);
    (out[r.trigger_id] ??= []).push(`${r.fire_time.slice(11, 16)}=${local}`);
  }
  return out;
}

test('Europe/Berlin, spring forward: 02:30 (skipped) fires once at 03:00; every 30 minutes goes 01:30, 03:00, 03:30', async () => {
  const fires = await ticked('Europe/Berlin', '2026-03-28T22:59:00.000Z', '2026-03-29T03:00:00.000Z');
  assert.deepEqual(fires.daily_0230, ['01:00=03:00']);
  assert.deepEqual(fires.half_hourly, ['23:00=00:00', '23:30=00:30', '00:00=01:00', '00:30=01:30', '01:00=03:00', '01:30=03:30', '02:00=04:00', '02:30=04:30', '03:00=05:00']);
});

test('Europe/Berlin, fall back: 02:30 fires once (first pass); every 30 minutes fires 02:00 and 02:30 once each', async () => {
  const fires = await ticked('Europe/Berlin', '2026-10-24T22:59:00.000Z', '2026-10-25T03:00:00.000Z');
  assert.deepEqual(fires.daily_0230, ['00:30=02:30']);
  assert.deepEqual(fires.half_hourly, ['23:00=01:00', '23:30=01:30', '00:00=02:00', '00:30=02:30', '02:00=03:00', '02:30=03:30', '03:00=04:00']);
});

test('America/New_York, spring forward: 02:15 (skipped) fires once at 03:00; hourly fires 01:00 then 03:00', async () => {
  const fires = await ticked('America/New_York', '2026-03-08T04:59:00.000Z', '2026-03-08T09:00:00.000Z');
  assert.deepEqual(fires.daily_0215, ['07:00=03:00']);
  assert.deepEqual(fires.daily_0130, ['06:30=01:30']);
  assert.deepEqual(fires.hourly, ['05:00=00:00', '06:00=01:00', '07:00=03:00', '08:00=04:00', '09:00=05:00']);
});

test('America/New_York, fall back: 01:30 fires once; hourly fires the repeated 01:00 once', async () => {
  const fires = await ticked('America/New_York', '2026-11-01T03:59:00.000Z', '2026-11-01T09:00:00.000Z');
  assert.deepEqual(fires.daily_0130, ['05:30=01:30']);
  assert.deepEqual(fires.daily_0215, ['07:15=02:15']);
  assert.deepEqual(fires.hourly, ['04:00=00:00', '05:00=01:00', '07:00=02:00', '08:00=03:00', '09:00=04:00']);
});
