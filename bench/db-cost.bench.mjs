// Benchmark: what one execution costs the database (issue 30), and a
// deployment of two api-gateways and two dispatchers against one database.
//
// An embedded PostgreSQL 18 (fsync and synchronous_commit on, as shipped;
// pg_stat_statements preloaded, track = top) runs database `svc`; a real
// deployment (lib/svc-deployment.mjs: api-gateway, one dispatcher with
// SVC_WORKER_SLOTS=8 and SVC_EXECUTORS=process, maintenance) serves it; flows
// are triggered over HTTP with an API token, BENCH_DBCOST_IN_FLIGHT (16)
// triggers in flight. Scenarios, in this order:
//
//   one_1x1     BENCH_DBCOST_COUNT (1,000) executions of a one-task flow
//               (`command: ["true"]`), one gateway and one dispatcher: the
//               cost model per execution, executions per second, p50 trigger
//               to end
//   chain5_1x1  COUNT / 5 executions of a chain of 5 such tasks: the cost per
//               execution and per task, and so the marginal cost of a task
//               (chain5 - one) / 4
//   one_2x2     a second gateway and a second dispatcher started beside the
//               first (lib/multi-deployment.mjs), triggers spread over both
//               gateways (half the in-flight triggers each), the same work
//   one_1x1_after  the second gateway and dispatcher stopped, the same work
//               again, so the 1x1 figure brackets the 2x2 one in time
//
// Autovacuum is off; after each window, VACUUM (ANALYZE) of the database is
// measured on its own (PostgreSQL CPU, WAL) and added as the model's vacuum
// line. Each scenario follows a checkpoint and a warm-up (BENCH_DBCOST_WARMUP, 200
// one-task executions, 20 chains: generic plans, caches and the first
// full-page image of every hot page after the checkpoint are out of the
// window), and is measured between two readings of the database's counters
// (lib/db-cost-counters.mjs), each taken after everything was idle for 11 s
// so the cumulative statistics have been flushed, and the WAL written in
// between is read back by record type (pg_walinspect). The idle background (the
// apps' heartbeats and polls, and PostgreSQL's own CPU), measured over
// BENCH_DBCOST_IDLE_MS (6 s) with the same instances running, is taken out.
// PostgreSQL's CPU is /proc utime+stime of the postmaster and its backends
// (lib/cpu.mjs); the projection per core is 1000 / (its ms per execution).
// Every scenario checks that each execution ended SUCCESS exactly once (one
// SUCCESS history row, each task run claimed once and ended SUCCESS on its
// first attempt) and counts the task runs each dispatcher claimed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { cpuClock } from './lib/cpu.mjs';
import { delta, indexCounts, lessIdle, observer, perUnit, rates, snapshot, walRecords } from './lib/db-cost-counters.mjs';
import { median, quantile } from './lib/engine-scenarios.mjs';
import { createToken, gatewayClient, startInstance, waitForDispatcher } from './lib/multi-deployment.mjs';
import { prepareStatementCounting } from './lib/statements.mjs';
import { ENDED, root, startDeployment, wallMs } from './lib/svc-deployment.mjs';

const { startPostgresKeeper } = await import(path.join(root, 'packages/db/dist/index.js'));

const COUNT = Number(process.env.BENCH_DBCOST_COUNT ?? 1000);
const IN_FLIGHT = Number(process.env.BENCH_DBCOST_IN_FLIGHT ?? 16);
const WARMUP = Number(process.env.BENCH_DBCOST_WARMUP ?? 200);
const IDLE_MS = Number(process.env.BENCH_DBCOST_IDLE_MS ?? 6000);
const SLOTS = 8;
const CHAIN = 5;
const SETTLE_MS = 11_000; // longer than the 10 s an idle backend may wait to flush its statistics (PGSTAT_IDLE_INTERVAL)
const NS = 'bench';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const r1 = (x) => +x.toFixed(1);
const r2 = (x) => +x.toFixed(2);
const loadavg = () => os.loadavg().map(r2);

const FLOWS = {
  'one.flow.yaml': 'id: one\ntasks:\n  - {id: t, type: command, command: ["true"]}\n',
  'chain5.flow.yaml': `id: chain5\ntasks:\n${Array.from({ length: CHAIN }, (_, i) => `  - {id: t${i}, type: command, command: ["true"]${i ? `, depends_on: [t${i - 1}]` : ''}}`).join('\n')}\n`,
};

