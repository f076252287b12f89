// Ending a task run takes no lock on its execution and leaves a planning
// request; planning passes (here two Planners on pools of their own, as two
// dispatchers would run them) plan what was requested. Many runs of one
// execution ending at once must still queue the join task exactly once, end
// the execution exactly once, and leave no request behind; retries are
// decided by the planner, once per failed attempt, their backoff counted from
// the attempt's end. Real PostgreSQL, flows saved through @svc/namespaces.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type pg from 'pg';
import { claimRuns, endTaskRun, Planner, Planning, planExecutions, triggerFlow, type StartDeps } from '../src/internal.js';
import { engineFixture, type EngineFixture } from './support/fixture.js';

let fx: EngineFixture;
let pool: pg.Pool;
let deps: StartDeps;
const FAN = 30;
const newPool = () => fx.newPool();

before(async () => {
  const fan = Array.from({ length: FAN }, (_, i) => ({ id: `t${i}`, type: 'command', command: ['true'] }));
  fx = await engineFixture('plan', {
    'fan.flow.yaml': { id: 'fan', tasks: [...fan, { id: 'last', type: 'command', command: ['true'], depends_on: fan.map((t) => t.id) }] },
    'retry.flow.yaml': { id: 'retry', tasks: [{ id: 'flaky', type: 'command', command: ['false'], retry: { max_attempts: 3, backoff: 'fixed', initial: '3s' } }] },
  });
  ({ pool, deps } = fx);
});
after(() => fx.close());

const claimAll = async () => (await claimRuns(pool, { instanceId: 'test', pools: ['default'], executorType: 'process', limit: 1000, now: new Date() })).runs;
const ok = { state: 'SUCCESS' as const, reason: '', error: '', exitCode: 0 };
const failed = { state: 'FAILED' as const, reason: 'exit_code', error: 'exit code 1', exitCode: 1 };

async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('30 runs of one execution ending at once, planned by two planners: the join task is queued once, the execution ends once, no request is left', async () => {
  const { id } = await triggerFlow(pool, deps, { namespace: 'plan', flowId: 'fan', triggerType: 'manual', createdBy: 'test' });
  const runs = await claimAll();
  assert.equal(runs.length, FAN, 'every fan task was QUEUED at start and is claimed');
  const planners = [newPool(), newPool()].map(
    (p) => new Planner({ planning: new Planning(p), now: () => new Date(), followUps: async () => undefined, onError: (err) => assert.fail(String(err)), pollMs: 0 }),
  );
  await Promise.all(
    runs.map(async (r, i) => {
      assert.ok(await endTaskRun(pool, r.id, ok, () => new Date()));
      await planners[i % 2]!.kick();
    }),
  );
  await Promise.all(planners.map((p) => p.kick()));
  const last = await until('the join task to be queued', async () =>
    (await pool.query(`SELECT id, state FROM task_runs WHERE execution_id = $1 AND task_key = 'last'`, [id])).rows.find((r) => r.state === 'QUEUED'),
  );
  const lastRuns = await pool.query(`SELECT id FROM task_runs WHERE execution_id = $1 AND task_key = 'last'`, [id]);
  assert.equal(lastRuns.rowCount, 1, 'one task run for the join task');
  const queuedRows = await pool.query(`SELECT count(*)::int AS n FROM execution_history WHERE task_run_id = $1 AND to_state = 'QUEUED'`, [last.id]);
  assert.equal(queuedRows.rows[0].n, 1, 'queued once');
  assert.equal((await pool.query(`SELECT count(*)::int AS n FROM plan_requests WHERE execution_id = $1`, [id])).rows[0].n, 0, 'every request was planned');

  const [joined] = await claimAll();
  assert.equal(joined?.id, last.id);
  await endTaskRun(pool, joined!.id, ok, () => new Date());
  // A repeated report changes nothing and asks for no planning.
  assert.equal(await endTaskRun(pool, joined!.id, failed, () => new Date()), null);
  await Promise.all([planExecutions(newPool(), () => new Date()), planExecutions(newPool(), () => new Date())]);
  const ex = (await pool.query(`SELECT state, ended_at FROM executions WHERE id = $1`, [id])).rows[0];
  assert.equal(ex.state, 'SUCCESS');
  const ends = await pool.query(`SELECT count(*)::int AS n FROM execution_history WHERE execution_id = $1 AND task_run_id IS NULL AND to_state = 'SUCCESS'`, [id]);
  assert.equal(ends.rows[0].n, 1, 'the execution ended once');
  const doneRun = (await pool.query(`SELECT state FROM task_runs WHERE id = $1`, [joined!.id])).rows[0];
  assert.equal(doneRun.state, 'SUCCESS', 'the late FAILED report did not overwrite the end');
  await Promise.all(planners.map((p) => p.stop()));
});

test('a failed attempt gets exactly one retry per attempt, not claimable before its backoff counted from the failed end; the last failure ends the execution', async () => {
  const { id } = await triggerFlow(pool, deps, { namespace: 'plan', flowId: 'retry', triggerType: 'manual', createdBy: 'test' });
  for (let attempt = 1; attempt <= 3; attempt++) {
    const [run] = await until(`attempt ${attempt} to be claimable`, async () => {
      const r = await claimAll();
      return r.length ? r : null;
    });
    assert.equal(run!.attempt, attempt);
    await endTaskRun(pool, run!.id, failed, () => new Date());
    // Planned twice, by two passes: still one new attempt.
    await planExecutions(pool, () => new Date());
    await planExecutions(newPool(), () => new Date(), [id]);
    const rows = (await pool.query(`SELECT attempt, state, not_before, ended_at FROM task_runs WHERE execution_id = $1 ORDER BY attempt`, [id])).rows;
    if (attempt < 3) {
      assert.equal(rows.length, attempt + 1, `one new attempt after attempt ${attempt}`);
      const next = rows[attempt]!;
      assert.equal(next.state, 'QUEUED');
      assert.equal(next.not_before.getTime() - rows[attempt - 1]!.ended_at.getTime(), 3000, 'the backoff counts from the failed attempt’s end');
      // 3 s: long enough that this check comes within it even on a loaded machine.
      assert.deepEqual(await claimAll(), [], 'not claimable during the backoff');
    } else {
      assert.equal(rows.length, 3);
    }
  }
  const ex = (await pool.query(`SELECT state, reason FROM executions WHERE id = $1`, [id])).rows[0];
  assert.equal(ex.state, 'FAILED');
  assert.equal(ex.reason, 'task flaky failed');
});
