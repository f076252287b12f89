// Two scheduler instances (each on its own connection pool, as two processes
// would be) sync and tick at the same instants against one database: every
// fire time of every schedule starts exactly one execution.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { at, flowFile, scheduledRuns, startWorld, type World } from './support.js';

let w: World;
const FLOWS = 40;

before(async () => {
  w = await startWorld();
  const files: Record<string, string> = {};
  for (let i = 0; i < FLOWS; i++) files[`f${i}.flow.yaml`] = flowFile(`f${i}`, [{ id: 'every_minute', type: 'schedule', cron: '* * * * *' }]);
  // One flow with two schedules that share fire times: each trigger fires its own.
  files['two.flow.yaml'] = flowFile('two', [
    { id: 'a', type: 'schedule', cron: '*/2 * * * *' },
    { id: 'b', type: 'schedule', cron: '*/2 * * * *' },
  ]);
  await w.save('once', files);
});
after(() => w.close());

test('two schedulers ticking at once fire each fire time of each schedule exactly once', async () => {
  const a = w.scheduler({ batchSize: 7 });
  const b = w.scheduler({ batchSize: 7 });
  const start = '2030-05-01T10:00:30Z';
  const synced = await Promise.all([a.sync(at(start)), b.sync(at(start))]);
  const rows = (await w.pool.query(`SELECT count(*)::int AS n, min(next_fire_at) AS first FROM schedules`)).rows[0];
  assert.equal(rows.n, FLOWS + 2, 'one schedule row per schedule trigger');
  assert.equal(new Date(rows.first).toISOString(), '2030-05-01T10:01:00.000Z');
  assert.equal(synced[0].upserted + synced[1].upserted >= FLOWS + 2, true);

  // Five minutes, each tick at once on both instances, twice per minute.
  let firedByA = 0;
  let firedByB = 0;
  for (let m = 1; m <= 5; m++) {
    for (const s of [1, 20]) {
      const now = at(start, m * 60 - 30 + s);
      const [ra, rb] = await Promise.all([a.tick(now), b.tick(now)]);
      assert.equal(ra.failed + rb.failed, 0);
      firedByA += ra.fired.filter((f) => f.executionId).length;
      firedByB += rb.fired.filter((f) => f.executionId).length;
    }
  }
  const runs = await scheduledRuns(w.pool);
  // Every minute 10:01-10:05 for 40 flows, and 10:02, 10:04 for each of the two triggers of `two`.
  assert.equal(runs.length, FLOWS * 5 + 4);
  const keys = runs.map((r) => `${r.flow_id}/${r.trigger_id}@${r.fire_time}`);
  assert.equal(new Set(keys).size, keys.length, 'no fire time fired twice');
  assert.equal(firedByA + firedByB, runs.length);
  // Both instances did part of the work (SKIP LOCKED shares it, it does not serialize it onto one).
  assert.ok(firedByA > 0 && firedByB > 0, `a fired ${firedByA}, b fired ${firedByB}`);
  for (let i = 0; i < FLOWS; i++) {
    const times = runs.filter((r) => r.flow_id === `f${i}`).map((r) => r.fire_time);
    assert.deepEqual(
      times,
      [1, 2, 3, 4, 5].map((m) => `2030-05-01T10:0${m}:00.000Z`),
    );
  }
  assert.deepEqual(
    runs.filter((r) => r.flow_id === 'two').map((r) => `${r.trigger_id}@${r.fire_time.slice(11, 16)}`),
    ['a@10:02', 'b@10:02', 'a@10:04', 'b@10:04'],
  );
  // The marker rows point at the executions.
  const fires = (await w.pool.query(`SELECT count(*)::int AS n, count(execution_id)::int AS with_execution FROM schedule_fires`)).rows[0];
  assert.deepEqual(fires, { n: runs.length, with_execution: runs.length });
  const ex = (await w.pool.query(`SELECT trigger_type, trigger_id, created_by, trigger_payload FROM executions WHERE flow_id = 'f0' ORDER BY created_at LIMIT 1`)).rows[0];
  assert.deepEqual(ex, {
    trigger_type: 'schedule',
    trigger_id: 'every_minute',
    created_by: 'schedule',
    trigger_payload: { fire_time: '2030-05-01T10:01:00.000Z', schedule: 'every_minute', cron: '* * * * *', timezone: 'UTC' },
  });
  const next = (await w.pool.query(`SELECT DISTINCT next_fire_at FROM schedules WHERE flow_id LIKE 'f%'`)).rows;
  assert.deepEqual(
    next.map((r) => new Date(r.next_fire_at).toISOString()),
    ['2030-05-01T10:06:00.000Z'],
  );
});

test('the same fire time ticked again by either instance starts nothing more', async () => {
  const before = (await scheduledRuns(w.pool)).length;
  const a = w.scheduler();
  const b = w.scheduler();
  const now = at('2030-05-01T10:05:40Z');
  const [ra, rb] = await Promise.all([a.tick(now), b.tick(now)]);
  assert.equal(ra.fired.length + rb.fired.length, 0);
  assert.equal((await scheduledRuns(w.pool)).length, before);
});

test('a schedule row moved back onto a fire time already fired (e.g. re-created) does not fire it again: the marker row is unique', async () => {
  const before = (await scheduledRuns(w.pool)).length;
  await w.pool.query(`UPDATE schedules SET next_fire_at = '2030-05-01T10:05:00Z' WHERE flow_id = 'f3'`);
  const r = await w.scheduler().tick(at('2030-05-01T10:05:30Z'));
  assert.deepEqual(
    r.fired.map((f) => [f.flowId, f.skipped, f.next.toISOString()]),
    [['f3', 'already_fired', '2030-05-01T10:06:00.000Z']],
  );
  assert.equal((await scheduledRuns(w.pool)).length, before);
});
