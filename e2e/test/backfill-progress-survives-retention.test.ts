// A backfill's progress survives retention: the scheduler's
// advancer writes each fire time's outcome on its backfill_runs row once the
// execution has ended, so when maintenance's retention (runRetention, as
// after SVC_RETENTION_DAYS) deletes the executions, the backfill reports the
// same done/failed/cancelled counts and stays `done`. The backfill itself
// goes SVC_RETENTION_DAYS after its own end, which is later than its
// executions' (here moved two days on, as a long backfill's last fire times
// would be). Real database, flows saved through @svc/namespaces, executions
// ended through the engine (task runs claimed and completed, one cancelled),
// days passed with the clock.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { newId } from '@svc/db';
import { cancelBackfill, getBackfill, insertBackfill, listBackfillRuns, type BackfillRow } from '@svc/scheduling';
import { createNamespace, saveChanges } from '@svc/namespaces';
import { BackfillAdvancer } from '@svc/scheduler';
import { runRetention } from '@svc/maintenance';
// The maintenance tests' own environment (a test database, a file store, a logger, an engine).
import { DAY, setupEnv, type TestEnv } from '../../apps/maintenance/test/support.js';

const RETENTION_DAYS = 30;
const silent = { info: () => undefined, warn: () => undefined };

let env: TestEnv;
let advancer: BackfillAdvancer;
before(async () => {
  env = await setupEnv();
  await createNamespace(env.db.pool, { name: 'bfr', createdBy: 't', now: new Date() });
  await saveChanges(
    { pool: env.db.pool, storage: env.storage, now: () => new Date(), maxFileBytes: 1 << 20, maxBundleBytes: 1 << 24 },
    {
      namespace: 'bfr',
      message: 'flows',
      author: 't',
      changes: [
        {
          op: 'put',
          path: 'job.flow.yaml',
          content: JSON.stringify({ id: 'job', triggers: [{ id: 'h', type: 'schedule', cron: '0 * * * *' }], tasks: [{ id: 't', type: 'command', command: ['true'] }] }),
        },
      ],
    },
  );
  advancer = new BackfillAdvancer({ pool: env.db.pool, engine: env.engine, log: silent });
});
after(() => env.close());

async function create(hours: number, maxInFlight: number): Promise<string> {
  const id = newId();
  const fireTimes = Array.from({ length: hours }, (_, i) => new Date(Date.UTC(2026, 2, 1, i)));
  await insertBackfill(env.db.pool, {
    id,
    namespace: 'bfr',
    flowId: 'job',
    triggerId: 'h',
    cron: '0 * * * *',
    timezone: 'UTC',
    from: fireTimes[0]!,
    to: fireTimes.at(-1)!,
    maxInFlight,
    createdBy: 'test',
    fireTimes,
    now: new Date(),
  });
  return id;
}