async function inFlight(count, concurrency, fn) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      while (next < count) await fn(next++, worker);
    }),
  );
}

async function waitAllEnded(obs, ids, timeoutMs = 600_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const { n } = (await obs.query(`SELECT count(*)::int AS n FROM executions WHERE id = ANY($1) AND state = ANY($2)`, [ids, ENDED])).rows[0];
    if (n === ids.length) break;
    if (Date.now() > until) throw new Error(`${ids.length - n} of ${ids.length} executions did not end in ${timeoutMs} ms`);
    await sleep(200);
  }
  return (await obs.query(`SELECT id, state, ended_at FROM executions WHERE id = ANY($1)`, [ids])).rows;
}

/** `count` executions of `flow`, `IN_FLIGHT` triggers in flight, worker w triggering through clients[w % clients.length]. */
async function drive(obs, clients, flow, count) {
  const trig = [];
  const t0 = wallMs();
  await inFlight(count, IN_FLIGHT, async (i, worker) => {
    const g = worker % clients.length;
    trig[i] = { ...(await clients[g].trigger(NS, flow)), gateway: g };
  });
  const triggeredMs = wallMs() - t0;
  const rows = await waitAllEnded(
    obs,
    trig.map((x) => x.id),
  );
  return { t0, trig, rows, triggeredMs };
}

/** Exactly-once checks over the executions `ids` of a flow of `tasks` tasks, and the task runs each dispatcher claimed. */
async function checks(obs, ids, tasks) {
  const c = (
    await obs.query(
      `SELECT
         (SELECT count(*)::int FROM executions WHERE id = ANY($1)) AS executions,
         (SELECT count(*)::int FROM executions WHERE id = ANY($1) AND state = 'SUCCESS') AS success,
         (SELECT count(*)::int FROM execution_history WHERE execution_id = ANY($1) AND task_run_id IS NULL AND to_state = 'SUCCESS') AS success_history_rows,
         (SELECT count(DISTINCT execution_id)::int FROM execution_history WHERE execution_id = ANY($1) AND task_run_id IS NULL AND to_state = 'SUCCESS') AS executions_with_success_history,
         (SELECT count(*)::int FROM task_runs WHERE execution_id = ANY($1)) AS task_runs,
         (SELECT count(*)::int FROM task_runs WHERE execution_id = ANY($1) AND state = 'SUCCESS' AND attempt = 1) AS task_runs_success_first_attempt,
         (SELECT count(*)::int FROM execution_history WHERE execution_id = ANY($1) AND task_run_id IS NOT NULL AND to_state = 'RUNNING') AS task_run_claims`,
      [ids],
    )
  ).rows[0];
  const by = (
    await obs.query(
      `SELECT coalesce(i.hostname, t.claimed_by, '(none)') AS dispatcher, count(*)::int AS n
       FROM task_runs t LEFT JOIN instances i ON i.id = t.claimed_by WHERE t.execution_id = ANY($1) GROUP BY 1 ORDER BY 1`,
      [ids],
    )
  ).rows;
  const n = ids.length;
  const ok =
    new Set(ids).size === n &&
    c.executions === n &&
    c.success === n &&
    c.success_history_rows === n &&
    c.executions_with_success_history === n &&
    c.task_runs === n * tasks &&
    c.task_runs_success_first_attempt === n * tasks &&
    c.task_run_claims === n * tasks;
  return { ok, distinct_ids: new Set(ids).size, ...c, task_runs_claimed_by: Object.fromEntries(by.map((x) => [x.dispatcher, x.n])) };
}

async function topStatements(obs, count, top = 15) {
  const r = await obs.query(
    `SELECT s.query, s.calls::int AS calls, s.total_exec_time AS ms FROM pg_stat_statements s
     WHERE s.dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
       AND s.userid <> (SELECT oid FROM pg_roles WHERE rolname = current_user)
     ORDER BY s.calls DESC LIMIT $1`,
    [top],
  );
  return r.rows.map((x) => ({ per_execution: r2(x.calls / count), mean_ms: +(x.ms / x.calls).toFixed(3), query: x.query.replace(/\s+/g, ' ').slice(0, 120) }));
}

async function warmUp(ctx, clients) {
  await ctx.admin.query('CHECKPOINT');
  await drive(ctx.obs, clients, 'one', WARMUP);
  await drive(ctx.obs, clients, 'chain5', Math.max(1, Math.round(WARMUP / 10)));
  // Autovacuum is off (see run()): what came before is vacuumed and analyzed here, outside the window.
  await ctx.maint.query('VACUUM (ANALYZE)');
}

