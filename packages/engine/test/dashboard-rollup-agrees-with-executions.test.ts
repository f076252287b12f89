// The dashboard's rollup of closed hours gives the very figures that
// percentile_cont over the executions gives (the statement the dashboard ran
// before it had a rollup), on a random history, cold and rolled up, after
// changes to executions that ended in rolled-up hours, and with the lock
// interleavings that several instances produce. Each check runs through two
// processes' caches of rolled-up hours (one that keeps everything, one that
// can keep almost nothing), which must never serve a stale hour, over every
// namespace, one namespace, and a `none` caller's readable ones (`within`).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '@svc/db/testing';
import { DashboardHoursCache } from '../src/systems/dashboard-cache.js';
import { hourFigures } from '../src/sql/dashboard-hours.js';
import { dashboard } from '../src/internal.js';
import { dashboardWindow, type DashboardRange } from '../src/systems/dashboards.js';

const NOW = new Date('2026-06-10T14:30:00Z');
const HOUR = 3_600_000;
const NAMESPACES = ['a', 'a.b', 'a.b.c', 'a.bc', 'b'];
const STATES = ['SUCCESS', 'SUCCESS', 'SUCCESS', 'FAILED', 'TIMED_OUT', 'CANCELLED', 'SKIPPED', 'RUNNING'];

let tdb: TestDatabase;
let pool: pg.Pool;
let seq = 0;

// A small deterministic generator (the history is the same at every run).
let x = 20260610;
const rnd = () => (x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 2 ** 32;
const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)]!;

async function insert(rows: { ns: string; state: string; ended: Date | null; duration: number | null }[], q: pg.Pool | pg.PoolClient = pool): Promise<string[]> {
  const ids = rows.map(() => `ex${String(++seq).padStart(6, '0')}`);
  await q.query(
    `INSERT INTO executions (id, state, namespace, flow_id, snapshot_id, definition, created_by, trigger_type, created_at, started_at, ended_at, duration_ms)
     SELECT u.id, u.state, u.ns, 'f', 'snap', '{}', 'test', 'manual', COALESCE(u.ended, $6), COALESCE(u.ended, $6), u.ended, u.duration
     FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::int8[]) AS u(id, state, ns, ended, duration)`,
    [ids, rows.map((r) => r.state), rows.map((r) => r.ns), rows.map((r) => r.ended), rows.map((r) => r.duration), NOW],
  );
  return ids;
}

function randomExecution(windowStart: number) {
  const state = pick(STATES);
  const ended = state === 'RUNNING' ? null : new Date(windowStart + Math.floor(rnd() * (NOW.getTime() - windowStart)));
  // Some end exactly on an hour (a bucket edge); some decided ones have no duration.
  if (ended && rnd() < 0.05) ended.setUTCMinutes(0, 0, 0);
  const duration = state === 'RUNNING' || (state !== 'CANCELLED' && state !== 'SKIPPED' && rnd() < 0.03) ? null : Math.floor(rnd() * 100_000);
  return { ns: pick(NAMESPACES), state, ended, duration };
}

/** A dashboard's filter: one namespace (null: all), or only some namespaces and their children. */
type Filter = { namespace: string | null } | { within: string[] };
const WITHIN_SQL = `($5::text[] IS NULL OR EXISTS (SELECT 1 FROM unnest($5::text[]) w WHERE e.namespace = w OR e.namespace LIKE w || '.%'))`;
const filterArgs = (f: Filter) => ('within' in f ? [null, f.within] : [f.namespace, null]);

