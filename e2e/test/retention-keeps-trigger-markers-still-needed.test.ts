// Retention of the exactly-once markers of triggers, end to end on a real
// database with real schedulers and flows saved through @svc/namespaces, the
// clock injected (days pass without waiting):
// - `schedule_fires`: a marker goes once it is older than SVC_RETENTION_DAYS,
//   no stored next_fire_at can reach it, and its execution is gone; the
//   others stay, and schedulers ticking after the clean-up still fire each
//   time exactly once (a kept marker stops a moved-back schedule).
// - `flow_trigger_firings`: a marker goes with its upstream execution, in the
//   same statement, so an execution spared at the last moment keeps it and its
//   flow triggers do not fire twice.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { newId } from '@svc/db';
import { fireFlowTriggers, sweepFlowTriggers, testEngine, type StartDeps } from '@svc/engine/internal';
import { createNamespace, saveChanges } from '@svc/namespaces';
import { Scheduler } from '@svc/scheduler';
import { runRetention } from '@svc/maintenance';
// The maintenance tests' own environment (a test database, a file store, a logger).
import { DAY, seedSnapshot, setupEnv, testClock, type TestEnv } from '../../apps/maintenance/test/support.js';

const RETENTION_DAYS = 30;
const silent = { info: () => undefined, warn: () => undefined };
const flow = (def: Record<string, unknown>) => JSON.stringify({ tasks: [{ id: 't', type: 'command', command: ['true'] }], ...def });

let env: TestEnv;
const pools: pg.Pool[] = [];
before(async () => {
  env = await setupEnv();
});
after(async () => {
  await Promise.all(pools.map((p) => p.end()));
  await env.close();
});

async function saveFlows(ns: string, now: () => Date, files: Record<string, string>): Promise<void> {
  await createNamespace(env.db.pool, { name: ns, createdBy: 't', now: now() });
  await saveChanges(
    { pool: env.db.pool, storage: env.storage, now, maxFileBytes: 1 << 20, maxBundleBytes: 1 << 24 },
    { namespace: ns, message: 'flows', author: 't', changes: Object.entries(files).map(([path, content]) => ({ op: 'put' as const, path, content })) },
  );
}

const retention = (now: Date) =>
  runRetention({ db: env.db, engine: env.engine, storage: env.storage, log: env.log, metrics: env.metrics, retentionDays: RETENTION_DAYS, batchSize: 2 }, now);

/** The markers of namespace `ns` as `flow@fire time`, in order. */
async function markers(ns: string): Promise<string[]> {
  const r = await env.db.pool.query<{ flow_id: string; fire_time: Date }>(`SELECT flow_id, fire_time FROM schedule_fires WHERE namespace = $1 ORDER BY fire_time, flow_id`, [ns]);
  return r.rows.map((x) => `${x.flow_id}@${x.fire_time.toISOString()}`);
}

/** Executions started by schedules in `ns` as `flow@fire time`, in order. */
async function scheduledRuns(ns: string): Promise<string[]> {
  const r = await env.db.pool.query<{ flow_id: string; fire_time: string }>(
    `SELECT flow_id, trigger_payload->>'fire_time' AS fire_time FROM executions WHERE namespace = $1 AND trigger_type = 'schedule' ORDER BY 2, 1`,
    [ns],
  );
  return r.rows.map((x) => `${x.flow_id}@${x.fire_time}`);
}

