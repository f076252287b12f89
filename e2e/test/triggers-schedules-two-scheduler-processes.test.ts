// Schedules with two real scheduler processes on one database: the schedules
// appear in listUpcomingSchedules, every due fire time starts exactly one
// execution however the two processes race, and a disabled flow drops out.
// Fire times are made due by moving next_fire_at back (catch_up `last` then
// fires the latest minute), so the test does not wait for the clock.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startStack, type Stack } from './stack.js';
import { flow, sh, sleep, until } from './engine-support.js';

let s: Stack;
const NS = 'sched.team';
const FLOWS = 20;

before(async () => {
  s = await startStack();
  for (let i = 0; i < 2; i++) s.startApp('scheduler', { SVC_SCHEDULER_TICK_MS: '50', SVC_SCHEDULER_SYNC_MS: '200' });
  const files: Record<string, string> = {};
  for (let i = 0; i < FLOWS; i++) {
    files[`f${i}.flow.yaml`] = flow({
      id: `f${i}`,
      triggers: [{ id: 'minutely', type: 'schedule', cron: '* * * * *' }],
      tasks: [{ id: 't', type: 'command', command: sh('true') }],
    });
  }
  files['berlin.flow.yaml'] = flow({
    id: 'berlin',
    triggers: [{ id: 'morning', type: 'schedule', cron: '0 7 * * 1-5', timezone: 'Europe/Berlin', catch_up: 'none' }],
    tasks: [{ id: 't', type: 'command', command: sh('true') }],
  });
  await s.saveFlow(NS, files);
  await s.saveFlow('elsewhere', {
    'x.flow.yaml': flow({ id: 'x', triggers: [{ id: 'hourly', type: 'schedule', cron: '@hourly' }], tasks: [{ id: 't', type: 'command', command: sh('true') }] }),
  });
});
after(() => s.stop());

test('listUpcomingSchedules pages through the active schedules, soonest first, filtered by namespace and its children', async () => {
  await until('all schedules synced', async () => (await s.db.query(`SELECT count(*)::int AS n FROM schedules`)).rows[0].n === FLOWS + 2);
  const seen: any[] = [];
  let cursor: string | undefined;
  do {
    const r = await s.api('GET', `/api/v1/schedules/upcoming?namespace=sched&limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.ok(r.body.items.length <= 7);
    seen.push(...r.body.items);
    cursor = r.body.next_cursor;
  } while (cursor);
  assert.equal(seen.length, FLOWS + 1, 'the child namespace sched.team is included, elsewhere is not');
  const times = seen.map((x) => Date.parse(x.next_fire_at));
  assert.deepEqual(
    times,
    [...times].sort((a, b) => a - b),
  );
  const berlin = seen.find((x) => x.flow_id === 'berlin');
  assert.equal(berlin.timezone, 'Europe/Berlin');
  assert.equal(berlin.cron, '0 7 * * 1-5');
  // 07:00 in Berlin is 05:00 or 06:00 UTC.
  assert.match(berlin.next_fire_at, /T0[56]:00:00(\.000)?Z$/);
  const f0 = seen.find((x) => x.flow_id === 'f0');
  assert.equal(Date.parse(f0.next_fire_at) % 60_000, 0);
  assert.ok(Date.parse(f0.next_fire_at) > Date.now() - 5_000 && Date.parse(f0.next_fire_at) <= Date.now() + 61_000);
});

test('two scheduler processes fire each due time of each schedule exactly once', async () => {
  // Three rounds of making every minutely schedule due at once, with both processes ticking every 50 ms.
  // The latest due minute is the same in each round (unless a minute passes): the later rounds must
  // find it fired already and start nothing more.
  for (let round = 0; round < 3; round++) {
    await s.db.query(`UPDATE schedules SET next_fire_at = next_fire_at - interval '3 minutes' WHERE cron = '* * * * *'`);
    await until('the round handled', async () => (await s.db.query(`SELECT count(*)::int AS n FROM schedules WHERE cron = '* * * * *' AND next_fire_at <= now()`)).rows[0].n === 0);
  }
  await sleep(500);
  const runs = (await s.db.query(`SELECT flow_id, trigger_payload->>'fire_time' AS fire_time, state FROM executions WHERE trigger_type = 'schedule'`)).rows;
  const fires = (await s.db.query(`SELECT flow_id, fire_time, execution_id FROM schedule_fires`)).rows;
  assert.ok(runs.length >= FLOWS, `every flow fired at least once (${runs.length})`);
  const keys = runs.map((r) => `${r.flow_id}@${r.fire_time}`);
  assert.equal(new Set(keys).size, keys.length, 'no fire time started two executions');
  assert.equal(fires.length, runs.length);
  assert.ok(fires.every((f) => f.execution_id));
  for (let i = 0; i < FLOWS; i++)
    assert.ok(
      runs.some((r) => r.flow_id === `f${i}`),
      `f${i} fired`,
    );
  // Each fire time is a whole minute.
  assert.ok(runs.every((r) => Date.parse(r.fire_time) % 60_000 === 0));
  // Both processes are alive and registered.
  assert.equal((await s.db.query(`SELECT count(*)::int AS n FROM instances WHERE kind = 'scheduler' AND stopped_at IS NULL`)).rows[0].n, 2);
});

test('a disabled flow leaves the upcoming list and does not fire; a changed cron shows at once', async () => {
  assert.equal((await s.api('PATCH', `/api/v1/flows/${NS}/f0`, { enabled: false })).status, 200);
  await until('f0 gone from upcoming', async () => !(await s.api('GET', `/api/v1/schedules/upcoming?namespace=${NS}&limit=100`)).body.items.some((x: any) => x.flow_id === 'f0'));
  const before = (await s.db.query(`SELECT count(*)::int AS n FROM executions WHERE flow_id = 'f0'`)).rows[0].n;
  await s.db.query(`UPDATE schedules SET next_fire_at = next_fire_at - interval '3 minutes' WHERE cron = '* * * * *'`);
  await sleep(600);
  assert.equal((await s.db.query(`SELECT count(*)::int AS n FROM executions WHERE flow_id = 'f0'`)).rows[0].n, before);

  await s.saveFlow(NS, {
    'f1.flow.yaml': flow({
      id: 'f1',
      triggers: [{ id: 'minutely', type: 'schedule', cron: '0 12 1 1 *', timezone: 'Asia/Kolkata' }],
      tasks: [{ id: 't', type: 'command', command: sh('true') }],
    }),
  });
  const f1 = await until('the new cron listed', async () =>
    (await s.api('GET', `/api/v1/schedules/upcoming?namespace=${NS}&limit=100`)).body.items.find((x: any) => x.flow_id === 'f1' && x.cron === '0 12 1 1 *'),
  );
  // 12:00 in Kolkata (UTC+5:30) on 1 January is 06:30 UTC.
  assert.match(f1.next_fire_at, /-01-01T06:30:00(\.000)?Z$/);
});