/**
 * Vacuum and analyze of what a scenario left (dead row versions, index
 * entries to remove, visibility map, statistics), as autovacuum would do
 * it, measured on its own: PostgreSQL's CPU and the WAL it writes.
 */
async function vacuumCost(ctx, count) {
  const lsn = async () => (await ctx.admin.query('SELECT pg_current_wal_lsn()::text AS l')).rows[0].l;
  const l0 = await lsn();
  const c0 = ctx.cpu.take();
  const t0 = performance.now();
  await ctx.maint.query('VACUUM (ANALYZE)');
  const wallMsVacuum = performance.now() - t0;
  const c1 = ctx.cpu.take();
  const l1 = await lsn();
  const bytes = Number((await ctx.admin.query('SELECT pg_wal_lsn_diff($2::pg_lsn, $1::pg_lsn)::text AS b', [l0, l1])).rows[0].b);
  const wal = await walRecords(ctx.admin, l0, l1);
  return {
    wall_ms: r1(wallMsVacuum),
    pg_cpu_ms: +((c1.postgres - c0.postgres) / count).toFixed(3),
    wal_bytes: r2(bytes / count),
    wal_fpi_bytes: r2(Object.values(wal).reduce((n, x) => n + x.fpi_bytes, 0) / count),
    wal_records: r2(Object.values(wal).reduce((n, x) => n + x.count, 0) / count),
  };
}

/** The idle background of the instances running now: rates per second of every counter. */
async function idleBackground(ctx) {
  await sleep(SETTLE_MS);
  const a = await snapshot(ctx.obs, ctx.cpu);
  await sleep(IDLE_MS);
  const b = await snapshot(ctx.obs, ctx.cpu);
  return rates(delta(a, b, await walRecords(ctx.admin, a.lsn, b.lsn)));
}

/** One measured scenario: `count` executions of `flow` (`tasks` tasks each) through `clients`. */
async function scenario(ctx, name, clients, flow, tasks, count) {
  const load = loadavg();
  await sleep(SETTLE_MS);
  await ctx.obs.query('SELECT pg_stat_statements_reset()');
  const a = await snapshot(ctx.obs, ctx.cpu);
  const { t0, trig, rows, triggeredMs } = await drive(ctx.obs, clients, flow, count);
  await sleep(SETTLE_MS);
  const b = await snapshot(ctx.obs, ctx.cpu);
  const top = await topStatements(ctx.obs, count);
  const raw = delta(a, b, await walRecords(ctx.admin, a.lsn, b.lsn));
  const net = lessIdle(raw, ctx.idle);
  const ended = new Map(rows.map((x) => [x.id, x.ended_at.getTime()]));
  const wallMsTotal = Math.max(...ended.values()) - t0;
  const toEnd = trig.map((x) => ended.get(x.id) - x.sent);
  // The processes' CPU as measured (an app's idle background is a few ms a second and would only add noise); PostgreSQL's model figure is net of its idle background.
  const cpuPerExecution = Object.fromEntries(
    Object.entries(raw.cpu)
      .filter(([, v]) => v)
      .map(([k, v]) => [k, r2(v / count)]),
  );
  const check = await checks(
    ctx.obs,
    trig.map((x) => x.id),
    tasks,
  );
  const vacuum = await vacuumCost(ctx, count);
  const out = {
    name,
    flow,
    tasks_per_execution: tasks,
    executions: count,
    gateways: clients.length,
    in_flight: IN_FLIGHT,
    per_second: r1(count / (wallMsTotal / 1000)),
    tasks_per_second: r1((count * tasks) / (wallMsTotal / 1000)),
    wall_ms: r1(wallMsTotal),
    all_triggered_after_ms: r1(triggeredMs),
    trigger_to_end_p50_ms: r2(median(toEnd)),
    trigger_to_end_p99_ms: r2(quantile(toEnd, 0.99)),
    trigger_request_p50_ms: r2(median(trig.map((x) => x.at - x.sent))),
    triggers_per_gateway: clients.map((_, g) => trig.filter((x) => x.gateway === g).length),
    load_average_before: load,
    load_average_after: loadavg(),
    per_execution: withVacuum(perUnit(net, count, ctx.indexes), vacuum),
    per_task: tasks > 1 ? withVacuum(perUnit(net, count * tasks, ctx.indexes), vacuum, tasks) : undefined,
    cpu_ms_per_execution: cpuPerExecution,
    checks: check,
    window: {
      seconds: r1(raw.seconds),
      idle_statements_charged: r1((ctx.idle.statements ?? 0) * raw.seconds),
      idle_pg_cpu_ms_charged: r1((ctx.idle.cpu.postgres ?? 0) * raw.seconds),
      rollbacks: raw.rollbacks,
    },
    top_statements: top,
  };
  if (!check.ok) console.error(`db-cost: ${name}: the exactly-once checks failed: ${JSON.stringify(check)}`);
  console.error(
    `db-cost: ${name}: ${out.per_second}/s, p50 trigger->end ${out.trigger_to_end_p50_ms} ms, ${out.per_execution.round_trips} round trips, ${out.per_execution.pg_cpu_ms} ms PostgreSQL CPU per execution, checks ${check.ok ? 'ok' : 'FAILED'}`,
  );
  return out;
}