/** The figures as percentile_cont computes them over the executions (the dashboard's statement before the rollup). */
async function reference(range: DashboardRange, f: Filter) {
  const w = dashboardWindow(range, NOW);
  const r = await pool.query<{ b: number | null; success: string; failed: string; timed_out: string; cancelled: string; skipped: string; p50: number | null; p95: number | null }>(
    `SELECT floor(extract(epoch FROM (e.ended_at - $1::timestamptz)) / $3)::int AS b,
       count(*) FILTER (WHERE e.state = 'SUCCESS') AS success, count(*) FILTER (WHERE e.state = 'FAILED') AS failed,
       count(*) FILTER (WHERE e.state = 'TIMED_OUT') AS timed_out, count(*) FILTER (WHERE e.state = 'CANCELLED') AS cancelled,
       count(*) FILTER (WHERE e.state = 'SKIPPED') AS skipped,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY e.duration_ms) FILTER (WHERE e.state IN ('SUCCESS', 'FAILED', 'TIMED_OUT')) AS p50,
       percentile_cont(0.95) WITHIN GROUP (ORDER BY e.duration_ms) FILTER (WHERE e.state IN ('SUCCESS', 'FAILED', 'TIMED_OUT')) AS p95
     FROM executions e
     WHERE e.ended_at >= $1 AND e.ended_at < $2 AND e.state IN ('SUCCESS', 'FAILED', 'TIMED_OUT', 'CANCELLED', 'SKIPPED')
       AND ($4::text IS NULL OR e.namespace = $4 OR e.namespace LIKE $4 || '.%') AND ${WITHIN_SQL}
     GROUP BY GROUPING SETS ((floor(extract(epoch FROM (e.ended_at - $1::timestamptz)) / $3)::int), ())`,
    [w.from, w.to, w.bucketSeconds, ...filterArgs(f)],
  );
  const all = r.rows.find((x) => x.b === null);
  const n = (v: string | undefined) => Number(v ?? 0);
  const decided = n(all?.success) + n(all?.failed) + n(all?.timed_out);
  return {
    kpis: {
      executions: decided + n(all?.cancelled) + n(all?.skipped),
      succeeded: n(all?.success),
      failed: n(all?.failed),
      timed_out: n(all?.timed_out),
      cancelled: n(all?.cancelled),
      skipped: n(all?.skipped),
      success_rate: decided ? n(all?.success) / decided : null,
      median_duration_ms: all?.p50 ?? null,
    },
    buckets: Array.from({ length: w.buckets }, (_, i) => {
      const b = r.rows.find((x) => x.b === i);
      return {
        start: new Date(w.from.getTime() + i * w.bucketSeconds * 1000).toISOString(),
        success: n(b?.success),
        failed: n(b?.failed),
        timed_out: n(b?.timed_out),
        cancelled: n(b?.cancelled),
        skipped: n(b?.skipped),
        ...(b && b.p50 !== null ? { p50_ms: b.p50, p95_ms: b.p95 } : {}),
      };
    }),
  };
}

// Two processes: one keeps every hour it fetched, the other almost none (it evicts at once).
const caches = [new DashboardHoursCache(), new DashboardHoursCache(10)];

// `a.b` and `b` (with a.b.c, not a nor a.bc), and none at all.
const FILTERS: Filter[] = [{ namespace: null }, { namespace: 'a' }, { namespace: 'a.b' }, { namespace: 'b' }, { within: ['a.b', 'b'] }, { within: [] }];

async function assertAgrees(label: string, q: pg.Pool = pool) {
  for (const range of ['24h', '7d', '30d'] as const) {
    for (const f of FILTERS) {
      const expected = await reference(range, f);
      for (const [i, cache] of caches.entries()) {
        const d = await dashboard(q, cache, { range, ...('within' in f ? { within: f.within } : { namespace: f.namespace ?? undefined }), now: NOW });
        const { running: _, ...kpis } = d.kpis;
        assert.deepEqual({ kpis, buckets: d.buckets }, expected, `${label}: ${range} ${JSON.stringify(f)}, cache ${i}`);
      }
    }
  }
}

const marked = async () => (await pool.query<{ hour: Date }>(`SELECT hour FROM dashboard_hours ORDER BY hour`)).rows.map((r) => r.hour.getTime());
const hourOf = (t: Date) => Math.floor(t.getTime() / HOUR) * HOUR;

before(async () => {
  tdb = await createTestDatabase();
  pool = new pg.Pool({ connectionString: tdb.url, max: 6 });
  // An idle connection ended by the server (the database's drop at the end) is no failure of this test.
  pool.on('error', () => undefined);
  await pool.query(`INSERT INTO snapshots (id, namespace, manifest_hash, file_count, total_bytes) VALUES ('snap', 'a', 'h', 0, 0)`);
  const start = NOW.getTime() - 32 * 24 * HOUR;
  await insert(Array.from({ length: 3000 }, () => randomExecution(start)));
  // The current (open) hour and the one before, busier.
  await insert(Array.from({ length: 200 }, () => randomExecution(NOW.getTime() - 2 * HOUR)));
});
after(async () => {
  await pool.end();
  await tdb.drop();
});

