// Benchmark: the engine's speed (issue 6, "Speed"), side by side in one run
// with a baseline of graphile-worker (npm) on the same PostgreSQL whose job
// handler spawns the same command, so the ratio holds however noisy the
// machine is.
//
// svc: api-gateway, one dispatcher (SVC_WORKER_SLOTS=8, SVC_EXECUTORS=process)
// and maintenance processes on database `svc`; flows triggered over HTTP.
// Baseline: a graphile-worker process (concurrency 8) on database `baseline`
// of the same cluster; jobs added with WorkerUtils from this process.
//
//   latency     triggerFlow's HTTP response (addJob's return) to the task's
//               process start, which the task records itself (`sh -c "date
//               +%s%N > file"`); one at a time, svc and baseline interleaved.
//               Targets: p50 < 30 ms, p99 < 100 ms.
//   throughput  1,000 one-task executions of `true` (jobs), 32 triggers in
//               flight (BENCH_THROUGHPUT_IN_FLIGHT; 16 before the hot path's rewrite) over
//               HTTP with an API token; completions per second, from the first
//               trigger to the last execution's ended_at. Target:
//               >= 0.6 x the baseline's.
//   throughput_batch (B2-batch)  the same 1,000 executions in one
//               triggerFlowBatch request, against the same 1,000 jobs added
//               in one addJobs call: completions per second from the request
//               (the call) to the last end. Same target.
//   chain       40 sequential `true` tasks: trigger to the execution's
//               ended_at (median of rounds). Target: < 1 s.
//   fan-out     200 independent `true` tasks (max_parallel: 0): wall time,
//               scheduling overhead per task = (wall - the pure spawn cost of
//               200 `true` on 8 slots from a small Node process, measured in
//               the same round) / 200, median of rounds, and
//               database round trips per task (pg_stat_statements, see
//               lib/statements.mjs). Target: <= 4 round trips per task.
//   for_each    one task fanned out over a list of 1,000 items (for_each,
//               `true` each) against 1,000 graphile-worker jobs added in one
//               addJobs call: trigger request (addJobs) to the execution's
//               ended_at (the last job's end), median of rounds, and round
//               trips per item. Target: <= 1.5 x the baseline's makespan.
//   spawn cost  what the process executor avoids by running the runner in
//               the dispatcher: `true` against a fresh Node runtime per task
//               (`node -e 0`, and a Node that loads the runner), spawned from
//               a Node process of the dispatcher's size and from a small one.
// End states are read from the database directly (observer role, left out of
// the round-trip counts). Ratios are svc / baseline.
import { fork } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { cpuClock } from './lib/cpu.mjs';
import { startBaseline } from './lib/graphile-baseline.mjs';
import { startSpawnProbe } from './lib/spawn-probe.mjs';
import { benchDir, chain, fanOut, flowFiles, forEach, idleRates, latency, throughput, throughputBatch, BASELINE_DB, SVC_DB } from './lib/engine-scenarios.mjs';
import { rssMiB } from './lib/rss.mjs';
import { prepareStatementCounting, statementCounter } from './lib/statements.mjs';
import { root, startDeployment } from './lib/svc-deployment.mjs';

const { startPostgresKeeper } = await import(path.join(root, 'packages/db/dist/index.js'));

const LATENCY_SAMPLES = Number(process.env.BENCH_LATENCY_SAMPLES ?? 200);
const THROUGHPUT_COUNT = Number(process.env.BENCH_THROUGHPUT_COUNT ?? 1000);
const THROUGHPUT_IN_FLIGHT = Number(process.env.BENCH_THROUGHPUT_IN_FLIGHT ?? 32);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
// BENCH_ENGINE_ONLY=for_each (comma-separated names: latency, throughput, throughput_batch, chain, fan_out, for_each) runs only those workloads.
const ONLY = process.env.BENCH_ENGINE_ONLY ? new Set(process.env.BENCH_ENGINE_ONLY.split(',')) : null;
const skipped = (name) => ONLY !== null && !ONLY.has(name);
// BENCH_WORK_DIR: see startDeployment below.
const SLOTS = 8;

const rssRounded = (pid) => Math.round(rssMiB(pid));

function spawnCost(targetMiB) {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(import.meta.dirname, 'lib/spawn-cost-child.mjs'), [String(targetMiB), path.join(root, 'packages/runner/dist/index.js')], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.once('message', resolve);
    child.once('exit', (c) => c !== 0 && reject(new Error(`spawn-cost child exited with ${c}`)));
  });
}

// A baseline figure at or below zero (overhead within the noise of the pure spawn cost) has no meaningful ratio.
const ratio = (svc, base) => (base > 0 ? +(svc / base).toFixed(2) : null);
const fig = (svc, baseline, extra = {}) => ({ svc, baseline, ratio: ratio(svc, baseline), ...extra });

