// A dispatcher whose own clock is ten minutes behind the database's: its
// claims, task heartbeats and ends are written with the database's clock, so
// the watchdog's rules (judged by the database's clock, as the maintenance
// holder runs them) neither see its running task as timed out or lost, and
// the run's duration is measured on one clock.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { failLostTaskRuns, timeOutTaskRuns } from '@svc/engine/internal';
import { startDispatcher, until, type DispatcherEnv } from './support.js';

const SKEW_MS = -10 * 60_000;
let env: DispatcherEnv;

before(async () => {
  env = await startDispatcher(
    { 'slow.flow.yaml': JSON.stringify({ id: 'slow', tasks: [{ id: 't', type: 'command', timeout: '5m', command: ['sh', '-c', 'sleep 1.5; echo ok'] }] }) },
    { clock: { now: () => new Date(Date.now() + SKEW_MS) } },
  );
});
after(() => env.close());

test('the running task of a dispatcher whose clock is 10 minutes behind is neither timed out nor lost', async () => {
  const id = await env.trigger('slow');
  const run = await until(
    'the task to run',
    async () => (await env.pool.query(`SELECT id, started_at, timeout_at, last_heartbeat_at FROM task_runs WHERE execution_id = $1 AND state = 'RUNNING'`, [id])).rows[0],
  );
  const dbNow = (await env.pool.query<{ now: Date }>(`SELECT now()`)).rows[0]!.now.getTime();
  assert.ok(Math.abs(run.started_at.getTime() - dbNow) < 30_000, `started by the database's clock: ${run.started_at.toISOString()}`);
  // What the maintenance holder's watchdog runs, by the database's clock.
  assert.deepEqual((await timeOutTaskRuns(env.pool)).ids, []);
  assert.deepEqual((await failLostTaskRuns(env.pool)).ids, []);
  await new Promise((r) => setTimeout(r, 700)); // a task heartbeat (every 200 ms here) was written meanwhile
  const hb = (await env.pool.query(`SELECT last_heartbeat_at FROM task_runs WHERE id = $1`, [run.id])).rows[0].last_heartbeat_at as Date;
  assert.ok(Math.abs(hb.getTime() - Date.now()) < 30_000, `task heartbeat by the database's clock: ${hb.toISOString()}`);
  const ex = await env.ended(id);
  assert.equal(ex.state, 'SUCCESS', JSON.stringify(ex));
  const d = Number(ex.runs[0]!.duration_ms);
  assert.ok(d >= 1000 && d < 60_000, `duration on one clock: ${d} ms`);
});