test('cold, then rolled up: every figure equals percentile_cont over the executions; only closed hours are rolled up', async () => {
  assert.deepEqual(await marked(), []);
  await assertAgrees('cold');
  const hours = await marked();
  const currentHour = hourOf(NOW);
  assert.equal(hours.length, 29 * 24 + 14, 'the closed hours of the 30-day window: 29 days, and today from 00:00 to 14:00');
  assert.ok(
    hours.every((h) => h < currentHour),
    'the open hour is read live',
  );
  await assertAgrees('rolled up');
  const figures = await pool.query(`SELECT count(*)::int AS n FROM dashboard_hour_figures`);
  assert.ok(figures.rows[0].n > hours.length, 'one row per hour and namespace');
  // The process that keeps what it fetched sends back every closed hour's version and gets no figures again.
  const w = dashboardWindow('30d', NOW);
  const kept = caches[0]!.kept(null, w.from, w.to);
  assert.equal(kept.size, hours.length);
  const again = await hourFigures(pool, { from: w.from, to: w.to, namespace: null, known: new Map([...kept].map(([h, e]) => [h, e.version])) });
  assert.deepEqual(
    again.filter((h) => h.version !== null && h.figures !== null),
    [],
    'no rolled-up hour sent twice',
  );
  assert.ok(
    again.every((h) => h.version !== null || h.hour.getTime() >= hourOf(NOW)),
    'only the open hour read live',
  );
});

test('within: the running list and count and the recent failures are those of the readable namespaces and their children only', async () => {
  for (const f of FILTERS) {
    const d = await dashboard(pool, new DashboardHoursCache(), { range: '24h', ...('within' in f ? { within: f.within } : { namespace: f.namespace ?? undefined }), now: NOW });
    const ids = async (sql: string) => (await pool.query<{ id: string }>(sql, filterArgs(f))).rows.map((r) => r.id);
    const where = `($1::text IS NULL OR e.namespace = $1 OR e.namespace LIKE $1 || '.%') AND ${WITHIN_SQL.replaceAll('$5', '$2')}`;
    const running = await ids(`SELECT e.id FROM executions e WHERE e.state IN ('RUNNING', 'CANCELLING') AND ${where} ORDER BY e.started_at NULLS LAST, e.id`);
    const failures = await ids(
      `SELECT e.id FROM executions e WHERE e.state IN ('FAILED', 'TIMED_OUT') AND e.ended_at IS NOT NULL AND ${where} ORDER BY e.ended_at DESC, e.id DESC LIMIT 10`,
    );
    const label = JSON.stringify(f);
    assert.equal(d.kpis.running, running.length, label);
    assert.deepEqual(
      d.running.map((e) => e.id),
      running.slice(0, 20),
      label,
    );
    assert.deepEqual(
      d.recent_failures.map((e) => e.id),
      failures,
      label,
    );
    if ('within' in f && f.within.length) {
      assert.ok(running.length > 0 && failures.length > 0, `${label}: something to show`);
      for (const e of [...d.running, ...d.recent_failures]) assert.ok(['a.b', 'a.b.c', 'b'].includes(e.namespace), `${label}: ${e.namespace}`);
    }
  }
});

test("changes to executions ended in rolled-up hours (a late end, a restart, a deletion, a new duration) delete those hours' marks", async () => {
  await assertAgrees('before');
  const closed = new Date(hourOf(NOW) - 5 * HOUR + 17 * 60_000);
  // A late end, committed after its hour was rolled up (another instance's clock, a slow commit).
  await insert([{ ns: 'a.b.c', state: 'FAILED', ended: closed, duration: 123_456 }]);
  assert.ok(!(await marked()).includes(hourOf(closed)));
  await assertAgrees('a late end');

  // A restart: an ended execution runs again (no end time) and ends in the open hour.
  const victim = (
    await pool.query<{ id: string; ended_at: Date }>(`SELECT id, ended_at FROM executions WHERE state = 'FAILED' AND ended_at < $1 ORDER BY ended_at LIMIT 1 OFFSET 40`, [
      new Date(hourOf(NOW) - 24 * HOUR),
    ])
  ).rows[0]!;
  await pool.query(`UPDATE executions SET state = 'RUNNING', ended_at = NULL, duration_ms = NULL WHERE id = $1`, [victim.id]);
  assert.ok(!(await marked()).includes(hourOf(victim.ended_at)));
  await assertAgrees('restarted');
  await pool.query(`UPDATE executions SET state = 'SUCCESS', ended_at = $2, duration_ms = 5 WHERE id = $1`, [victim.id, new Date(NOW.getTime() - 60_000)]);
  await assertAgrees('restarted and ended again');

  // Retention: executions deleted from old hours.
  const gone = await pool.query<{ ended_at: Date }>(
    `DELETE FROM executions WHERE id IN (SELECT id FROM executions WHERE ended_at < $1 ORDER BY ended_at LIMIT 50) RETURNING ended_at`,
    [new Date(NOW.getTime() - 20 * 24 * HOUR)],
  );
  const marks = await marked();
  assert.ok(gone.rows.every((r) => !marks.includes(hourOf(r.ended_at))));
  await assertAgrees('deleted');

  // Another duration, another state, another namespace.
  await pool.query(`UPDATE executions SET duration_ms = duration_ms + 1 WHERE id IN (SELECT id FROM executions WHERE state = 'SUCCESS' AND ended_at < $1 LIMIT 5)`, [
    new Date(hourOf(NOW)),
  ]);
  await pool.query(`UPDATE executions SET state = 'TIMED_OUT' WHERE id IN (SELECT id FROM executions WHERE state = 'FAILED' AND ended_at < $1 LIMIT 5)`, [new Date(hourOf(NOW))]);
  await pool.query(`UPDATE executions SET namespace = 'a.bc' WHERE id IN (SELECT id FROM executions WHERE namespace = 'a.b' AND ended_at < $1 LIMIT 5)`, [new Date(hourOf(NOW))]);
  await assertAgrees('updated');

  // An update that touches nothing the rollup reads keeps the marks.
  const before = await marked();
  await pool.query(`UPDATE executions SET labels = '{"x": "y"}' WHERE ended_at < $1`, [new Date(hourOf(NOW))]);
  assert.deepEqual(await marked(), before);
});