export async function run() {
  const { dir, stampDir } = benchDir('svc-bench-engine-');
  const cluster = await startPostgresKeeper(path.join(dir, 'pg'), {
    database: SVC_DB,
    ephemeral: true,
    stdio: 'ignore',
    settings: { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'top', 'pg_stat_statements.max': '10000' },
  });
  const stops = [() => cluster.stop()];
  try {
    const admin = new pg.Client({ connectionString: cluster.adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${BASELINE_DB}`);
    await admin.end();
    const baselineUrl = Object.assign(new URL(cluster.url), { pathname: `/${BASELINE_DB}` }).toString();
    const observerUrl = await prepareStatementCounting(cluster.url);

    // BENCH_WORK_DIR puts the dispatcher's task working directories there (SVC_WORK_DIR), e.g. on a tmpfs; default: under its data directory.
    const workEnv = process.env.BENCH_WORK_DIR ? { SVC_WORK_DIR: path.join(process.env.BENCH_WORK_DIR, path.basename(dir)) } : {};
    // SVC_SPAWN_HELPER (perl, node) is passed on, to compare the spawn helpers on the same code.
    const helperEnv = process.env.SVC_SPAWN_HELPER ? { SVC_SPAWN_HELPER: process.env.SVC_SPAWN_HELPER } : {};
    const svc = await startDeployment({
      url: cluster.url,
      dir: path.join(dir, 'svc'),
      env: { SVC_WORKER_SLOTS: String(SLOTS), SVC_EXECUTORS: 'process', ...workEnv, ...helperEnv },
    });
    stops.unshift(() => svc.stop());
    if (workEnv.SVC_WORK_DIR) stops.push(async () => fs.rmSync(workEnv.SVC_WORK_DIR, { recursive: true, force: true }));
    await svc.saveFlows('bench', flowFiles(stampDir));
    const base = await startBaseline({ url: baselineUrl, concurrency: SLOTS });
    stops.unshift(() => base.stop());
    const obs = new pg.Pool({ connectionString: observerUrl, max: 4 });
    stops.unshift(() => obs.end());

    const cpu = cpuClock(
      {
        dispatcher: svc.procs.dispatcher.child.pid,
        gateway: svc.procs['api-gateway'].child.pid,
        maintenance: svc.procs.maintenance.child.pid,
        baseline_worker: base.pid,
        bench: process.pid,
      },
      Number(fs.readFileSync(path.join(dir, 'pg', 'data', 'postmaster.pid'), 'utf8').split('\n')[0]),
    );
    const probe = await startSpawnProbe();
    stops.unshift(() => probe.stop());
    const ctx = { svc, base, obs, counter: statementCounter(obs), cpu, probe, slots: SLOTS, stampDir, idle: { svc: 0, baseline: 0 } };
    ctx.idle = await idleRates(ctx);
    const dispatcherRssAtStart = rssRounded(svc.procs.dispatcher.child.pid);
    const each = skipped('for_each') ? null : await forEach(ctx, ROUNDS);
    const tpBatch = skipped('throughput_batch') ? null : await throughputBatch(ctx, THROUGHPUT_COUNT);
    const batchFigure = (b) =>
      fig(b.svc.per_second, b.baseline.per_second, { one_request_of: b.count, target: '>= 0.6 x baseline', met: b.svc.per_second >= b.baseline.per_second * 0.6 });
    if (ONLY && !['latency', 'throughput', 'chain', 'fan_out'].some((n) => ONLY.has(n))) {
      if (!each) {
        const result = { throughput_batch_per_second: batchFigure(tpBatch), detail: { throughput_batch: tpBatch } };
        console.log(JSON.stringify(result));
        return result;
      }
      const result = {
        for_each_1000_wall_ms: fig(each.svc.wall_ms, each.baseline.wall_ms, forEachTarget(each)),
        ...(tpBatch ? { throughput_batch_per_second: batchFigure(tpBatch) } : {}),
        detail: { for_each: each, throughput_batch: tpBatch },
      };
      console.log(JSON.stringify(result.for_each_1000_wall_ms));
      return result;
    }
    const lat = await latency(ctx, LATENCY_SAMPLES);
    const tp = await throughput(ctx, THROUGHPUT_COUNT, THROUGHPUT_IN_FLIGHT);
    const ch = await chain(ctx, 40, ROUNDS);
    const fan = await fanOut(ctx, 200, ROUNDS);
    const dispatcherRss = rssRounded(svc.procs.dispatcher.child.pid);
    const gatewayRss = rssRounded(svc.procs['api-gateway'].child.pid);
    const baselineRss = rssRounded(base.pid);
    const small = await spawnCost(0);
    const large = await spawnCost(dispatcherRss);

    const result = {
      latency_p50_ms: fig(lat.svc.p50_ms, lat.baseline.p50_ms, { target: '<= 1.5 x baseline', met: lat.svc.p50_ms <= lat.baseline.p50_ms * 1.5 }),
      latency_p99_ms: fig(lat.svc.p99_ms, lat.baseline.p99_ms, { target: '< 100', met: lat.svc.p99_ms < 100 }),
      throughput_per_second: fig(tp.svc.per_second, tp.baseline.per_second, {
        in_flight: THROUGHPUT_IN_FLIGHT,
        target: '>= 0.6 x baseline',
        met: tp.svc.per_second >= tp.baseline.per_second * 0.6,
      }),
      ...(tpBatch ? { throughput_batch_per_second: batchFigure(tpBatch) } : {}),
      chain_40_wall_ms: fig(ch.svc.wall_ms, ch.baseline.wall_ms, { target: '<= 1.3 x baseline', met: ch.svc.wall_ms <= ch.baseline.wall_ms * 1.3 }),
      fanout_200_wall_ms: fig(fan.svc.wall_ms, fan.baseline.wall_ms, { target: '<= 1.5 x baseline', met: fan.svc.wall_ms <= fan.baseline.wall_ms * 1.5 }),
      fanout_overhead_per_task_ms: fig(fan.svc.overhead_per_task_ms, fan.baseline.overhead_per_task_ms, { pure_spawn_200_true_8_slots_ms: fan.pure_spawn_ms.median }),
      ...(each ? { for_each_1000_wall_ms: fig(each.svc.wall_ms, each.baseline.wall_ms, forEachTarget(each)) } : {}),
      fanout_round_trips_per_task: fig(fan.svc.round_trips.per_task, fan.baseline.round_trips.per_task, { target: '<= 4', met: fan.svc.round_trips.per_task <= 4 }),
      throughput_round_trips_per_execution: fig(tp.svc.round_trips.per_task, tp.baseline.round_trips.per_task),
      spawn_per_task_ms_dispatcher_sized: {
        rss_mib: large.rss_mib,
        true: large.true_sequential.per_run_p50_ms,
        node_e0: large.node_e0_sequential.per_run_p50_ms,
        node_loading_runner: large.node_load_runner_sequential.per_run_p50_ms,
        true_200_on_8_slots_wall_ms: large.true_8_slots.wall_ms,
        node_e0_200_on_8_slots_wall_ms: large.node_e0_8_slots.wall_ms,
      },
      spawn_per_task_ms_small_node: {
        rss_mib: small.rss_mib,
        true: small.true_sequential.per_run_p50_ms,
        node_e0: small.node_e0_sequential.per_run_p50_ms,
        node_loading_runner: small.node_load_runner_sequential.per_run_p50_ms,
        true_200_on_8_slots_wall_ms: small.true_8_slots.wall_ms,
        node_e0_200_on_8_slots_wall_ms: small.node_e0_8_slots.wall_ms,
      },
      rss_mib: { dispatcher_before: dispatcherRssAtStart, dispatcher: dispatcherRss, gateway: gatewayRss, baseline_worker: baselineRss },
      idle_statements_per_second: { svc: +ctx.idle.svc.toFixed(1), baseline: +ctx.idle.baseline.toFixed(1) },
      detail: { latency: lat, throughput: tp, throughput_batch: tpBatch, chain: ch, fan_out: fan, for_each: each, spawn_cost: { dispatcher_sized: large, small_node: small } },
      engine_output: svc.output().slice(0, 4000),
    };
    printTable(result);
    return result;
  } finally {
    for (const stop of stops) await stop().catch((err) => console.error(`engine bench cleanup: ${err}`));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const forEachTarget = (each) => ({
  round_trips_per_item: each.svc.round_trips.per_task,
  target: '<= 1.5 x baseline',
  met: each.svc.wall_ms <= each.baseline.wall_ms * 1.5,
});

function printTable(r) {
  const rows = [
    ['latency p50 (ms)', r.latency_p50_ms],
    ['latency p99 (ms)', r.latency_p99_ms],
    ['throughput (per s)', r.throughput_per_second],
    ...(r.throughput_batch_per_second ? [['throughput, one batch request (per s)', r.throughput_batch_per_second]] : []),
    ['chain of 40 (ms)', r.chain_40_wall_ms],
    ['fan-out 200 wall (ms)', r.fanout_200_wall_ms],
    ['fan-out overhead/task (ms)', r.fanout_overhead_per_task_ms],
    ['fan-out round trips/task', r.fanout_round_trips_per_task],
    ...(r.for_each_1000_wall_ms ? [['for_each 1,000 items (ms)', r.for_each_1000_wall_ms]] : []),
    ['round trips/execution (1-task)', r.throughput_round_trips_per_execution],
  ];
  console.log('figure | svc | graphile-worker | ratio svc/baseline | target');
  for (const [name, f] of rows) console.log(`${name} | ${f.svc} | ${f.baseline} | ${f.ratio ?? 'n/a'} | ${f.target ? `${f.target}: ${f.met ? 'met' : 'MISSED'}` : '-'}`);
  const d = r.spawn_per_task_ms_dispatcher_sized;
  console.log(`spawn per task from a ${d.rss_mib} MiB Node: true ${d.true} ms, node -e 0 ${d.node_e0} ms, node loading the runner ${d.node_loading_runner} ms`);
}
