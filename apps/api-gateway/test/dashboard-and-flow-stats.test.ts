// getDashboard, getFlowStats and getFlowMetrics over a known history, at an
// injected clock: every figure asserted exactly (bucket edges, end states,
// percentiles, the running list, recent failures, namespace children).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestGateway, type TestGateway } from './helpers.js';
import { login, makeToken, makeUser, raw, testClock } from './identity-helpers.js';

// 14:30 UTC: the 24h window is [15:00 the day before, 15:00 today).
const clock = testClock(new Date('2026-06-10T14:30:00Z'));
let gw: TestGateway;
let viewer: string;
let seq = 0;

async function ex(o: { ns?: string; flow?: string; state: string; ended?: string; started?: string; created?: string; duration?: number }): Promise<string> {
  const id = `ex${String(++seq).padStart(4, '0')}`;
  await gw.db.pool.query(
    `INSERT INTO executions (id, state, namespace, flow_id, snapshot_id, definition, created_by, trigger_type, created_at, started_at, ended_at, duration_ms)
     VALUES ($1, $2, $3, $4, 'snap', '{}', 'test', 'manual', $5, $6, $7, $8)`,
    [id, o.state, o.ns ?? 'team', o.flow ?? 'f', o.created ?? o.started ?? o.ended ?? '2026-06-10T00:00:00Z', o.started ?? null, o.ended ?? null, o.duration ?? null],
  );
  return id;
}

const get = async (path: string) => {
  const r = await raw(gw, 'GET', path, { authorization: `Bearer ${viewer}` });
  return { status: r.status, body: r.status === 200 ? r.json<any>() : r.json<any>() };
};

before(async () => {
  gw = await startTestGateway({ now: clock.now });
  await makeUser(gw, 'root@example.com', 'admin');
  viewer = await makeToken(gw, await login(gw, 'root@example.com'), 'viewer');
  await gw.db.pool.query(`INSERT INTO snapshots (id, namespace, manifest_hash, file_count, total_bytes) VALUES ('snap', 'team', 'h', 0, 0)`);
});
after(() => gw.close());

test('the dashboard over 24h: window, buckets by end time with their edges, KPIs to the letter, running and recent failures', async () => {
  await ex({ state: 'SUCCESS', ended: '2026-06-09T15:00:00Z', duration: 100 }); // exactly on the window's start: the first bucket
  await ex({ state: 'SUCCESS', ended: '2026-06-09T14:59:59.999Z', duration: 999 }); // just before: outside
  await ex({ state: 'FAILED', ended: '2026-06-10T14:00:00Z', duration: 300 }); // the current (partial) bucket, on its edge
  await ex({ state: 'TIMED_OUT', ended: '2026-06-10T14:29:00Z', duration: 500 });
  await ex({ state: 'CANCELLED', ended: '2026-06-10T13:59:59Z', duration: 7 }); // not in the percentiles
  await ex({ state: 'SKIPPED', ended: '2026-06-10T13:00:00Z' });
  await ex({ ns: 'team.child', state: 'SUCCESS', ended: '2026-06-10T10:30:00Z', duration: 200 });
  await ex({ ns: 'teamx', state: 'FAILED', ended: '2026-06-10T10:30:00Z', duration: 50 }); // a sibling sharing the prefix
  await ex({ state: 'RUNNING', started: '2026-06-10T14:10:00Z' });
  await ex({ state: 'CANCELLING', started: '2026-06-10T14:05:00Z' });
  await ex({ ns: 'teamx', state: 'RUNNING', started: '2026-06-10T14:00:00Z' });
  // A failure long before the window still counts among recent failures.
  await ex({ state: 'FAILED', ended: '2026-05-01T00:00:00Z', duration: 1 });

  const d = await get('/api/v1/stats/dashboard?namespace=team');
  assert.equal(d.status, 200, JSON.stringify(d.body));
  assert.deepEqual([d.body.range, d.body.from, d.body.to, d.body.bucket_seconds], ['24h', '2026-06-09T15:00:00.000Z', '2026-06-10T15:00:00.000Z', 3600]);
  assert.deepEqual(d.body.kpis, {
    executions: 6,
    succeeded: 2,
    failed: 1,
    timed_out: 1,
    cancelled: 1,
    skipped: 1,
    running: 2,
    success_rate: 2 / 4,
    median_duration_ms: 250, // of 100, 200, 300, 500
  });
  assert.equal(d.body.buckets.length, 24);
  const at = (iso: string) => d.body.buckets.find((b: any) => b.start === iso);
  assert.deepEqual(at('2026-06-09T15:00:00.000Z'), { start: '2026-06-09T15:00:00.000Z', success: 1, failed: 0, timed_out: 0, cancelled: 0, skipped: 0, p50_ms: 100, p95_ms: 100 });
  assert.deepEqual(at('2026-06-10T14:00:00.000Z'), { start: '2026-06-10T14:00:00.000Z', success: 0, failed: 1, timed_out: 1, cancelled: 0, skipped: 0, p50_ms: 400, p95_ms: 490 });
  assert.deepEqual(
    at('2026-06-10T13:00:00.000Z'),
    { start: '2026-06-10T13:00:00.000Z', success: 0, failed: 0, timed_out: 0, cancelled: 1, skipped: 1 },
    'no percentiles without SUCCESS, FAILED or TIMED_OUT',
  );
  assert.deepEqual(at('2026-06-10T05:00:00.000Z'), { start: '2026-06-10T05:00:00.000Z', success: 0, failed: 0, timed_out: 0, cancelled: 0, skipped: 0 }, 'an empty bucket');
  assert.deepEqual(
    d.body.running.map((e: any) => [e.state, e.namespace]),
    [
      ['CANCELLING', 'team'],
      ['RUNNING', 'team'],
    ],
    'oldest start first; teamx is not a child of team',
  );
  assert.deepEqual(
    d.body.recent_failures.map((e: any) => [e.state, e.ended_at, e.triage_summary]),
    [
      ['TIMED_OUT', '2026-06-10T14:29:00.000Z', null],
      ['FAILED', '2026-06-10T14:00:00.000Z', null],
      ['FAILED', '2026-05-01T00:00:00.000Z', null],
    ],
  );

  // Every namespace: the sibling counts too.
  const all = await get('/api/v1/stats/dashboard');
  assert.equal(all.body.kpis.executions, 7);
  assert.equal(all.body.kpis.running, 3);
});

