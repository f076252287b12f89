// listUpcomingSchedules (the statement behind GET /api/v1/schedules/upcoming)
// lists what the scheduler fires and when: next fire times computed in each
// trigger's time zone across daylight-saving changes, and nothing of a
// disabled flow, a removed trigger, or a trigger changed but not synced yet.
// Flows are saved as users save them; the scheduler syncs and ticks at an
// injected clock.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { listUpcomingSchedules } from '@svc/scheduling';
import { setFlowEnabled } from '@svc/namespaces';
import { at, flowFile, startWorld, type World } from './support.js';

let w: World;

before(async () => {
  w = await startWorld();
});
after(() => w.close());

const upcoming = async (namespace?: string) =>
  (await listUpcomingSchedules(w.pool, { namespace, limit: 100 })).map((s) => `${s.flow_id}/${s.trigger_id} ${s.timezone} ${s.next_fire_at.toISOString()}`);

test('next fire times honour each time zone across a daylight-saving change, and move on once fired', async () => {
  await w.save('zones', {
    'berlin.flow.yaml': flowFile('berlin', [
      // 02:30 does not exist on 29 March 2026 in Berlin (02:00 → 03:00): it fires at 03:00 CEST.
      { id: 'daily_0230', type: 'schedule', cron: '30 2 * * *', timezone: 'Europe/Berlin', catch_up: 'none' },
    ]),
    'newyork.flow.yaml': flowFile('newyork', [
      // 8 March 2026 in New York (02:00 → 03:00): 02:15 fires at 03:00 EDT.
      { id: 'daily_0215', type: 'schedule', cron: '15 2 * * *', timezone: 'America/New_York', catch_up: 'none' },
    ]),
    'utc.flow.yaml': flowFile('utc', [{ id: 'daily_0230', type: 'schedule', cron: '30 2 * * *' }]),
  });
  const s = w.scheduler();
  await s.sync(at('2026-03-07T12:00:00Z'));
  assert.deepEqual(
    await upcoming('zones'),
    ['berlin/daily_0230 Europe/Berlin 2026-03-08T01:30:00.000Z', 'utc/daily_0230 UTC 2026-03-08T02:30:00.000Z', 'newyork/daily_0215 America/New_York 2026-03-08T07:00:00.000Z'],
    'soonest first, each in its zone: Berlin on CET (UTC+1); in New York 02:15 is skipped that day, so 03:00 EDT (UTC-4)',
  );

  // Fired on the DST day in New York: the next is 02:15 EDT the day after.
  await s.tick(at('2026-03-08T07:00:00Z', 5));
  assert.ok((await upcoming('zones')).includes('newyork/daily_0215 America/New_York 2026-03-09T06:15:00.000Z'));

  // Berlin, synced the evening before its change: the skipped 02:30 is listed at 03:00 CEST (01:00 UTC).
  await w.pool.query(`DELETE FROM schedules WHERE flow_id = 'berlin'`);
  await s.sync(at('2026-03-28T20:00:00Z'));
  assert.ok((await upcoming('zones')).includes('berlin/daily_0230 Europe/Berlin 2026-03-29T01:00:00.000Z'));
  await s.tick(at('2026-03-29T01:00:00Z', 5));
  assert.ok((await upcoming('zones')).includes('berlin/daily_0230 Europe/Berlin 2026-03-30T00:30:00.000Z'), '02:30 CEST the next day');
});

test('a disabled flow, a removed trigger and a trigger changed but not synced yet are not listed; they are again once re-enabled or synced', async () => {
  await w.save('gone', {
    'a.flow.yaml': flowFile('a', [{ id: 'nightly', type: 'schedule', cron: '0 3 * * *' }]),
    'b.flow.yaml': flowFile('b', [
      { id: 'nightly', type: 'schedule', cron: '0 4 * * *' },
      { id: 'weekly', type: 'schedule', cron: '0 5 * * 1' },
    ]),
  });
  const s = w.scheduler();
  const now = at('2026-06-10T12:00:00Z');
  await s.sync(now);
  assert.deepEqual(await upcoming('gone'), ['a/nightly UTC 2026-06-11T03:00:00.000Z', 'b/nightly UTC 2026-06-11T04:00:00.000Z', 'b/weekly UTC 2026-06-15T05:00:00.000Z']);

  // Disabled: gone from the list at once, before any sync deletes its row.
  await setFlowEnabled(w.pool, 'gone', 'a', false, now);
  assert.deepEqual(await upcoming('gone'), ['b/nightly UTC 2026-06-11T04:00:00.000Z', 'b/weekly UTC 2026-06-15T05:00:00.000Z']);

  // A trigger removed from the flow and another one's cron changed: neither listed until the sync.
  await w.save('gone', { 'b.flow.yaml': flowFile('b', [{ id: 'nightly', type: 'schedule', cron: '0 6 * * *' }]) });
  assert.equal((await w.pool.query(`SELECT count(*)::int AS n FROM schedules WHERE namespace = 'gone'`)).rows[0].n, 3, 'not synced yet');
  assert.deepEqual(await upcoming('gone'), []);

  await setFlowEnabled(w.pool, 'gone', 'a', true, now);
  await s.sync(now);
  assert.deepEqual(await upcoming('gone'), ['a/nightly UTC 2026-06-11T03:00:00.000Z', 'b/nightly UTC 2026-06-11T06:00:00.000Z']);
});
