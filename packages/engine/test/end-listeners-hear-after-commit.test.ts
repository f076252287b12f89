// The listeners of task run ends (the apps' svc_task_run_duration_seconds)
// hear of an end once it is committed, also when the end is written inside a
// transaction of the engine's that does more after it: a dispatcher stopping
// ends all its runs in one transaction with the mark of its instance
// (Watchdog.stopInstanceTaskRuns). When that transaction fails after its
// first end, nothing is heard; done again, each run is heard once. A
// follow-up's work (the end of a subflow's parent task run) runs in the
// transaction that holds its outbox row, and is told after that commits.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type pg from 'pg';
import { afterCommit, registerInstance } from '@svc/db';
import { claimRuns, Outbox, recordFollowUps, stopInstanceTaskRuns, systemsOf, triggerFlow, type StartDeps } from '../src/internal.js';
import { engineFixture, type EngineFixture } from './support/fixture.js';

let fx: EngineFixture;
let pool: pg.Pool;
let deps: StartDeps;

before(async () => {
  fx = await engineFixture('heard', { 'work.flow.yaml': { id: 'work', tasks: [{ id: 't', type: 'command', command: ['true'] }] } });
  ({ pool, deps } = fx);
});
after(() => fx.close());

test('a stopping instance whose transaction fails after its first end is heard of once, when it commits', async () => {
  const heard: [string, string][] = [];
  systemsOf(pool).completions.onEnded((runs) => heard.push(...runs.map((r): [string, string] => [r.executor, r.state])));
  const instance = 'd-heard';
  await registerInstance(pool, { id: instance, kind: 'dispatcher', hostname: 'test', version: 'test', pools: ['default'], executors: ['process'] }, new Date());
  for (let i = 0; i < 2; i++) await triggerFlow(pool, deps, { namespace: 'heard', flowId: 'work', triggerType: 'manual', createdBy: 'test' });
  const { runs } = await claimRuns(pool, { instanceId: instance, pools: ['default'], executorType: 'process', limit: 10, now: new Date() });
  assert.equal(runs.length, 2);
  // A real failure of the second end's statement, after the first end was written in the same transaction
  // (counted in a setting local to the transaction, whichever run is ended first).
  await pool.query(`
    CREATE FUNCTION heard_fault() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE n int := coalesce(nullif(current_setting('heard.ends', true), ''), '0')::int + 1;
    BEGIN
      PERFORM set_config('heard.ends', n::text, true);
      IF n = 2 THEN RAISE EXCEPTION 'injected: the second end fails'; END IF;
      RETURN NEW;
    END $$`);
  await pool.query(`CREATE TRIGGER heard_fault BEFORE UPDATE ON task_runs FOR EACH ROW WHEN (NEW.state = 'FAILED') EXECUTE FUNCTION heard_fault()`);
  await assert.rejects(stopInstanceTaskRuns(pool, instance, new Date()), /injected: the second end fails/);
  const running = (await pool.query(`SELECT count(*)::int AS n FROM task_runs WHERE state = 'RUNNING'`)).rows[0].n;
  assert.equal(running, 2, 'the transaction rolled back: both runs are still RUNNING');
  assert.deepEqual(heard, [], 'no end heard of from a transaction that rolled back');

  await pool.query(`DROP TRIGGER heard_fault ON task_runs`);
  const ended = await stopInstanceTaskRuns(pool, instance, new Date());
  assert.equal(ended.ids.length, 2);
  assert.deepEqual(heard, [
    ['process', 'FAILED'],
    ['process', 'FAILED'],
  ]);
});

test("a follow-up's work (a subflow parent's end) hands what runs after the commit to the transaction that holds its outbox row", async () => {
  const outbox = new Outbox(pool);
  const record = async () => {
    const c = await pool.connect();
    try {
      const [f] = await recordFollowUps(c, [{ kind: 'start_queued', concurrencyKey: 'heard-key' }]);
      return f.id!;
    } finally {
      c.release();
    }
  };
  const ran: string[] = [];
  // The row's delete fails after the work: the work's end is rolled back with it, and nothing is told.
  const first = await record();
  await pool.query(`
    CREATE FUNCTION heard_outbox_fault() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'injected: the outbox row cannot be deleted'; END $$`);
  await pool.query(`CREATE TRIGGER heard_outbox_fault BEFORE DELETE ON engine_outbox FOR EACH ROW EXECUTE FUNCTION heard_outbox_fault()`);
  await assert.rejects(
    outbox.withRow(first, async (c) => afterCommit(c, () => void ran.push('failed'))),
    /injected: the outbox row cannot be deleted/,
  );
  assert.equal(ran.length, 0, ran.join());
  await pool.query(`DROP TRIGGER heard_outbox_fault ON engine_outbox`);
  // Done again: told once, after the commit (the row is gone for another connection by then).
  let goneWhenTold: boolean | undefined;
  assert.equal(
    await outbox.withRow(first, async (c) =>
      afterCommit(c, () => {
        ran.push('done');
        void pool.query(`SELECT 1 FROM engine_outbox WHERE id = $1`, [first]).then((r) => (goneWhenTold = r.rowCount === 0));
      }),
    ),
    true,
  );
  assert.deepEqual(ran, ['done']);
  await until(() => goneWhenTold !== undefined);
  assert.equal(goneWhenTold, true);
});

async function until(f: () => boolean): Promise<void> {
  for (const end = Date.now() + 10_000; !f(); await new Promise((r) => setTimeout(r, 20))) if (Date.now() > end) throw new Error('not in time');
}