test('7d and 30d use day buckets aligned in UTC; another range is 422 on field range; success rate is null without decided executions', async () => {
  const week = await get('/api/v1/stats/dashboard?range=7d&namespace=nobody');
  assert.deepEqual([week.body.from, week.body.to, week.body.bucket_seconds, week.body.buckets.length], ['2026-06-04T00:00:00.000Z', '2026-06-11T00:00:00.000Z', 86400, 7]);
  assert.equal(week.body.kpis.success_rate, null);
  assert.equal(week.body.kpis.median_duration_ms, null);
  const month = await get('/api/v1/stats/dashboard?range=30d');
  assert.equal(month.body.buckets.length, 30);
  const bad = await get('/api/v1/stats/dashboard?range=1y');
  assert.equal(bad.status, 422);
  assert.equal(bad.body.error.details[0].field, 'range');
});

test('flow stats: the last 50 executions newest first; flow metrics: one series per group_by value, agg per execution', async () => {
  await gw.db.pool.query(`INSERT INTO namespaces (name, created_by) VALUES ('team', 't') ON CONFLICT DO NOTHING`).catch(() => undefined);
  const flows = await gw.db.pool.query(`SELECT 1 FROM flows WHERE namespace = 'team' AND flow_id = 'm'`);
  if (!flows.rowCount) {
    await gw.db.pool.query(`INSERT INTO flows (namespace, flow_id, path, enabled) VALUES ('team', 'm', 'm.flow.yaml', true)`);
  }
  const ids: string[] = [];
  for (let i = 0; i < 55; i++)
    ids.push(
      await ex({
        flow: 'm',
        state: 'SUCCESS',
        created: new Date(Date.UTC(2026, 5, 1, 0, i)).toISOString(),
        ended: new Date(Date.UTC(2026, 5, 1, 0, i, 30)).toISOString(),
        duration: i,
      }),
    );
  const stats = await get('/api/v1/flows/team/m/stats');
  assert.equal(stats.status, 200, JSON.stringify(stats.body));
  assert.equal(stats.body.items.length, 50);
  assert.equal(stats.body.items[0].execution_id, ids[54]);
  assert.deepEqual(Object.keys(stats.body.items[0]).sort(), ['created_at', 'duration_ms', 'ended_at', 'execution_id', 'flow_id', 'id', 'namespace', 'started_at', 'state']);
  assert.equal(stats.body.items[49].execution_id, ids[5]);
  // Metrics on the last two executions (and one older, outside the 50).
  for (const e of [ids[54]!, ids[53]!, ids[0]!]) {
    await gw.db.pool.query(
      `INSERT INTO task_runs (id, execution_id, task_key, task_type, executor_type, pool, state, attempt) VALUES ($1 || '-t', $1, 't', 'command', 'process', 'default', 'SUCCESS', 1)`,
      [e],
    );
  }
  const m = (e: string, name: string, value: number, region: string) =>
    gw.db.pool.query(`INSERT INTO task_metrics (execution_id, task_run_id, task_key, name, value, tags, at) VALUES ($1, $1 || '-t', 't', $2, $3, $4, now())`, [
      e,
      name,
      value,
      JSON.stringify({ region }),
    ]);
  await m(ids[54]!, 'rows', 10, 'eu');
  await m(ids[54]!, 'rows', 5, 'eu');
  await m(ids[54]!, 'rows', 7, 'us');
  await m(ids[53]!, 'rows', 2, 'eu');
  await m(ids[0]!, 'rows', 1000, 'eu');
  const sum = await get('/api/v1/flows/team/m/metrics?metric=rows&group_by=region');
  assert.equal(sum.status, 200, JSON.stringify(sum.body));
  assert.deepEqual(
    sum.body.series.map((s: any) => [s.tag_value, s.points.map((p: any) => [p.execution_id, p.value])]),
    [
      [
        'eu',
        [
          [ids[53], 2],
          [ids[54], 15],
        ],
      ],
      ['us', [[ids[54], 7]]],
    ],
  );
  const max = await get('/api/v1/flows/team/m/metrics?metric=rows&agg=max');
  assert.deepEqual(max.body.series, [
    {
      tag_value: null,
      points: [
        { execution_id: ids[53], created_at: max.body.series[0].points[0].created_at, value: 2 },
        { execution_id: ids[54], created_at: max.body.series[0].points[1].created_at, value: 10 },
      ],
    },
  ]);
  assert.equal((await get('/api/v1/flows/team/m/metrics?metric=rows&agg=median')).body.error.details[0].field, 'agg');
  assert.equal((await get('/api/v1/flows/team/m/metrics')).body.error.details[0].field, 'metric');
  assert.equal((await get('/api/v1/flows/team/nope/stats')).status, 404);
});