test('schedule fire markers go only when no tick can reach them and their execution is gone; schedulers after the clean-up fire each time once', async () => {
  const clock = testClock(new Date('2030-01-01T00:00:30Z'));
  const engine: StartDeps = { config: { defaultExecutor: 'process', now: clock.now }, storage: env.storage };
  const scheduler = () => {
    // Its own pool, as another scheduler process would have.
    const pool = new pg.Pool({ connectionString: env.tdb.url, max: 4 });
    pool.on('error', () => undefined);
    pools.push(pool);
    return new Scheduler({ pool, log: silent, engine: testEngine({ pool, storage: env.storage, now: clock.now }) });
  };
  const [a, b] = [scheduler(), scheduler()];
  await saveFlows('mk', clock.now, {
    'hourly.flow.yaml': flow({ id: 'hourly', triggers: [{ id: 'h', type: 'schedule', cron: '0 * * * *' }] }),
    // Once a year: catch_up `last` after a long pause reaches back to a time weeks old.
    'yearly.flow.yaml': flow({ id: 'yearly', triggers: [{ id: 'y', type: 'schedule', cron: '0 1 1 1 *' }] }),
    // A required input the schedule does not give: each fire is spent with a marker and no execution.
    'needs.flow.yaml': flow({ id: 'needs', inputs: [{ id: 'x', type: 'string', required: true }], triggers: [{ id: 'n', type: 'schedule', cron: '0 * * * *' }] }),
  });
  const end = (flowId: string, fireTime: string) =>
    env.db.pool.query(`UPDATE executions SET state = 'SUCCESS', ended_at = $3 WHERE namespace = 'mk' AND flow_id = $1 AND trigger_payload->>'fire_time' = $2`, [
      flowId,
      fireTime,
      new Date(Date.parse(fireTime) + 10_000),
    ]);

  // Day 0: 01:00 and 02:00 fire; then everything but hourly@02:00 ends.
  await a.sync(clock.now());
  await a.tick(new Date('2030-01-01T01:00:05Z'));
  await a.tick(new Date('2030-01-01T02:00:05Z'));
  assert.deepEqual(await scheduledRuns('mk'), ['hourly@2030-01-01T01:00:00.000Z', 'yearly@2030-01-01T01:00:00.000Z', 'hourly@2030-01-01T02:00:00.000Z']);
  await end('hourly', '2030-01-01T01:00:00.000Z');
  await end('yearly', '2030-01-01T01:00:00.000Z');
  // The yearly schedule is moved back onto the time it fired (a row edited by hand, or a clock gone back):
  // its stored next_fire_at reaches that time again.
  await env.db.pool.query(`UPDATE schedules SET next_fire_at = '2030-01-01T01:00:00Z' WHERE flow_id = 'yearly'`);

  // Day 40: the ended executions are past retention and go, with the markers nothing can reach.
  clock.set(new Date('2030-02-10T00:30:00Z'));
  const first = await retention(clock.now());
  assert.equal(first.executions, 2);
  assert.equal(first.rows.schedule_fires, 3, 'hourly@01:00 (execution gone) and needs@01:00, needs@02:00 (no execution)');
  assert.deepEqual(await markers('mk'), [
    // Moved-back schedule: a tick would try this time again.
    'yearly@2030-01-01T01:00:00.000Z',
    // Its execution still exists (running).
    'hourly@2030-01-01T02:00:00.000Z',
  ]);

  // Two schedulers tick at the same instant after the clean-up.
  const [ra, rb] = await Promise.all([a.tick(clock.now()), b.tick(clock.now())]);
  assert.equal(ra.failed + rb.failed, 0);
  const fired = [...ra.fired, ...rb.fired].map((f) => `${f.flowId}@${f.fireTime?.toISOString()}:${f.executionId ? 'execution' : f.skipped}`).sort();
  assert.deepEqual(fired, [
    'hourly@2030-02-10T00:00:00.000Z:execution',
    'needs@2030-02-10T00:00:00.000Z:inputs_invalid',
    // Fired on day 0: the kept marker stops it (without it, this time would fire a second time).
    'yearly@2030-01-01T01:00:00.000Z:already_fired',
  ]);
  assert.deepEqual(await scheduledRuns('mk'), ['hourly@2030-01-01T02:00:00.000Z', 'hourly@2030-02-10T00:00:00.000Z']);
  // Ticking again changes nothing.
  const again = await Promise.all([a.tick(new Date('2030-02-10T00:30:20Z')), b.tick(new Date('2030-02-10T00:30:20Z'))]);
  assert.equal(again[0].fired.length + again[1].fired.length, 0);
  assert.equal((await scheduledRuns('mk')).length, 2);

  // The yearly schedule has moved on to 2031: now nothing reaches its old marker, and it goes.
  // The markers of today are younger than SVC_RETENTION_DAYS and stay.
  const second = await retention(new Date('2030-02-10T00:31:00Z'));
  assert.equal(second.rows.schedule_fires, 1);
  assert.deepEqual(await markers('mk'), ['hourly@2030-01-01T02:00:00.000Z', 'hourly@2030-02-10T00:00:00.000Z', 'needs@2030-02-10T00:00:00.000Z']);

  // 31 days later the marker without execution is past retention too; those of running executions stay.
  const third = await retention(new Date('2030-03-13T00:31:00Z'));
  assert.equal(third.rows.schedule_fires, 1);
  assert.deepEqual(await markers('mk'), ['hourly@2030-01-01T02:00:00.000Z', 'hourly@2030-02-10T00:00:00.000Z']);
  assert.match(await env.metrics.registry.metrics(), /svc_maintenance_rows_deleted_total\{table="schedule_fires"\} 5/);
});