/** The model with the vacuum that follows (per execution, or per task over `tasks`), and PostgreSQL's CPU and projection with it. */
function withVacuum(m, vacuum, tasks = 1) {
  const v = {
    pg_cpu_ms: +(vacuum.pg_cpu_ms / tasks).toFixed(3),
    wal_bytes: r2(vacuum.wal_bytes / tasks),
    wal_fpi_bytes: r2(vacuum.wal_fpi_bytes / tasks),
    wal_records: r2(vacuum.wal_records / tasks),
  };
  const cpu = m.pg_cpu_ms + v.pg_cpu_ms;
  return {
    ...m,
    vacuum_pg_cpu_ms: v.pg_cpu_ms,
    vacuum_wal_bytes: v.wal_bytes,
    pg_cpu_ms_with_vacuum: +cpu.toFixed(3),
    wal_bytes_with_vacuum: r2(m.wal_bytes + v.wal_bytes),
    projected_per_pg_core_per_second_with_vacuum: cpu > 0 ? Math.round(1000 / cpu) : null,
    vacuum: { ...v, wall_ms_total: vacuum.wall_ms },
  };
}

/** (chain of `CHAIN`) - (one task), per added task, for every scalar of the model. */
function marginalPerTask(one, chain) {
  const out = {};
  for (const [k, v] of Object.entries(one)) {
    if (typeof v === 'number' && typeof chain[k] === 'number') out[k] = r2((chain[k] - v) / (CHAIN - 1));
  }
  out.projected_per_pg_core_per_second = out.pg_cpu_ms > 0 ? Math.round(1000 / out.pg_cpu_ms) : null;
  out.projected_per_pg_core_per_second_with_vacuum = out.pg_cpu_ms_with_vacuum > 0 ? Math.round(1000 / out.pg_cpu_ms_with_vacuum) : null;
  return out;
}

