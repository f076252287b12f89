// Benchmark: the dashboard and a flow's stats (issue 17) on a large history,
// against a real api-gateway process on an embedded PostgreSQL.
//
//   seed       BENCH_EXECUTIONS executions (default 1,000,000) ended over
//              the last 60 days in every end state, across 20 namespaces
//              (one flow `team/big` holds 1 in 10), 5 task runs each
//              (5,000,000), written in bulk by SQL, then ANALYZE.
//   dashboard  getDashboard for 30d, 7d and 24h, each for every namespace
//              and for `team` with its children, over HTTP, 40 requests
//              each after 5 warm-ups: p50 and p95. Target: 30d under 200 ms
//              p95. The very first request is timed on its own: it rolls up
//              the 30 days' closed hours (dashboard_hours), which later
//              requests read instead of the executions, and the gateway
//              keeps them in memory (checked against their versions at each
//              request).
//   flow stats getFlowStats of team/big, same way. Target: under 20 ms p95.
// The plans of the dashboard's statement over the rollup are printed
// (EXPLAIN ANALYZE): a gateway's first 30-day request, when it fetches every
// rolled-up hour, and the next ones, when it knows them all but the open hour.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { q, round } from './lib/logs-helpers.mjs';
import { root, startDeployment } from './lib/svc-deployment.mjs';

const { startPostgresKeeper } = await import(path.join(root, 'packages/db/dist/index.js'));
const { HOUR_FIGURES_SQL } = await import(path.join(root, 'packages/engine/dist/sql/dashboard-hours.js'));
const EXECUTIONS = Number(process.env.BENCH_EXECUTIONS ?? 1_000_000);
const SAMPLES = 40;

async function timed(d, token, p) {
  const times = [];
  for (let i = 0; i < SAMPLES + 5; i++) {
    const t = performance.now();
    const r = await fetch(`${d.base}${p}`, { headers: { authorization: `Bearer ${token}` } });
    await r.text();
    if (r.status !== 200) throw new Error(`${p}: ${r.status}`);
    if (i >= 5) times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { p50_ms: round(q(times, 0.5)), p95_ms: round(q(times, 0.95)) };
}

export async function run() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-dashboard-'));
  fs.chmodSync(dir, 0o755);
  const cluster = await startPostgresKeeper(path.join(dir, 'pg'), { database: 'svc', ephemeral: true, stdio: 'ignore' });
  const stops = [() => cluster.stop()];
  try {
    const d = await startDeployment({ url: cluster.url, dir: path.join(dir, 'svc') });
    stops.unshift(() => d.stop());
    const token = (await d.api('POST', '/api/v1/tokens', { name: 'bench-reader', role: 'viewer' })).body.secret;
    await d.saveFlows('team', { 'big.flow.yaml': JSON.stringify({ id: 'big', tasks: [{ id: 't', type: 'command', command: ['true'] }] }) });
    const db = new pg.Pool({ connectionString: cluster.url, max: 2 });
    stops.unshift(() => db.end());
    const snap = (await db.query(`SELECT snapshot_id FROM namespace_versions WHERE namespace = 'team' LIMIT 1`)).rows[0].snapshot_id;
    const t0 = performance.now();
    // Ended over the last 60 days; states in the proportions of a busy deployment.
    await db.query(
      `INSERT INTO executions (id, state, namespace, flow_id, snapshot_id, definition, created_by, trigger_type, created_at, started_at, ended_at, duration_ms)
       SELECT 'b' || lpad(g::text, 9, '0'),
         (ARRAY['SUCCESS','SUCCESS','SUCCESS','SUCCESS','SUCCESS','SUCCESS','FAILED','TIMED_OUT','CANCELLED','SKIPPED'])[1 + g % 10],
         CASE WHEN g % 10 = 3 THEN 'team' WHEN g % 20 = 7 THEN 'team.child' ELSE 'ns' || (g % 18) END,
         CASE WHEN g % 10 = 3 THEN 'big' ELSE 'f' || (g % 50) END,
         $2, '{}', 'bench', 'manual',
         now() - (g::float8 / $1) * interval '60 days' - interval '1 minute',
         now() - (g::float8 / $1) * interval '60 days' - interval '1 minute',
         now() - (g::float8 / $1) * interval '60 days',
         (g::int8 * 7919) % 60000
       FROM generate_series(1, $1) g`,
      [EXECUTIONS, snap],
    );
    await db.query(
      `INSERT INTO task_runs (id, execution_id, task_key, task_type, executor_type, pool, state, attempt, created_at, ended_at)
       SELECT e.id || '-' || k, e.id, 't' || k, 'command', 'process', 'default', 'SUCCESS', 1, e.created_at, e.ended_at
       FROM executions e, generate_series(1, 5) k WHERE e.id LIKE 'b%'`,
    );
    await db.query('ANALYZE');
    const seedSeconds = round((performance.now() - t0) / 1000);
    const dash = (q) => `/api/v1/stats/dashboard?${q}`;
    const first = performance.now();
    const r0 = await fetch(`${d.base}${dash('range=30d')}`, { headers: { authorization: `Bearer ${token}` } });
    if (r0.status !== 200) throw new Error(`first dashboard request: ${r0.status} ${await r0.text()}`);
    await r0.text();
    const firstMs = round(performance.now() - first);
    const result = {
      executions: EXECUTIONS,
      task_runs: EXECUTIONS * 5,
      seed_seconds: seedSeconds,
      dashboard_first_request_ms: firstMs,
      rolled_up_hours: Number((await db.query(`SELECT count(*) AS n FROM dashboard_hours`)).rows[0].n),
      dashboard_30d: await timed(d, token, dash('range=30d')),
      dashboard_30d_namespace: await timed(d, token, dash('range=30d&namespace=team')),
      dashboard_7d: await timed(d, token, dash('range=7d')),
      dashboard_7d_namespace: await timed(d, token, dash('range=7d&namespace=team')),
      dashboard_24h: await timed(d, token, dash('range=24h')),
      dashboard_24h_namespace: await timed(d, token, dash('range=24h&namespace=team')),
      flow_stats: await timed(d, token, '/api/v1/flows/team/big/stats'),
    };
    const day = 86_400_000;
    const to = new Date(Math.floor(Date.now() / day) * day + day);
    const marks = (await db.query(`SELECT hour, version::text FROM dashboard_hours`)).rows;
    const explain = async (ns, known) =>
      (
        await db.query(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY ON) ${HOUR_FIGURES_SQL}`, [
          new Date(to.getTime() - 30 * day),
          to,
          ns,
          known.map((m) => m.hour),
          known.map((m) => m.version),
        ])
      ).rows.map((r) => r['QUERY PLAN']);
    // A process's first request (it knows no hour) and the next ones (it knows every rolled-up hour).
    result.plan_30d_first = await explain(null, []);
    result.plan_30d_next = await explain(null, marks);
    result.plan_30d_team_next = await explain('team', marks);
    result.targets = {
      dashboard_30d_under_200_ms_p95: result.dashboard_30d.p95_ms < 200 && result.dashboard_30d_namespace.p95_ms < 200,
      flow_stats_under_20_ms_p95: result.flow_stats.p95_ms < 20,
    };
    return result;
  } finally {
    for (const stop of stops) await stop().catch?.(() => undefined);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