test('a recent failure carries the summary of its latest finished triage', async () => {
  const id = await ex({ ns: 'triaged', state: 'FAILED', ended: '2026-06-10T12:00:00Z', duration: 5 });
  const insight = (n: string, status: string, summary: string, at: string) =>
    gw.db.pool.query(`INSERT INTO ai_insights (id, execution_id, kind, status, summary, created_at) VALUES ($1, $2, 'triage', $3, $4, $5)`, [n, id, status, summary, at]);
  await insight('i1', 'done', 'the disk was full', '2026-06-10T12:01:00Z');
  await insight('i2', 'done', 'the disk was full again', '2026-06-10T12:05:00Z');
  await insight('i3', 'running', 'not yet', '2026-06-10T12:06:00Z');
  const d = await get('/api/v1/stats/dashboard?namespace=triaged');
  assert.deepEqual(
    d.body.recent_failures.map((e: any) => [e.id, e.triage_summary]),
    [[id, 'the disk was full again']],
  );
});

test('running: oldest start first, at most 20, counted in full; recent failures: the last 10 ended, whatever the range; viewers may read, strangers may not', async () => {
  // 23 running, inserted in no particular order of start.
  const starts = Array.from({ length: 23 }, (_, i) => new Date(Date.UTC(2026, 5, 10, 13, (i * 7) % 23, i)).toISOString());
  for (const [i, started] of starts.entries()) await ex({ ns: 'caps', state: i % 4 ? 'RUNNING' : 'CANCELLING', started });
  await ex({ ns: 'caps', state: 'QUEUED', created: '2026-06-10T12:00:00Z' }); // not running
  // 12 failures, most long before any window; and later ends in other states that do not count.
  const ends = Array.from({ length: 12 }, (_, i) => new Date(Date.UTC(2026, 0, 1 + i * 13, 8)).toISOString());
  for (const [i, ended] of ends.entries()) await ex({ ns: 'caps', state: i % 3 ? 'FAILED' : 'TIMED_OUT', ended, duration: i });
  await ex({ ns: 'caps', state: 'CANCELLED', ended: '2026-06-10T14:00:00Z', duration: 1 });
  await ex({ ns: 'caps', state: 'SUCCESS', ended: '2026-06-10T14:01:00Z', duration: 1 });

  const d = await get('/api/v1/stats/dashboard?range=24h&namespace=caps');
  assert.equal(d.status, 200);
  assert.equal(d.body.kpis.running, 23, 'every running execution counts');
  assert.deepEqual(
    d.body.running.map((e: any) => e.started_at),
    [...starts]
      .sort()
      .slice(0, 20)
      .map((s) => new Date(s).toISOString()),
  );
  assert.ok(d.body.running.every((e: any) => e.state === 'RUNNING' || e.state === 'CANCELLING'));
  assert.deepEqual(
    d.body.recent_failures.map((e: any) => e.ended_at),
    [...ends]
      .reverse()
      .slice(0, 10)
      .map((s) => new Date(s).toISOString()),
    'newest end first, none of them in the 24h window',
  );
  assert.deepEqual(d.body.kpis.failed + d.body.kpis.timed_out, 0);

  assert.equal((await raw(gw, 'GET', '/api/v1/stats/dashboard')).status, 401);
});