const postmasterPid = (dir) => Number(fs.readFileSync(path.join(dir, 'pg', 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);

export async function run() {
  const startedLoad = loadavg();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-dbcost-'));
  // Tasks run as SVC_TASK_USER (nobody) when the benchmark runs as root.
  fs.chmodSync(dir, 0o755);
  const cluster = await startPostgresKeeper(path.join(dir, 'pg'), {
    database: 'svc',
    ephemeral: true,
    stdio: 'ignore',
    // Autovacuum off: it would fire inside some windows and not others (and inside the idle one, which is subtracted); each scenario's vacuum is run and measured after its window instead (vacuumCost).
    settings: { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'top', 'pg_stat_statements.max': '10000', autovacuum: 'off' },
  });
  const stops = [() => cluster.stop()];
  try {
    const observerUrl = await prepareStatementCounting(cluster.url);
    const svcDir = path.join(dir, 'svc');
    const appEnv = { SVC_WORKER_SLOTS: String(SLOTS), SVC_EXECUTORS: 'process' };
    const svc = await startDeployment({ url: cluster.url, dir: svcDir, env: appEnv });
    stops.unshift(() => svc.stop());
    await svc.saveFlows(NS, FLOWS);

    const obsClient = new pg.Client({ connectionString: observerUrl });
    await obsClient.connect();
    stops.unshift(() => obsClient.end());
    // The admin (superuser) for CHECKPOINT works in database `postgres`, outside the counted one.
    const admin = new pg.Client({ connectionString: cluster.adminUrl });
    await admin.connect();
    stops.unshift(() => admin.end());
    await admin.query('CREATE EXTENSION IF NOT EXISTS pg_walinspect');
    // A superuser in the measured database for VACUUM, used only outside the measured windows.
    const maint = new pg.Client({ connectionString: cluster.url });
    await maint.connect();
    stops.unshift(() => maint.end());
    const settings = Object.fromEntries(
      (
        await admin.query(
          `SELECT name, setting || coalesce(unit, '') AS v FROM pg_settings WHERE name IN ('server_version', 'fsync', 'synchronous_commit', 'full_page_writes', 'wal_level', 'wal_compression', 'shared_buffers', 'checkpoint_timeout', 'max_wal_size', 'commit_delay', 'autovacuum', 'data_checksums')`,
        )
      ).rows.map((x) => [x.name, x.v]),
    );

    const obs = await observer(obsClient);
    const pm = postmasterPid(dir);
    const pids1 = { gateway: svc.procs['api-gateway'].child.pid, dispatcher: svc.procs.dispatcher.child.pid, maintenance: svc.procs.maintenance.child.pid, bench: process.pid };
    const ctx = { obs, admin, maint, cpu: cpuClock(pids1, pm), indexes: await indexCounts(obs), idle: null };
    const one = [svc];

    // One gateway, one dispatcher: the model. The idle background is measured
    // before the warm-up, on a database with nothing left to vacuum.
    ctx.idle = await idleBackground(ctx);
    const idle1 = ctx.idle;
    await warmUp(ctx, one);
    const one1 = await scenario(ctx, 'one_1x1', one, 'one', 1, COUNT);
    await warmUp(ctx, one);
    const chain1 = await scenario(ctx, 'chain5_1x1', one, 'chain5', CHAIN, Math.max(1, Math.round(COUNT / CHAIN)));

    // Two gateways, two dispatchers (and the one maintenance).
    const storageUrl = `file://${path.join(svcDir, 'objects')}`;
    const gw2 = await startInstance({ app: 'api-gateway', name: 'gateway-2', url: cluster.url, dir: path.join(dir, 'gateway-2'), storageUrl, env: appEnv });
    stops.unshift(() => gw2.stop());
    const d2 = await startInstance({ app: 'dispatcher', name: 'dispatcher-2', url: cluster.url, dir: path.join(dir, 'dispatcher-2'), storageUrl, env: appEnv });
    stops.unshift(() => d2.stop());
    await waitForDispatcher({ query: (t, v) => obs.query(t, v) }, 'dispatcher-2');
    const client2 = gatewayClient(gw2.base, await createToken(svc, 'bench gateway 2'));
    stops.unshift(async () => client2.close());
    const two = [svc, client2];
    ctx.cpu = cpuClock({ ...pids1, gateway_2: gw2.child.pid, dispatcher_2: d2.child.pid }, pm);
    ctx.idle = await idleBackground(ctx);
    const idle2 = ctx.idle;
    await warmUp(ctx, two);
    const one2 = await scenario(ctx, 'one_2x2', two, 'one', 1, COUNT);
    const dispatchersUsed = Object.keys(one2.checks.task_runs_claimed_by).filter((k) => one2.checks.task_runs_claimed_by[k] > 0).length;

    // Back to one of each, to bracket the 2x2 figure in time.
    await d2.stop();
    await gw2.stop();
    ctx.cpu = cpuClock(pids1, pm);
    ctx.idle = idle1;
    await warmUp(ctx, one);
    const one1b = await scenario(ctx, 'one_1x1_after', one, 'one', 1, COUNT);

    const oneModel = one1.per_execution;
    const result = {
      config: {
        executions: COUNT,
        in_flight: IN_FLIGHT,
        warmup: WARMUP,
        idle_ms: IDLE_MS,
        slots_per_dispatcher: SLOTS,
        postgres: settings,
        load_average_at_start: startedLoad,
        load_average_at_end: loadavg(),
      },
      model_one_task_execution: oneModel,
      model_chain5: { per_execution: chain1.per_execution, per_task: chain1.per_task },
      model_marginal_task: marginalPerTask(oneModel, chain1.per_execution),
      scale: {
        one_1x1: pick(one1),
        one_2x2: { ...pick(one2), dispatchers_that_claimed: dispatchersUsed },
        one_1x1_after: pick(one1b),
        // Against the mean of the two 1x1 figures that bracket it in time (and each of them).
        ratio_2x2_to_1x1_per_second: r2(one2.per_second / ((one1.per_second + one1b.per_second) / 2)),
        ratio_2x2_to_1x1_before: r2(one2.per_second / one1.per_second),
        ratio_2x2_to_1x1_after: r2(one2.per_second / one1b.per_second),
        all_checks_ok: [one1, chain1, one2, one1b].every((s) => s.checks.ok) && dispatchersUsed === 2,
      },
      idle_background_per_second: { '1x1': summarizeIdle(idle1), '2x2': summarizeIdle(idle2) },
      scenarios: { one_1x1: one1, chain5_1x1: chain1, one_2x2: one2, one_1x1_after: one1b },
      output: (svc.output() + gw2.output() + d2.output()).slice(0, 4000),
    };
    printTable(result);
    return result;
  } finally {
    for (const stop of stops) await stop().catch((err) => console.error(`db-cost bench cleanup: ${err}`));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function pick(s) {
  return {
    per_second: s.per_second,
    trigger_to_end_p50_ms: s.trigger_to_end_p50_ms,
    trigger_to_end_p99_ms: s.trigger_to_end_p99_ms,
    trigger_request_p50_ms: s.trigger_request_p50_ms,
    round_trips_per_execution: s.per_execution.round_trips,
    write_commits_per_execution: s.per_execution.write_commits,
    pg_cpu_ms_per_execution: s.per_execution.pg_cpu_ms,
    cpu_ms_per_execution: s.cpu_ms_per_execution,
    triggers_per_gateway: s.triggers_per_gateway,
    task_runs_claimed_by: s.checks.task_runs_claimed_by,
    checks_ok: s.checks.ok,
    load_average_before: s.load_average_before,
  };
}

function summarizeIdle(i) {
  return {
    seconds: r1(i.seconds),
    statements: r2(i.statements),
    commits: r2(i.commits),
    xids: r2(i.xids),
    wal_bytes: r1(i.wal_bytes),
    cpu_ms: Object.fromEntries(
      Object.entries(i.cpu)
        .filter(([, v]) => v)
        .map(([k, v]) => [k, r2(v)]),
    ),
    wal_records: Object.fromEntries(Object.entries(i.wal_by_record).map(([k, v]) => [k, r2(v.count)])),
  };
}

function printTable(r) {
  const m = r.model_one_task_execution,
    c = r.model_chain5.per_execution,
    t = r.model_marginal_task;
  const rows = [
    ['round trips', 'round_trips'],
    ['commits (all)', 'commits'],
    ['write commits (WAL)', 'write_commits'],
    ['WAL flushes (fsync)', 'wal_flushes'],
    ['rows inserted', 'rows_inserted'],
    ['rows updated (HOT)', null],
    ['rows deleted', 'rows_deleted'],
    ['index entries (WAL)', 'index_entries'],
    ['index entries (derived)', null],
    ['WAL bytes', 'wal_bytes'],
    ['WAL records', 'wal_records'],
    ['PostgreSQL CPU ms', 'pg_cpu_ms'],
    ['projected per s per PG core', 'projected_per_pg_core_per_second'],
    ['vacuum: PostgreSQL CPU ms', 'vacuum_pg_cpu_ms'],
    ['vacuum: WAL bytes', 'vacuum_wal_bytes'],
    ['projected per s per PG core, with vacuum', 'projected_per_pg_core_per_second_with_vacuum'],
  ];
  console.log('per execution | one task | chain of 5 | each added task');
  for (const [label, k] of rows) {
    if (label.startsWith('rows updated'))
      console.log(`${label} | ${m.rows_updated} (${m.rows_hot_updated}) | ${c.rows_updated} (${c.rows_hot_updated}) | ${t.rows_updated} (${t.rows_hot_updated})`);
    else if (label === 'index entries (derived)')
      console.log(
        `${label} | ${m.index_entries_derived_range.join('–')} | ${c.index_entries_derived_range.join('–')} | ${t.index_entries_derived_full}–${r2(t.index_entries_derived_full + t.index_entries_derived_partial_at_most)}`,
      );
    else console.log(`${label} | ${m[k]} | ${c[k]} | ${t[k]}`);
  }
  const s = r.scale;
  console.log('scale | per s | p50 trigger->end ms | PG CPU ms/execution | claimed by | checks');
  for (const k of ['one_1x1', 'one_2x2', 'one_1x1_after'])
    console.log(
      `${k} | ${s[k].per_second} | ${s[k].trigger_to_end_p50_ms} | ${s[k].pg_cpu_ms_per_execution} | ${JSON.stringify(s[k].task_runs_claimed_by)} | ${s[k].checks_ok ? 'ok' : 'FAILED'}`,
    );
}