test('an end not yet committed in a closed hour: the roll-up leaves that hour to be read live, and it counts once committed', async () => {
  await assertAgrees('before');
  const closed = new Date(hourOf(NOW) - 3 * HOUR + 60_000);
  await pool.query(`DELETE FROM dashboard_hours WHERE hour = $1`, [new Date(hourOf(closed))]);
  const writer = await pool.connect();
  try {
    await writer.query('BEGIN');
    await insert([{ ns: 'b', state: 'SUCCESS', ended: closed, duration: 77 }], writer);
    // The writer's trigger holds the hour's lock (shared) until it commits.
    await assertAgrees('uncommitted');
    assert.ok(!(await marked()).includes(hourOf(closed)), 'not rolled up while a change to it is in flight');
    await writer.query('COMMIT');
  } finally {
    writer.release();
  }
  await assertAgrees('committed');
  assert.ok((await marked()).includes(hourOf(closed)), 'rolled up once the change committed');
});

test('a change that arrives while its hour is being rolled up waits, then deletes the fresh mark', async () => {
  await assertAgrees('before');
  const closed = new Date(hourOf(NOW) - 7 * HOUR + 60_000);
  assert.ok((await marked()).includes(hourOf(closed)));
  // A roll-up in progress elsewhere: it holds the hour's lock and has written the hour's mark (without this execution).
  const roller = await pool.connect();
  try {
    await roller.query('BEGIN');
    await roller.query(`SELECT pg_advisory_xact_lock(dashboard_hour_lock_key($1))`, [new Date(hourOf(closed))]);
    await roller.query(`DELETE FROM dashboard_hours WHERE hour = $1`, [new Date(hourOf(closed))]);
    await roller.query(`INSERT INTO dashboard_hours (hour) VALUES ($1)`, [new Date(hourOf(closed))]);
    let done = false;
    const write = insert([{ ns: 'a', state: 'TIMED_OUT', ended: closed, duration: 999_999 }]).then(() => (done = true));
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(done, false, 'the writer waits for the roll-up');
    await roller.query('COMMIT');
    await write;
  } finally {
    roller.release();
  }
  assert.ok(!(await marked()).includes(hourOf(closed)), 'the roll-up that missed the write is not trusted');
  await assertAgrees('after');
});

test('two instances rolling up at once agree, and marks past the longest window are forgotten', async () => {
  await pool.query(`DELETE FROM dashboard_hours`);
  const other = new pg.Pool({ connectionString: tdb.url, max: 6 });
  try {
    const both = await Promise.all([pool, other].map((q) => dashboard(q, new DashboardHoursCache(), { range: '30d', now: NOW })));
    assert.deepEqual(both[0], both[1]);
    await assertAgrees('after a concurrent roll-up', other);
  } finally {
    await other.end();
  }
  const later = new Date(NOW.getTime() + 40 * 24 * HOUR);
  await dashboard(pool, caches[0]!, { range: '24h', now: later });
  const oldest = dashboardWindow('30d', later).from.getTime() - 24 * HOUR;
  assert.ok((await marked()).every((h) => h >= oldest));
});

test('TRUNCATE of executions forgets every mark', async () => {
  await assertAgrees('before');
  assert.ok((await marked()).length > 0);
  await pool.query(`TRUNCATE executions CASCADE`);
  assert.deepEqual(await marked(), []);
  await assertAgrees('empty');
});
