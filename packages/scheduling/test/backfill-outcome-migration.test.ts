// Migration 20261128700000_backfill_run_outcome on a database that already
// holds backfills: applied after the migrations before it, with rows written
// as the code of that time wrote them, it writes each fire time's outcome
// from the executions still present (done, failed, cancelled), leaves
// alone what has not ended, has no execution or whose execution is gone,
// and the progress read afterwards counts the same as before it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type pg from 'pg';
import { applyMigrations, loadMigrations, newId } from '@svc/db';
import { createEmptyTestDatabase } from '@svc/db/testing';
import { getBackfill } from '../src/index.js';

const MIGRATION = '20261128700000_backfill_run_outcome';

let db: Awaited<ReturnType<typeof createEmptyTestDatabase>>;
let p: pg.Pool;

before(async () => {
  db = await createEmptyTestDatabase();
  p = db.pool;
});
after(() => db.drop());

test('the outcome column is written from the executions still present, and progress counts the same before and after', async () => {
  const all = loadMigrations();
  const at = all.findIndex((m) => m.name === MIGRATION);
  assert.ok(at > 0, `${MIGRATION} is carried by the build`);
  // The database as it was before this migration.
  assert.deepEqual(
    await applyMigrations(p, all.slice(0, at)),
    all.slice(0, at).map((m) => m.name),
  );
  const column = async () => (await p.query(`SELECT 1 FROM information_schema.columns WHERE table_name = 'backfill_runs' AND column_name = 'outcome'`)).rowCount;
  assert.equal(await column(), 0);

  await p.query(`INSERT INTO namespaces (name) VALUES ('mig')`);
  await p.query(`INSERT INTO flows (namespace, flow_id, path) VALUES ('mig', 'nightly', 'nightly.flow.yaml')`);
  const snapshot = newId();
  await p.query(`INSERT INTO snapshots (id, namespace, manifest_hash, file_count, total_bytes) VALUES ($1, 'mig', 'm', 0, 0)`, [snapshot]);
  const execution = async (state: string) => {
    const id = newId();
    await p.query(
      `INSERT INTO executions (id, state, namespace, flow_id, snapshot_id, definition, created_by, trigger_type, created_at, started_at, ended_at)
       VALUES ($1, $2, 'mig', 'nightly', $3, '{"id":"nightly","tasks":[]}', 'backfill', 'schedule', now(), now(), CASE WHEN $2 IN ('QUEUED', 'RUNNING') THEN NULL ELSE now() END)`,
      [id, state, snapshot],
    );
    return id;
  };
  const backfill = newId();
  // One fire time per case, an hour apart: [run state, execution state (null: none; 'gone': deleted), expected outcome].
  const cases: [string, string | null, string | null][] = [
    ['created', 'SUCCESS', 'done'],
    ['created', 'SKIPPED', 'done'],
    ['created', 'FAILED', 'failed'],
    ['created', 'TIMED_OUT', 'failed'],
    ['created', 'CANCELLED', 'cancelled'],
    ['created', 'RUNNING', null],
    ['created', 'QUEUED', null],
    ['created', 'gone', null],
    ['skipped', null, null],
    ['cancelled', null, null],
    ['pending', null, null],
  ];
  await p.query(
    `INSERT INTO backfills (id, namespace, flow_id, trigger_id, cron, timezone, range_from, range_to, max_in_flight, state, total, created_by)
     VALUES ($1, 'mig', 'nightly', 'h', '0 * * * *', 'UTC', '2026-01-01T00:00:00Z', '2026-01-01T10:00:00Z', 10, 'running', $2, 'test')`,
    [backfill, cases.length],
  );
  const fireTime = (i: number) => new Date(Date.UTC(2026, 0, 1, i));
  for (const [i, [state, exec]] of cases.entries()) {
    const executionId = exec === null ? null : exec === 'gone' ? newId() : await execution(exec);
    await p.query(`INSERT INTO backfill_runs (backfill_id, fire_time, state, execution_id, created_at) VALUES ($1, $2, $3, $4, now())`, [
      backfill,
      fireTime(i),
      state,
      executionId,
    ]);
  }
  // Progress as the code before this migration read it (its SELECT, without the outcome).
  const oldProgress = async () =>
    (
      await p.query<{ left: number; running: number; done: number; failed: number; cancelled: number }>(
        `SELECT count(r.fire_time) FILTER (WHERE r.state = 'pending')::int AS left,
                count(r.fire_time) FILTER (WHERE r.state = 'created' AND e.state IN ('QUEUED', 'RUNNING', 'CANCELLING'))::int AS running,
                count(r.fire_time) FILTER (WHERE r.state = 'created' AND e.state IN ('SUCCESS', 'SKIPPED'))::int AS done,
                count(r.fire_time) FILTER (WHERE r.state = 'skipped' OR (r.state = 'created' AND e.state IN ('FAILED', 'TIMED_OUT', 'CANCELLED')))::int AS failed,
                count(r.fire_time) FILTER (WHERE r.state = 'cancelled')::int AS cancelled
           FROM backfill_runs r LEFT JOIN executions e ON e.id = r.execution_id WHERE r.backfill_id = $1`,
        [backfill],
      )
    ).rows[0]!;
  const before = await oldProgress();
  assert.deepEqual(before, { left: 1, running: 2, done: 2, failed: 4, cancelled: 1 });

  // The rest of the migrations, this one among them.
  assert.deepEqual(
    await applyMigrations(p, all),
    all.slice(at).map((m) => m.name),
  );
  assert.equal(await column(), 1);
  const outcomes = await p.query<{ fire_time: Date; outcome: string | null }>(`SELECT fire_time, outcome FROM backfill_runs WHERE backfill_id = $1 ORDER BY fire_time`, [backfill]);
  assert.deepEqual(
    outcomes.rows.map((r) => r.outcome),
    cases.map((c) => c[2]),
  );
  const b = await getBackfill(p, backfill);
  assert.deepEqual({ left: b?.left, running: b?.running, done: b?.done, failed: b?.failed, cancelled: b?.cancelled }, before);
  const index = await p.query<{ indexdef: string }>(`SELECT indexdef FROM pg_indexes WHERE indexname = 'backfill_runs_unrecorded_idx'`);
  assert.match(index.rows[0]?.indexdef ?? '', /WHERE \(\(state = 'created'::text\) AND \(outcome IS NULL\)\)/);

  // With the executions deleted (as retention does), the counts of ended ones stay.
  await p.query(`DELETE FROM executions WHERE state NOT IN ('QUEUED', 'RUNNING')`);
  const gone = await getBackfill(p, backfill);
  assert.deepEqual({ left: gone?.left, running: gone?.running, done: gone?.done, failed: gone?.failed, cancelled: gone?.cancelled }, before);
});
