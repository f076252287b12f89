// Retention of backfills: one that ended (cancelled or done) more than
// SVC_RETENTION_DAYS ago goes with its backfill_runs rows, a fire-time batch
// at a time and then the backfill; one that ended more recently stays, and so
// do running and paused ones however old. The counts show in the result and
// in svc_maintenance_rows_deleted_total; two passes at once (two maintenance
// instances) delete each row once; a pass stopped halfway (lease lost) leaves
// a backfill to the next pass. Real database, flows saved through
// @svc/namespaces, backfills written with @svc/db's insertBackfill.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { newId } from '@svc/db';
import { deleteEndedBackfillRuns, deleteEndedBackfills, getBackfill, insertBackfill, type BackfillState } from '@svc/scheduling';
import { createNamespace, saveChanges } from '@svc/namespaces';
import { runRetention, type RetentionDeps } from '../src/index.js';
import { count, DAY, setupEnv, testClock, type TestEnv } from './support.js';

const RETENTION_DAYS = 30;

let env: TestEnv;
before(async () => {
  env = await setupEnv();
  await createNamespace(env.db.pool, { name: 'bf', createdBy: 't', now: new Date() });
  await saveChanges(
    { pool: env.db.pool, storage: env.storage, now: () => new Date(), maxFileBytes: 1 << 20, maxBundleBytes: 1 << 24 },
    {
      namespace: 'bf',
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
});
after(() => env.close());

const now = testClock().now();
const ago = (days: number) => new Date(now.getTime() - days * DAY);

/**
 * A backfill of `runs` hourly fire times created `createdDaysAgo` days ago, in
 * `state`; an ended one (cancelled, done) ended `endedDaysAgo` days ago, as
 * the scheduler and the gateway write it (ended_at with the state).
 */
async function backfill(o: { runs: number; state: BackfillState; createdDaysAgo: number; endedDaysAgo?: number }): Promise<string> {
  const id = newId();
  const fireTimes = Array.from({ length: o.runs }, (_, i) => new Date(Date.UTC(2026, 0, 1, i)));
  const created = ago(o.createdDaysAgo);
  await insertBackfill(env.db.pool, {
    id,
    namespace: 'bf',
    flowId: 'job',
    triggerId: 'h',
    cron: '0 * * * *',
    timezone: 'UTC',
    from: fireTimes[0]!,
    to: fireTimes.at(-1)!,
    maxInFlight: 2,
    createdBy: 'test',
    fireTimes,
    now: created,
  });
  const ended = o.endedDaysAgo === undefined ? null : ago(o.endedDaysAgo);
  await env.db.pool.query(`UPDATE backfills SET state = $2, ended_at = $3, updated_at = COALESCE($3, updated_at) WHERE id = $1`, [id, o.state, ended]);
  // Fire times as an ended backfill leaves them: the first ones created with their outcome written, the rest cancelled or skipped.
  await env.db.pool.query(
    `UPDATE backfill_runs SET state = CASE WHEN fire_time < $2 THEN 'created' ELSE $3 END, outcome = CASE WHEN fire_time < $2 THEN 'done' END, execution_id = CASE WHEN fire_time < $2 THEN $4 || fire_time::text END
      WHERE backfill_id = $1`,
    [id, fireTimes[Math.min(2, o.runs - 1)], o.state === 'cancelled' ? 'cancelled' : o.state === 'done' ? 'skipped' : 'pending', `gone-${id}-`],
  );
  return id;
}

const runsOf = (ids: string[]) => count(env.db, `SELECT 1 FROM backfill_runs WHERE backfill_id = ANY($1)`, [ids]);
const backfillsOf = (ids: string[]) => count(env.db, `SELECT 1 FROM backfills WHERE id = ANY($1)`, [ids]);
const retention = (extra: Partial<RetentionDeps> = {}) =>
  runRetention({ db: env.db, engine: env.engine, storage: env.storage, log: env.log, metrics: env.metrics, retentionDays: RETENTION_DAYS, batchSize: 3, ...extra }, now);
/** The counter's value for `table` in the /metrics text (0 when absent). */
async function rowsDeletedMetric(table: string): Promise<number> {
  const m = new RegExp(`^svc_maintenance_rows_deleted_total\\{table="${table}"\\} (\\d+)$`, 'm').exec(await env.metrics.registry.metrics());
  return m ? Number(m[1]) : 0;
}

test('backfills ended more than SVC_RETENTION_DAYS ago go with their fire times; recent ended, running and paused ones stay', async () => {
  const oldDone = await backfill({ runs: 7, state: 'done', createdDaysAgo: 40, endedDaysAgo: 31 });
  const oldCancelled = await backfill({ runs: 4, state: 'cancelled', createdDaysAgo: 200, endedDaysAgo: 150 });
  const recentDone = await backfill({ runs: 5, state: 'done', createdDaysAgo: 60, endedDaysAgo: 29 });
  const recentCancelled = await backfill({ runs: 2, state: 'cancelled', createdDaysAgo: 31, endedDaysAgo: 1 });
  const oldRunning = await backfill({ runs: 3, state: 'running', createdDaysAgo: 400 });
  const oldPaused = await backfill({ runs: 3, state: 'paused', createdDaysAgo: 400 });
  const expired = [oldDone, oldCancelled];
  const kept = [recentDone, recentCancelled, oldRunning, oldPaused];
  const keptBefore = await Promise.all(kept.map((id) => getBackfill(env.db.pool, id)));
  const [runsMetric, backfillsMetric] = [await rowsDeletedMetric('backfill_runs'), await rowsDeletedMetric('backfills')];

  const r = await retention();
  assert.equal(r.complete, true);
  // 11 fire times in batches of 3, then the two backfills.
  assert.equal(r.rows.backfill_runs, 11);
  assert.equal(r.rows.backfills, 2);
  assert.equal((await rowsDeletedMetric('backfill_runs')) - runsMetric, 11);
  assert.equal((await rowsDeletedMetric('backfills')) - backfillsMetric, 2);

  assert.equal(await backfillsOf(expired), 0);
  assert.equal(await runsOf(expired), 0);
  for (const id of expired) assert.equal(await getBackfill(env.db.pool, id), undefined, `backfill ${id} is gone`);
  assert.equal(await backfillsOf(kept), 4);
  assert.equal(await runsOf(kept), 5 + 2 + 3 + 3);
  // The kept ones read as before: same state, same progress.
  assert.deepEqual(await Promise.all(kept.map((id) => getBackfill(env.db.pool, id))), keptBefore);
  assert.deepEqual(
    keptBefore.map((b) => b?.state),
    ['done', 'cancelled', 'running', 'paused'],
  );

  // Nothing more to do: a second pass deletes no backfill.
  const again = await retention();
  assert.equal(again.rows.backfill_runs, undefined);
  assert.equal(again.rows.backfills, undefined);
  assert.equal(await backfillsOf(kept), 4);
});

test('two retention passes at once (two maintenance instances) delete each backfill and fire time once', async () => {
  const ids = await Promise.all(Array.from({ length: 6 }, (_, i) => backfill({ runs: 5, state: i % 2 ? 'done' : 'cancelled', createdDaysAgo: 90, endedDaysAgo: 60 + i })));
  const running = await backfill({ runs: 4, state: 'running', createdDaysAgo: 90 });
  const [a, b] = await Promise.all([retention({ batchSize: 2 }), retention({ batchSize: 2 })]);
  assert.equal((a.rows.backfill_runs ?? 0) + (b.rows.backfill_runs ?? 0), 30);
  assert.equal((a.rows.backfills ?? 0) + (b.rows.backfills ?? 0), 6);
  assert.equal(await backfillsOf(ids), 0);
  assert.equal(await runsOf(ids), 0);
  assert.equal(await backfillsOf([running]), 1);
  assert.equal(await runsOf([running]), 4);
});

test('a backfill whose fire times are partly deleted (a pass that lost its lease) stays until a later pass deletes the rest', async () => {
  const id = await backfill({ runs: 8, state: 'done', createdDaysAgo: 50, endedDaysAgo: 40 });
  const cutoff = ago(RETENTION_DAYS);
  // A holder that lost the lease before starting deletes nothing.
  const lost = await retention({ shouldContinue: () => false });
  assert.equal(lost.complete, false);
  assert.equal(await runsOf([id]), 8);
  // One batch of fire times, then the pass stopped: the backfill step leaves a backfill that still has fire times
  // (its cascade would be one statement over all of them).
  assert.equal(await deleteEndedBackfillRuns(env.db.pool, cutoff, 3), 3);
  assert.equal(await deleteEndedBackfills(env.db.pool, cutoff, 10), 0);
  assert.equal(await backfillsOf([id]), 1);
  const r = await retention();
  assert.equal(r.rows.backfill_runs, 5);
  assert.equal(r.rows.backfills, 1);
  assert.equal(await backfillsOf([id]), 0);
  assert.equal(await runsOf([id]), 0);
});