test('flow trigger markers go with their upstream execution in one statement: an execution spared at the last moment keeps them and does not fire twice', async () => {
  const clock = testClock(new Date('2030-06-01T12:00:00Z'));
  const now = clock.now();
  const ago = (days: number) => new Date(now.getTime() - days * DAY);
  const engine: StartDeps = { config: { defaultExecutor: 'process', now: clock.now }, storage: env.storage };
  await saveFlows('ft', clock.now, {
    'up.flow.yaml': flow({ id: 'up' }),
    'down.flow.yaml': flow({ id: 'down', triggers: [{ id: 'after_up', type: 'flow', flow: 'ft/up', states: ['SUCCESS'] }] }),
  });
  const snapshot = await seedSnapshot(env.db, { namespace: 'ft', createdAt: ago(100) });
  const upstream = async (endedDaysAgo: number) => {
    const id = newId();
    await env.db.pool.query(
      `INSERT INTO executions (id, state, namespace, flow_id, snapshot_id, definition, created_by, trigger_type, created_at, started_at, ended_at)
       VALUES ($1, 'SUCCESS', 'ft', 'up', $2, '{"id":"up","tasks":[]}', 'test', 'manual', $3, $3, $3)`,
      [id, snapshot, ago(endedDaysAgo)],
    );
    // The engine's follow-up of the end: the downstream execution and its marker.
    const r = await fireFlowTriggers(env.db.pool, engine, id);
    assert.equal(r.fired.length, 1);
    assert.ok(r.fired[0]!.executionId);
    return id;
  };
  const expired = await upstream(RETENTION_DAYS + 1);
  const recent = await upstream(1);
  const spared = await upstream(RETENTION_DAYS + 1);
  const downstreamCount = async () => (await env.db.pool.query(`SELECT count(*)::int AS n FROM executions WHERE namespace = 'ft' AND flow_id = 'down'`)).rows[0].n as number;
  assert.equal(await downstreamCount(), 3);
  const firings = async (id: string) => (await env.db.pool.query(`SELECT count(*)::int AS n FROM flow_trigger_firings WHERE upstream_execution_id = $1`, [id])).rows[0].n as number;

  // `spared` is restarted while retention works on it: the restart holds the
  // execution's row until retention's delete of the executions waits on it,
  // then ends it again now, so the delete's re-check spares it.
  const restart = await env.db.pool.connect();
  try {
    await restart.query('BEGIN');
    await restart.query(`UPDATE executions SET ended_at = $2 WHERE id = $1`, [spared, now]);
    const run = retention(now);
    const waiting = async () =>
      (
        await env.db.pool.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'DELETE FROM executions%'`,
        )
      ).rows[0].n as number;
    const deadline = Date.now() + 20_000;
    while ((await waiting()) === 0) {
      assert.ok(Date.now() < deadline, 'retention never reached the delete of the executions');
      await new Promise((r) => setTimeout(r, 20));
    }
    await restart.query('COMMIT');
    const r = await run;
    assert.equal(r.executions, 1);
  } finally {
    restart.release();
  }

  const exists = async (id: string) => (await env.db.pool.query(`SELECT 1 FROM executions WHERE id = $1`, [id])).rowCount === 1;
  assert.equal(await exists(expired), false);
  assert.equal(await firings(expired), 0, 'the marker went with its execution');
  assert.equal(await exists(recent), true);
  assert.equal(await firings(recent), 1);
  assert.equal(await exists(spared), true);
  assert.equal(await firings(spared), 1, 'the marker of the spared execution was not deleted ahead of it');

  // The engine's follow-up and the scheduler's sweep find every kept execution fired already.
  for (const id of [recent, spared]) assert.deepEqual((await fireFlowTriggers(env.db.pool, engine, id)).fired, []);
  assert.deepEqual(await sweepFlowTriggers(env.db.pool, engine, ago(365)), []);
  assert.equal(await downstreamCount(), 3, 'no downstream execution started twice');
});