/** The task runs of the backfill's executions, claimed as a dispatcher would, oldest fire time first. */
async function claimRuns(id: string, n: number): Promise<{ id: string; execution_id: string }[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const queued = await env.db.pool.query(`SELECT 1 FROM task_runs t JOIN executions e ON e.id = t.execution_id WHERE e.labels->>'backfill' = $1 AND t.state = 'QUEUED'`, [id]);
    if ((queued.rowCount ?? 0) >= n) break;
    assert.ok(Date.now() < deadline, `${n} task runs of backfill ${id} planned`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const { runs } = await env.engine.dispatch.claim({ instanceId: 'bfr-test', pools: ['default'], executorType: 'process', limit: 100 });
  assert.equal(runs.length, n);
  const order = await env.db.pool.query<{ id: string }>(`SELECT id FROM executions WHERE labels->>'backfill' = $1 ORDER BY trigger_payload->>'fire_time'`, [id]);
  return order.rows.map((e) => runs.find((r) => r.execution_id === e.id)).filter((r) => r !== undefined);
}

async function untilEnded(id: string): Promise<string[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const r = await env.db.pool.query<{ state: string }>(`SELECT state FROM executions WHERE labels->>'backfill' = $1 ORDER BY trigger_payload->>'fire_time'`, [id]);
    if (r.rows.every((x) => ['SUCCESS', 'FAILED', 'TIMED_OUT', 'CANCELLED', 'SKIPPED'].includes(x.state))) return r.rows.map((x) => x.state);
    assert.ok(Date.now() < deadline, `executions of ${id} ended: ${JSON.stringify(r.rows)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const progress = (b: BackfillRow | undefined) =>
  b && { state: b.state, total: b.total, left: b.left, running: b.running, done: b.done, failed: b.failed, cancelled: b.cancelled, ended_at: b.ended_at };
const executionsOf = async (id: string) => (await env.db.pool.query(`SELECT 1 FROM executions WHERE labels->>'backfill' = $1`, [id])).rowCount;
const retention = (days = RETENTION_DAYS + 1) =>
  runRetention({ db: env.db, engine: env.engine, storage: env.storage, log: env.log, metrics: env.metrics, retentionDays: RETENTION_DAYS }, new Date(Date.now() + days * DAY));
/** The backfill ended `days` after its executions (retention deletes an ended backfill SVC_RETENTION_DAYS after its end). */
const endLater = (id: string, days: number) =>
  env.db.pool.query(`UPDATE backfills SET ended_at = ended_at + make_interval(days => $2), updated_at = updated_at + make_interval(days => $2) WHERE id = $1`, [id, days]);

test('a backfill run to the end keeps its progress and its done state once retention has deleted its executions', async () => {
  const id = await create(5, 5);
  assert.equal((await advancer.advance(new Date())).created, 5);
  const [a, b, c, d, e] = await claimRuns(id, 5);
  const ok = { reason: '', error: '', exitCode: 0 };
  await env.engine.runner.complete(a!.id, { state: 'SUCCESS', ...ok });
  await env.engine.runner.complete(b!.id, { state: 'FAILED', ...ok, exitCode: 1 });
  await env.engine.runner.complete(c!.id, { state: 'SUCCESS', ...ok });
  await env.engine.executions.cancel(d!.execution_id, 'test');
  await env.engine.runner.complete(d!.id, { state: 'CANCELLED', ...ok, exitCode: null });
  await env.engine.runner.complete(e!.id, { state: 'SUCCESS', ...ok });
  assert.deepEqual(await untilEnded(id), ['SUCCESS', 'FAILED', 'SUCCESS', 'CANCELLED', 'SUCCESS']);

  assert.deepEqual((await advancer.advance(new Date())).finished, [id]);
  await endLater(id, 2);
  const ended = progress(await getBackfill(env.db.pool, id));
  assert.deepEqual({ ...ended, ended_at: undefined }, { state: 'done', total: 5, left: 0, running: 0, done: 3, failed: 2, cancelled: 0, ended_at: undefined });
  // Ended done, every fire time has its outcome written on its row.
  const written = await env.db.pool.query<{ outcome: string | null }>(`SELECT outcome FROM backfill_runs WHERE backfill_id = $1 ORDER BY fire_time`, [id]);
  assert.deepEqual(
    written.rows.map((x) => x.outcome),
    ['done', 'failed', 'done', 'cancelled', 'done'],
  );
  const runs = async () => (await listBackfillRuns(env.db.pool, id, { limit: 10 })).map((r) => ({ state: r.state, outcome: r.outcome, execution: r.execution_state !== null }));
  const outcomes = ['done', 'failed', 'done', 'cancelled', 'done'];
  assert.deepEqual(
    await runs(),
    outcomes.map((outcome) => ({ state: 'created', outcome, execution: true })),
  );

  const r = await retention();
  assert.ok(r.executions >= 5, `retention deleted ${r.executions} executions`);
  assert.equal(await executionsOf(id), 0, 'the executions are gone');
  assert.deepEqual(progress(await getBackfill(env.db.pool, id)), ended);
  assert.deepEqual(
    await runs(),
    outcomes.map((outcome) => ({ state: 'created', outcome, execution: false })),
  );
  // The advancer serving it again changes nothing.
  await advancer.advance(new Date());
  assert.deepEqual(progress(await getBackfill(env.db.pool, id)), ended);
  // SVC_RETENTION_DAYS after its own end, the backfill goes too, with its fire times.
  const later = await retention(RETENTION_DAYS + 3);
  assert.deepEqual({ backfills: later.rows.backfills, backfill_runs: later.rows.backfill_runs }, { backfills: 1, backfill_runs: 5 });
  assert.equal(await getBackfill(env.db.pool, id), undefined);
  assert.equal((await env.db.pool.query(`SELECT 1 FROM backfill_runs WHERE backfill_id = $1`, [id])).rowCount, 0);
});

test('a cancelled backfill whose executions end after the cancel keeps their outcome through retention', async () => {
  const id = await create(4, 2);
  assert.equal((await advancer.advance(new Date())).created, 2);
  const claimed = await claimRuns(id, 2);
  const inFlight = await cancelBackfill(env.db.pool, id, new Date());
  assert.deepEqual(inFlight?.slice().sort(), claimed.map((r) => r.execution_id).sort());
  // The executions end after the backfill is cancelled: the advancer no longer serves it as running.
  for (const run of claimed) {
    await env.engine.executions.cancel(run.execution_id, 'test');
    await env.engine.runner.complete(run.id, { state: 'CANCELLED', reason: '', error: '', exitCode: null });
  }
  assert.deepEqual(await untilEnded(id), ['CANCELLED', 'CANCELLED']);
  await advancer.advance(new Date());
  await endLater(id, 2);
  const cancelled = progress(await getBackfill(env.db.pool, id));
  assert.deepEqual({ ...cancelled, ended_at: undefined }, { state: 'cancelled', total: 4, left: 0, running: 0, done: 0, failed: 2, cancelled: 2, ended_at: undefined });
  const written = await env.db.pool.query<{ outcome: string | null }>(`SELECT outcome FROM backfill_runs WHERE backfill_id = $1 ORDER BY fire_time`, [id]);
  assert.deepEqual(
    written.rows.map((x) => x.outcome),
    ['cancelled', 'cancelled', null, null],
  );

  await retention();
  assert.equal(await executionsOf(id), 0, 'the executions are gone');
  assert.deepEqual(progress(await getBackfill(env.db.pool, id)), cancelled);
});
