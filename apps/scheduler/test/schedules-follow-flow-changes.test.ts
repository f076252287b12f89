// Changing, disabling or deleting a flow's schedule takes effect without a
// restart: a running scheduler loop (injected clock, short intervals) picks
// each change up from `flow_triggers` on its next sync, and a change it has
// not synced yet never fires the old schedule.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { at, flowFile, scheduledRuns, startWorld, type World } from './support.js';

let w: World;
let clock = at('2032-07-01T08:00:30Z');
let loop: { stop(): Promise<void> };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until<T>(what: string, fn: () => Promise<T | undefined | null | false>, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}
const scheduleRow = async (flow: string) =>
  (await w.pool.query(`SELECT cron, timezone, catch_up, next_fire_at FROM schedules WHERE namespace = 'changes' AND flow_id = $1`, [flow])).rows[0] as
    { cron: string; timezone: string; catch_up: string; next_fire_at: Date } | undefined;

before(async () => {
  w = await startWorld();
  loop = w.scheduler({ now: () => clock, tickMs: 20, syncMs: 40, sweepMs: 1000 }).start();
});
after(async () => {
  await loop.stop();
  await w.close();
});

test('a new schedule gets a row with the first fire time after now, and fires when the clock passes it', async () => {
  await w.save('changes', { 'etl.flow.yaml': flowFile('etl', [{ id: 'hourly', type: 'schedule', cron: '0 * * * *' }]) });
  const row = await until('the schedule row', () => scheduleRow('etl'));
  assert.equal(row.next_fire_at.toISOString(), '2032-07-01T09:00:00.000Z');
  assert.deepEqual([row.cron, row.timezone, row.catch_up], ['0 * * * *', 'UTC', 'last']);
  clock = at('2032-07-01T09:00:02Z');
  const [run] = await until('the 09:00 execution', async () => (await scheduledRuns(w.pool, `flow_id = 'etl'`)).length === 1 && scheduledRuns(w.pool, `flow_id = 'etl'`));
  assert.equal(run!.fire_time, '2032-07-01T09:00:00.000Z');
});

test('changing the cron and time zone recomputes the next fire time; the old time does not fire', async () => {
  await w.save('changes', { 'etl.flow.yaml': flowFile('etl', [{ id: 'hourly', type: 'schedule', cron: '45 11 * * *', timezone: 'Asia/Tokyo' }]) });
  const row = await until('the new cron', async () => ((await scheduleRow('etl'))?.cron === '45 11 * * *' ? scheduleRow('etl') : undefined));
  // 11:45 in Tokyo (UTC+9) is 02:45 UTC; the clock is at 09:00 UTC on 1 July.
  assert.equal(row!.next_fire_at.toISOString(), '2032-07-02T02:45:00.000Z');
  assert.equal(row!.timezone, 'Asia/Tokyo');
  clock = at('2032-07-01T10:00:03Z'); // the old hourly time
  await sleep(200);
  assert.equal((await scheduledRuns(w.pool, `flow_id = 'etl'`)).length, 1);
});

test('a disabled flow loses its schedule and does not fire; enabled again it resumes from now', async () => {
  await w.pool.query(`UPDATE flows SET enabled = false WHERE namespace = 'changes' AND flow_id = 'etl'`);
  // Whether or not the sync got there first, the fire time passes with no execution.
  clock = at('2032-07-02T02:45:01Z');
  await until('the row deleted', async () => !(await scheduleRow('etl')));
  await sleep(100);
  assert.equal((await scheduledRuns(w.pool, `flow_id = 'etl'`)).length, 1);
  clock = at('2032-07-05T00:00:00Z');
  // A sync pass that read the clock before it moved could otherwise see the flow enabled and place
  // the row after the old time (seen once in a full run); passes are 40 ms apart and take milliseconds.
  await sleep(300);
  await w.pool.query(`UPDATE flows SET enabled = true WHERE namespace = 'changes' AND flow_id = 'etl'`);
  const row = await until('the row back', () => scheduleRow('etl'));
  // No catch-up of the days it was disabled: the next time after now.
  assert.equal(row.next_fire_at.toISOString(), '2032-07-05T02:45:00.000Z');
  await sleep(100);
  assert.equal((await scheduledRuns(w.pool, `flow_id = 'etl'`)).length, 1);
});

test('a schedule the sync has not caught up with yet does not fire (the claim checks the trigger and the flow)', async () => {
  await loop.stop();
  const s = w.scheduler();
  await w.pool.query(`UPDATE flows SET enabled = false WHERE namespace = 'changes' AND flow_id = 'etl'`);
  const r = await s.tick(at('2032-07-05T02:45:10Z'));
  assert.equal(r.fired.length, 0);
  assert.ok(await scheduleRow('etl'), 'the row is still there: only the sync deletes it');
  await s.sync(at('2032-07-05T02:45:10Z'));
  assert.equal(await scheduleRow('etl'), undefined);
  await w.pool.query(`UPDATE flows SET enabled = true WHERE namespace = 'changes' AND flow_id = 'etl'`);
  loop = w.scheduler({ now: () => clock, tickMs: 20, syncMs: 40, sweepMs: 1000 }).start();
});

test('removing the trigger, then deleting the flow file, deletes the schedule rows', async () => {
  await w.save('changes', {
    'etl.flow.yaml': flowFile('etl', []),
    'other.flow.yaml': flowFile('other', [{ id: 'daily', type: 'schedule', cron: '@daily', timezone: 'Europe/Berlin' }]),
  });
  await until('etl row deleted and other row created', async () => !(await scheduleRow('etl')) && (await scheduleRow('other')));
  assert.equal((await scheduleRow('other'))!.next_fire_at.toISOString(), '2032-07-05T22:00:00.000Z');
  await w.save('changes', { 'other.flow.yaml': null });
  await until('other row deleted', async () => !(await scheduleRow('other')));
  clock = at('2032-07-06T00:00:00Z');
  await sleep(100);
  assert.equal((await scheduledRuns(w.pool, `flow_id = 'other'`)).length, 0);
});
