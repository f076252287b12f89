// After a database outage longer than the online window, every instance's
// last heartbeat is older than 60 s: none of them could write one. The
// watchdog must not end the running tasks of instances that are alive as
// `lost` when the database returns: it waits until it has itself reached the
// database without a break for a whole window, by which time live instances
// have heartbeated again; an instance that stays silent is then lost.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { heartbeatInstance, registerInstance, type Db } from '@svc/db';
import { claimTaskRuns, runFollowUps, testEngine, triggerFlow, type StartDeps } from '@svc/engine/internal';
import { createNamespace, saveChanges } from '@svc/namespaces';
import { DbContact, watchdogOnce } from '../src/index.js';
import { setupEnv, type TestEnv } from './support.js';

let env: TestEnv;
let engine: StartDeps;
const runs: Record<string, string> = {};
let down: pg.Pool;

before(async () => {
  env = await setupEnv();
  engine = { config: { defaultExecutor: 'process', now: () => new Date() }, storage: env.storage };
  await createNamespace(env.db.pool, { name: 'o', createdBy: 't', now: new Date() });
  await saveChanges(
    { pool: env.db.pool, storage: env.storage, now: () => new Date(), maxFileBytes: 1 << 20, maxBundleBytes: 1 << 24 },
    {
      namespace: 'o',
      message: 'f',
      author: 't',
      changes: [{ op: 'put', path: 'w.flow.yaml', content: JSON.stringify({ id: 'w', tasks: [{ id: 't', type: 'command', command: ['true'] }] }) }],
    },
  );
  for (const instance of ['live', 'dead']) {
    await registerInstance(env.db.pool, { id: instance, kind: 'dispatcher', hostname: 'h', version: '1', pools: ['default'], executors: ['process'] });
    const r = await triggerFlow(env.db.pool, engine, { namespace: 'o', flowId: 'w', triggerType: 'manual', createdBy: 't' });
    await runFollowUps(env.db.pool, engine, r.followUps);
    const [run] = await claimTaskRuns(env.db.pool, { instanceId: instance, pools: ['default'], executorType: 'process', limit: 1 });
    runs[instance] = run!.id;
  }
  // The database as the watchdog sees it during the outage: nothing answers.
  down = new pg.Pool({ connectionString: 'postgres://svc:svc@127.0.0.1:1/none', connectionTimeoutMillis: 500 });
  down.on('error', () => undefined);
});
after(async () => {
  await down.end();
  await env.close();
});

test('running tasks of live instances are not lost after an outage longer than 60 s; a silent instance is lost one window later', async () => {
  let mono = 0;
  const contact = new DbContact({ monotonic: () => mono });
  // One pass, judged by the database's clock read just before (as in production).
  const pass = async (db: Db) => {
    const at = db === env.db ? (await env.db.pool.query<{ now: Date }>(`SELECT now()`)).rows[0]!.now : new Date();
    return watchdogOnce({ db, log: env.log, engine: testEngine({ pool: db.pool, storage: env.storage }), now: () => at, isHolder: () => true, contact });
  };
  const state = async (instance: string) => (await env.db.pool.query(`SELECT state, reason FROM task_runs WHERE id = $1`, [runs[instance]])).rows[0];

  assert.deepEqual((await pass(env.db)).lost, [], 'before the outage: both instances heartbeat');
  mono += 5_000;
  await assert.rejects(pass({ ...env.db, pool: down }), 'the outage: the watchdog cannot reach the database');
  // 90 s of outage: no instance could heartbeat.
  mono += 90_000;
  await env.db.pool.query(`UPDATE instances SET last_heartbeat_at = now() - interval '90 seconds'`);

  assert.deepEqual((await pass(env.db)).lost, [], 'the database is back: nobody is judged yet');
  await heartbeatInstance(env.db.pool, 'live'); // the live dispatcher heartbeats again within its 10 s period
  for (let waited = 10_000; waited < 60_000; waited += 10_000) {
    mono += 10_000;
    assert.deepEqual((await pass(env.db)).lost, [], `${waited / 1000} s after the outage`);
    await heartbeatInstance(env.db.pool, 'live');
  }
  mono += 10_000;
  assert.deepEqual((await pass(env.db)).lost, [runs.dead], 'a whole window of contact later: the silent instance is lost');
  assert.deepEqual(await state('live'), { state: 'RUNNING', reason: '' });
  assert.deepEqual(await state('dead'), { state: 'FAILED', reason: 'lost' });
});