test('namespace a.b selects a.b and a.b.c, never a.bc or a: KPIs, buckets, running and recent failures alike', async () => {
  for (const ns of ['a.b', 'a.b.c', 'a.bc', 'a']) {
    await ex({ ns, state: 'SUCCESS', ended: '2026-06-10T09:15:00Z', duration: ns.length * 100 });
    await ex({ ns, state: 'FAILED', ended: '2026-06-10T14:15:00Z', duration: 10 });
    await ex({ ns, state: 'RUNNING', started: '2026-06-10T14:20:00Z' });
  }
  const d = await get('/api/v1/stats/dashboard?namespace=a.b');
  assert.deepEqual(d.body.kpis, { executions: 4, succeeded: 2, failed: 2, timed_out: 0, cancelled: 0, skipped: 0, running: 2, success_rate: 0.5, median_duration_ms: 155 }); // of 10, 10, 300, 500
  assert.deepEqual(
    d.body.buckets.find((b: any) => b.start === '2026-06-10T09:00:00.000Z'),
    { start: '2026-06-10T09:00:00.000Z', success: 2, failed: 0, timed_out: 0, cancelled: 0, skipped: 0, p50_ms: 400, p95_ms: 490 },
  );
  assert.deepEqual(d.body.running.map((e: any) => e.namespace).sort(), ['a.b', 'a.b.c']);
  assert.deepEqual(d.body.recent_failures.map((e: any) => e.namespace).sort(), ['a.b', 'a.b.c']);
  const a = await get('/api/v1/stats/dashboard?namespace=a');
  assert.equal(a.body.kpis.executions, 8, 'a selects all four');
});

test('day buckets: an end at 00:00 UTC opens its day, the window starts at a midnight, today is the current partial bucket', async () => {
  await ex({ ns: 'days', state: 'SUCCESS', ended: '2026-06-04T00:00:00Z', duration: 10 }); // the 7-day window's first instant
  await ex({ ns: 'days', state: 'SUCCESS', ended: '2026-06-03T23:59:59.999Z', duration: 20 }); // the instant before: outside
  await ex({ ns: 'days', state: 'TIMED_OUT', ended: '2026-06-06T23:59:59.999Z', duration: 30 }); // the last instant of 6 June
  await ex({ ns: 'days', state: 'FAILED', ended: '2026-06-07T00:00:00Z', duration: 40 }); // the first of 7 June
  await ex({ ns: 'days', state: 'SUCCESS', ended: '2026-06-10T00:00:00Z', duration: 50 }); // today, a closed hour
  await ex({ ns: 'days', state: 'SKIPPED', ended: '2026-06-10T14:29:59Z' }); // today, the open hour

  const week = await get('/api/v1/stats/dashboard?range=7d&namespace=days');
  assert.deepEqual(
    week.body.buckets.map((b: any) => [b.start.slice(0, 10), b.success, b.failed, b.timed_out, b.skipped, b.p50_ms ?? null]),
    [
      ['2026-06-04', 1, 0, 0, 0, 10],
      ['2026-06-05', 0, 0, 0, 0, null],
      ['2026-06-06', 0, 0, 1, 0, 30],
      ['2026-06-07', 0, 1, 0, 0, 40],
      ['2026-06-08', 0, 0, 0, 0, null],
      ['2026-06-09', 0, 0, 0, 0, null],
      ['2026-06-10', 1, 0, 0, 1, 50],
    ],
  );
  assert.deepEqual(week.body.kpis, { executions: 5, succeeded: 2, failed: 1, timed_out: 1, cancelled: 0, skipped: 1, running: 0, success_rate: 0.5, median_duration_ms: 35 });
  const month = await get('/api/v1/stats/dashboard?range=30d&namespace=days');
  assert.deepEqual([month.body.from, month.body.to], ['2026-05-12T00:00:00.000Z', '2026-06-11T00:00:00.000Z']);
  assert.equal(month.body.kpis.executions, 6, 'the 30-day window holds the end of 3 June too');
});
