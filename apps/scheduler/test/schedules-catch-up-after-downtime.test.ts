// catch_up after a simulated downtime (the clock is injected, nothing
// sleeps): `last` fires only the latest missed time, `none` fires no missed
// time; a time at most 60 s late still counts as on time for `none`.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import client from 'prom-client';
import { at, flowFile, scheduledRuns, startWorld, type World } from './support.js';

let w: World;

before(async () => {
  w = await startWorld();
  await w.save('catchup', {
    'last.flow.yaml': flowFile('last', [{ id: 'ten', type: 'schedule', cron: '*/10 * * * *', catch_up: 'last' }]),
    'default.flow.yaml': flowFile('default', [{ id: 'ten', type: 'schedule', cron: '*/10 * * * *' }]),
    'none.flow.yaml': flowFile('none', [{ id: 'ten', type: 'schedule', cron: '*/10 * * * *', catch_up: 'none' }]),
  });
});
after(() => w.close());

const firesOf = async (flow: string) => (await scheduledRuns(w.pool, 'flow_id = $1', [flow])).map((r) => r.fire_time.slice(11, 16));

test('before the downtime all three fire on time', async () => {
  const s = w.scheduler();
  await s.sync(at('2031-02-03T09:55:00Z'));
  await s.tick(at('2031-02-03T10:00:01Z'));
  for (const f of ['last', 'default', 'none']) assert.deepEqual(await firesOf(f), ['10:00'], f);
});

test('after two hours down, catch_up last (and the default) fires only the latest missed time; none fires nothing', async () => {
  // Down from 10:00:01 to 12:05:00: 10:10 ... 12:00 were missed (12 times); 12:00 is 5 minutes late.
  const s = w.scheduler();
  await s.sync(at('2031-02-03T12:05:00Z')); // nothing changed: the stored next fire times stay
  const r = await s.tick(at('2031-02-03T12:05:00Z'));
  const byFlow = Object.fromEntries(r.fired.map((f) => [f.flowId, f]));
  assert.equal(byFlow.last!.fireTime!.toISOString(), '2031-02-03T12:00:00.000Z');
  assert.equal(byFlow.none!.fireTime, null);
  assert.equal(byFlow.none!.skipped, 'dropped');
  assert.deepEqual(await firesOf('last'), ['10:00', '12:00']);
  assert.deepEqual(await firesOf('default'), ['10:00', '12:00']);
  assert.deepEqual(await firesOf('none'), ['10:00']);
  // All three wait for 12:10 now.
  const next = (await w.pool.query(`SELECT flow_id, next_fire_at FROM schedules ORDER BY flow_id`)).rows.map((x) => [x.flow_id, new Date(x.next_fire_at).toISOString()]);
  assert.deepEqual(next, [
    ['default', '2031-02-03T12:10:00.000Z'],
    ['last', '2031-02-03T12:10:00.000Z'],
    ['none', '2031-02-03T12:10:00.000Z'],
  ]);
  // The fire time of the late execution is the missed time, not the tick.
  const late = (await scheduledRuns(w.pool, `flow_id = 'last' AND trigger_payload->>'fire_time' LIKE '%T12:00%'`))[0]!;
  assert.equal(late.fire_time, '2031-02-03T12:00:00.000Z');
});

test('catch_up none: a restart within 60 s of a fire time still fires it; 61 s late does not', async () => {
  const s = w.scheduler();
  await s.tick(at('2031-02-03T12:10:59Z')); // 59 s late
  assert.deepEqual(await firesOf('none'), ['10:00', '12:10']);
  await s.tick(at('2031-02-03T12:21:01Z')); // 61 s late
  assert.deepEqual(await firesOf('none'), ['10:00', '12:10']);
  assert.deepEqual(await firesOf('last'), ['10:00', '12:00', '12:10', '12:20']);
});

test('a downtime of several days with catch_up last still fires one execution, the latest time', async () => {
  const s = w.scheduler();
  const beforeCount = (await firesOf('last')).length;
  const r = await s.tick(at('2031-02-07T08:34:00Z'));
  assert.equal(r.fired.find((f) => f.flowId === 'last')!.fireTime!.toISOString(), '2031-02-07T08:30:00.000Z');
  assert.equal((await firesOf('last')).length, beforeCount + 1);
});

test('/metrics counts the fires by outcome and how late each execution started after its fire time', async () => {
  const registry = new client.Registry();
  const s = w.scheduler({ metrics: registry });
  const fresh = await registry.metrics();
  assert.match(fresh, /^svc_schedule_fires_total\{outcome="execution"\} 0$/m);
  assert.match(fresh, /^svc_schedule_fire_errors_total 0$/m);
  // 08:40 is due; at 08:45 it is 300 s late: last and default fire it, none drops it.
  await s.tick(at('2031-02-07T08:45:00Z'));
  const text = await registry.metrics();
  assert.match(text, /^svc_schedule_fires_total\{outcome="execution"\} 2$/m);
  assert.match(text, /^svc_schedule_fires_total\{outcome="dropped"\} 1$/m);
  assert.match(text, /^svc_schedule_fire_lag_seconds_count 2$/m);
  assert.match(text, /^svc_schedule_fire_lag_seconds_sum 600$/m);
  assert.match(text, /^svc_schedule_fire_errors_total 0$/m);
});
