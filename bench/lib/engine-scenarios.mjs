// The measurements of bench/engine.bench.mjs, each run on svc and on the
// graphile-worker baseline back to back (latency samples interleaved one by
// one), so both see the same machine load. Times are wall clock in ms.
//
// ctx: { svc (svc-deployment.mjs), base (graphile-baseline.mjs), obs (pg.Pool,
// observer on the svc database), counter (statements.mjs), stampDir,
// idle: {svc, baseline} background statements per second per database,
// cpu (cpu.mjs) over the deployment's, the baseline's and this process,
// probe (spawn-probe.mjs), slots }.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ENDED, wallMs } from './svc-deployment.mjs';

export const SVC_DB = 'svc';
export const BASELINE_DB = 'baseline';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export const quantile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)];
};
export const median = (xs) => quantile(xs, 0.5);
const r1 = (x) => +x.toFixed(1);
const r2 = (x) => +x.toFixed(2);

/** The items of the for_each workload. */
export const FOR_EACH_ITEMS = 1000;

/** The flows svc runs; `stampDir` receives the latency probe's files. */
export function flowFiles(stampDir) {
  const chain = Array.from({ length: 40 }, (_, i) => `  - {id: t${i}, type: command, command: ["true"]${i ? `, depends_on: [t${i - 1}]` : ''}}`);
  const fan = Array.from({ length: 200 }, (_, i) => `  - {id: f${i}, type: command, command: ["true"]}`);
  return {
    'lat.flow.yaml': `id: lat\ntasks:\n  - id: stamp\n    type: command\n    command: [sh, -c, "date +%s%N > ${stampDir}/{{ execution.id }}"]\n`,
    'one.flow.yaml': 'id: one\ntasks:\n  - {id: t, type: command, command: ["true"]}\n',
    'chain.flow.yaml': `id: chain\ntasks:\n${chain.join('\n')}\n`,
    'fan.flow.yaml': `id: fan\nmax_parallel: 0\ntasks:\n${fan.join('\n')}\n`,
    // One task over a literal list of FOR_EACH_ITEMS numbers: one parent run and an item run each (for_each).
    'each.flow.yaml': `id: each\ntasks:\n  - id: each\n    type: command\n    command: ["true"]\n    for_each: [${[...Array(FOR_EACH_ITEMS).keys()].join(', ')}]\n`,
  };
}

/**
 * A benchmark's scratch directory (`prefix` names it under the system's temporary
 * one) and, in it, `stamps/` for the latency probes' files. Tasks run as
 * SVC_TASK_USER (nobody) when the benchmark runs as root: they must be able to
 * write their stamps (the umask would take o+w off a mode given to mkdir).
 */
export function benchDir(prefix) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.chmodSync(dir, 0o755);
  const stampDir = path.join(dir, 'stamps');
  fs.mkdirSync(stampDir);
  fs.chmodSync(stampDir, 0o1777);
  return { dir, stampDir };
}

/** The start time (ms) a probe wrote with `date +%s%N`, or undefined while its file is missing or not yet written. */
export function stampOf(file) {
  try {
    const text = fs.readFileSync(file, 'utf8').trim();
    if (text) return Number(BigInt(text) / 1000n) / 1000;
  } catch {}
  return undefined;
}

/** The start time (ms) a probe wrote with `date +%s%N`, once the file is complete. */
export async function readStamp(file, timeoutMs = 30_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const at = stampOf(file);
    if (at !== undefined) return at;
    if (Date.now() > until) throw new Error(`no stamp ${file} after ${timeoutMs} ms`);
    await sleep(2);
  }
}

/** Waits until every execution in `ids` ended; returns their rows (state, started_at, ended_at as ms). */
export async function waitEnded(ctx, ids, { pollMs = 20, timeoutMs = 300_000 } = {}) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const r = await ctx.obs.query(`SELECT id, state, started_at, ended_at FROM executions WHERE id = ANY($1) AND state = ANY($2)`, [ids, ENDED]);
    if (r.rowCount === ids.length) return r.rows.map((x) => ({ ...x, started: x.started_at?.getTime(), ended: x.ended_at?.getTime() }));
    if (Date.now() > until) throw new Error(`${ids.length - r.rowCount} of ${ids.length} executions did not end in ${timeoutMs} ms`);
    await sleep(pollMs);
  }
}

function taskRunGaps(rows) {
  // Per task run: queued -> claimed (started_at is set by the claim) and claimed -> ended.
  return {
    queued_to_claimed_p50_ms: r2(median(rows.map((t) => t.started_at - t.queued_at))),
    claimed_to_ended_p50_ms: r2(median(rows.map((t) => t.ended_at - t.started_at))),
  };
}

async function taskRuns(ctx, executionId) {
  const r = await ctx.obs.query(`SELECT task_key, state, queued_at, started_at, ended_at FROM task_runs WHERE execution_id = $1 ORDER BY started_at`, [executionId]);
  return r.rows;
}

/** Net round trips: the statements counted, less the database's idle background over the same time. */
async function roundTrips(ctx, db, idleRate, ms, per) {
  const c = await ctx.counter.count(db, 15);
  const net = Math.max(0, c.total - idleRate * (ms / 1000));
  return { statements: c.total, idle_background_estimate: r1(idleRate * (ms / 1000)), per_task: r2(net / per), server_exec_ms: c.exec_ms, top: c.top };
}

/** Background statements per second of each database with nothing to do. */
export async function idleRates(ctx, ms = 4_000) {
  await ctx.counter.reset();
  await sleep(ms);
  const [s, b] = await Promise.all([ctx.counter.count(SVC_DB), ctx.counter.count(BASELINE_DB)]);
  return { svc: s.total / (ms / 1000), baseline: b.total / (ms / 1000) };
}

/** Latency from triggerFlow's response (addJob's return) to the task's process start, interleaved. */
export async function latency(ctx, samples, warmup = 10) {
  const svc = [],
    baseline = [],
    toClaim = [],
    claimToStart = [],
    http = [],
    add = [];
  for (let i = 0; i < samples + warmup; i++) {
    const s = await ctx.svc.trigger('bench', 'lat');
    const sStart = await readStamp(path.join(ctx.stampDir, s.id));
    await waitEnded(ctx, [s.id], { pollMs: 5 });
    if (i >= warmup) {
      svc.push(sStart - s.at);
      http.push(s.at - s.sent);
      // Where the time goes: the claim (task_runs.started_at, ms precision) splits it.
      const [run] = await taskRuns(ctx, s.id);
      toClaim.push(run.started_at.getTime() - s.at);
      claimToStart.push(sStart - run.started_at.getTime());
    }
    await sleep(10 + Math.random() * 20);

    const file = path.join(ctx.stampDir, `baseline-${i}`);
    const bSent = wallMs();
    await ctx.base.addJob('stamp', { file, tag: `lat-${i}` });
    const bAt = wallMs();
    if (i >= warmup) add.push(bAt - bSent);
    const bStart = await readStamp(file);
    await ctx.base.waitFor(`lat-${i}`, 1);
    if (i >= warmup) baseline.push(bStart - bAt);
    await sleep(10 + Math.random() * 20);
  }
  const sum = (xs) => ({ p50_ms: r2(quantile(xs, 0.5)), p99_ms: r2(quantile(xs, 0.99)), max_ms: r2(Math.max(...xs)), min_ms: r2(Math.min(...xs)) });
  return {
    samples,
    svc: {
      ...sum(svc),
      trigger_request_p50_ms: r2(median(http)),
      response_to_claim_p50_ms: r2(median(toClaim)),
      claim_to_process_start_p50_ms: r2(median(claimToStart)),
      claim_to_process_start_p99_ms: r2(quantile(claimToStart, 0.99)),
    },
    baseline: { ...sum(baseline), add_job_p50_ms: r2(median(add)) },
  };
}

async function inFlight(count, concurrency, fn) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await fn(next++);
    }),
  );
}

/** `count` one-task executions (jobs) of `true`, `concurrency` triggers (adds) in flight: completions per second. */
export async function throughput(ctx, count, concurrency) {
  await ctx.counter.reset();
  const ids = [];
  let c0 = ctx.cpu.take();
  let t0 = wallMs();
  await inFlight(count, concurrency, async () => ids.push((await ctx.svc.trigger('bench', 'one')).id));
  const triggeredMs = wallMs() - t0;
  const rows = await waitEnded(ctx, ids, { pollMs: 100 });
  const sEnd = Math.max(...rows.map((x) => x.ended));
  const sMs = sEnd - t0;
  const svcCpu = ctx.cpu.since(c0, ctx.cpu.take(), count);
  const svcTrips = await roundTrips(ctx, SVC_DB, ctx.idle.svc, sMs, count);
  const failed = rows.filter((x) => x.state !== 'SUCCESS').length;
  await sleep(1000);

  await ctx.counter.reset();
  c0 = ctx.cpu.take();
  t0 = wallMs();
  await inFlight(count, concurrency, () => ctx.base.addJob('noop', { tag: 'throughput' }));
  const addedMs = wallMs() - t0;
  const times = await ctx.base.waitFor('throughput', count);
  const baseCpu = ctx.cpu.since(c0, ctx.cpu.take(), count);
  const bMs = Math.max(...times) - t0;
  const baseTrips = await roundTrips(ctx, BASELINE_DB, ctx.idle.baseline, bMs, count);
  return {
    count,
    triggers_in_flight: concurrency,
    svc: {
      per_second: r1(count / (sMs / 1000)),
      wall_ms: r1(sMs),
      all_triggered_after_ms: r1(triggeredMs),
      not_success: failed,
      cpu_ms_per_execution: svcCpu,
      round_trips: svcTrips,
    },
    baseline: { per_second: r1(count / (bMs / 1000)), wall_ms: r1(bMs), all_added_after_ms: r1(addedMs), cpu_ms_per_job: baseCpu, round_trips: baseTrips },
  };
}

/**
 * B2-batch: the throughput workload enqueued the way a batch user does it:
 * `count` one-task executions of `true` in one triggerFlowBatch request (one
 * per 1,000), against as many graphile-worker jobs added in one addJobs
 * call; completions per second from the request (the call) to the last end.
 */
export async function throughputBatch(ctx, count) {
  await ctx.counter.reset();
  let c0 = ctx.cpu.take();
  let t0 = wallMs();
  const ids = await ctx.svc.triggerBatch('bench', 'one', count);
  const triggeredMs = wallMs() - t0;
  const rows = await waitEnded(ctx, ids, { pollMs: 100 });
  const sMs = Math.max(...rows.map((x) => x.ended)) - t0;
  const svcCpu = ctx.cpu.since(c0, ctx.cpu.take(), count);
  const svcTrips = await roundTrips(ctx, SVC_DB, ctx.idle.svc, sMs, count);
  const failed = rows.filter((x) => x.state !== 'SUCCESS').length;
  await sleep(1000);

  await ctx.counter.reset();
  c0 = ctx.cpu.take();
  t0 = wallMs();
  await ctx.base.addJobs(Array.from({ length: count }, () => ({ identifier: 'noop', payload: { tag: 'throughput-batch' } })));
  const addedMs = wallMs() - t0;
  const times = await ctx.base.waitFor('throughput-batch', count);
  const baseCpu = ctx.cpu.since(c0, ctx.cpu.take(), count);
  const bMs = Math.max(...times) - t0;
  const baseTrips = await roundTrips(ctx, BASELINE_DB, ctx.idle.baseline, bMs, count);
  return {
    count,
    svc: {
      per_second: r1(count / (sMs / 1000)),
      wall_ms: r1(sMs),
      batch_answered_after_ms: r1(triggeredMs),
      not_success: failed,
      cpu_ms_per_execution: svcCpu,
      round_trips: svcTrips,
    },
    baseline: { per_second: r1(count / (bMs / 1000)), wall_ms: r1(bMs), add_jobs_returned_after_ms: r1(addedMs), cpu_ms_per_job: baseCpu, round_trips: baseTrips },
  };
}

/** A chain of `n` sequential `true` tasks (jobs), `rounds` times each. */
export async function chain(ctx, n, rounds) {
  const svc = [],
    baseline = [],
    svcDetail = [],
    baseDetail = [];
  for (let round = 0; round < rounds; round++) {
    let c0 = ctx.cpu.take();
    const t0 = wallMs();
    const { id } = await ctx.svc.trigger('bench', 'chain');
    const [row] = await waitEnded(ctx, [id], { pollMs: 50 });
    if (row.state !== 'SUCCESS') throw new Error(`chain execution ${id} ended ${row.state}`);
    const cpu = ctx.cpu.since(c0, ctx.cpu.take(), n);
    svc.push(row.ended - t0);
    const runs = await taskRuns(ctx, id);
    const handoffs = runs.slice(1).map((t, i) => t.started_at - runs[i].ended_at);
    svcDetail.push({
      wall_ms: r1(row.ended - t0),
      execution_started_to_ended_ms: r1(row.ended - row.started),
      handoff_p50_ms: r2(median(handoffs)),
      ...taskRunGaps(runs),
      cpu_ms_per_task: cpu,
    });
    await sleep(500);

    c0 = ctx.cpu.take();
    const b0 = wallMs();
    await ctx.base.addJob('chain', { i: 0, n, tag: `chain-${round}` });
    const times = await ctx.base.waitFor(`chain-${round}`, n);
    baseline.push(Math.max(...times) - b0);
    baseDetail.push({ cpu_ms_per_task: ctx.cpu.since(c0, ctx.cpu.take(), n) });
    await sleep(500);
  }
  return {
    tasks: n,
    rounds,
    svc: { wall_ms: r1(median(svc)), rounds_ms: svc.map(r1), detail: svcDetail },
    baseline: { wall_ms: r1(median(baseline)), rounds_ms: baseline.map(r1), detail: baseDetail },
  };
}

/**
 * `n` independent `true` tasks (jobs), `rounds` times each, with round trips
 * counted, and each round the pure spawn cost of `n` `true` on `ctx.slots`
 * slots from a small Node process (ctx.probe, spawn-probe.mjs).
 */
export async function fanOut(ctx, n, rounds) {
  const svc = [],
    baseline = [],
    svcDetail = [],
    baseDetail = [],
    svcTrips = [],
    baseTrips = [],
    pure = [];
  for (let round = 0; round < rounds; round++) {
    await ctx.counter.reset();
    let c0 = ctx.cpu.take();
    const t0 = wallMs();
    const { id } = await ctx.svc.trigger('bench', 'fan');
    const [row] = await waitEnded(ctx, [id], { pollMs: 50 });
    if (row.state !== 'SUCCESS') throw new Error(`fan-out execution ${id} ended ${row.state}`);
    const cpu = ctx.cpu.since(c0, ctx.cpu.take(), n);
    const ms = row.ended - t0;
    svc.push(ms);
    svcTrips.push(await roundTrips(ctx, SVC_DB, ctx.idle.svc, ms, n));
    const runs = await taskRuns(ctx, id);
    svcDetail.push({ wall_ms: r1(ms), first_claim_after_ms: r1(Math.min(...runs.map((t) => t.started_at)) - t0), ...taskRunGaps(runs), cpu_ms_per_task: cpu });
    await sleep(500);

    await ctx.counter.reset();
    c0 = ctx.cpu.take();
    const b0 = wallMs();
    await ctx.base.addJobs(Array.from({ length: n }, () => ({ identifier: 'noop', payload: { tag: `fan-${round}` } })));
    const times = await ctx.base.waitFor(`fan-${round}`, n);
    const bMs = Math.max(...times) - b0;
    baseline.push(bMs);
    baseDetail.push({ cpu_ms_per_task: ctx.cpu.since(c0, ctx.cpu.take(), n) });
    baseTrips.push(await roundTrips(ctx, BASELINE_DB, ctx.idle.baseline, bMs, n));
    await sleep(500);
    pure.push(await ctx.probe.measure(n, ctx.slots));
    await sleep(500);
  }
  const mid = (xs) => xs.map((x, i) => [x, i]).sort((a, b) => a[0].per_task - b[0].per_task)[Math.floor(xs.length / 2)][0];
  // Scheduling overhead per task: the wall time less the pure spawn cost of the same tasks on the same slots, measured in the same round.
  const overhead = (walls) => r2(median(walls.map((w, i) => (w - pure[i]) / n)));
  return {
    tasks: n,
    rounds,
    pure_spawn_ms: { median: r1(median(pure)), rounds_ms: pure.map(r1) },
    svc: { wall_ms: r1(median(svc)), rounds_ms: svc.map(r1), overhead_per_task_ms: overhead(svc), detail: svcDetail, round_trips: mid(svcTrips) },
    baseline: { wall_ms: r1(median(baseline)), rounds_ms: baseline.map(r1), overhead_per_task_ms: overhead(baseline), detail: baseDetail, round_trips: mid(baseTrips) },
  };
}

/**
 * A fan-out over a list (for_each): one execution whose one task runs `true`
 * for each of FOR_EACH_ITEMS items, from the trigger request to the
 * execution's ended_at, against as many graphile-worker jobs added in one
 * addJobs call (as a graphile-worker user enqueues a batch), from that call
 * to the last job's end; both on the same slots, median of rounds. Also the
 * database round trips per item.
 */
export async function forEach(ctx, rounds) {
  const n = FOR_EACH_ITEMS;
  const svc = [],
    baseline = [],
    svcDetail = [],
    svcTrips = [],
    baseTrips = [];
  for (let round = 0; round < rounds; round++) {
    await ctx.counter.reset();
    let c0 = ctx.cpu.take();
    const t0 = wallMs();
    const { id } = await ctx.svc.trigger('bench', 'each');
    const [row] = await waitEnded(ctx, [id], { pollMs: 50 });
    if (row.state !== 'SUCCESS') throw new Error(`for_each execution ${id} ended ${row.state}`);
    const ms = row.ended - t0;
    svc.push(ms);
    const cpu = ctx.cpu.since(c0, ctx.cpu.take(), n);
    svcTrips.push(await roundTrips(ctx, SVC_DB, ctx.idle.svc, ms, n));
    const items = (await ctx.obs.query(`SELECT queued_at, started_at, ended_at FROM task_runs WHERE execution_id = $1 AND item_index IS NOT NULL`, [id])).rows;
    if (items.length !== n) throw new Error(`for_each execution ${id} has ${items.length} item runs, not ${n}`);
    svcDetail.push({ wall_ms: r1(ms), first_item_started_after_ms: r1(Math.min(...items.map((t) => t.started_at)) - t0), ...taskRunGaps(items), cpu_ms_per_item: cpu });
    await sleep(500);

    await ctx.counter.reset();
    c0 = ctx.cpu.take();
    const b0 = wallMs();
    await ctx.base.addJobs(Array.from({ length: n }, () => ({ identifier: 'noop', payload: { tag: `each-${round}` } })));
    const times = await ctx.base.waitFor(`each-${round}`, n);
    const bMs = Math.max(...times) - b0;
    baseline.push(bMs);
    baseTrips.push(await roundTrips(ctx, BASELINE_DB, ctx.idle.baseline, bMs, n));
    await sleep(500);
  }
  const mid = (xs) => xs.map((x, i) => [x, i]).sort((a, b) => a[0].per_task - b[0].per_task)[Math.floor(xs.length / 2)][0];
  return {
    items: n,
    rounds,
    svc: { wall_ms: r1(median(svc)), rounds_ms: svc.map(r1), detail: svcDetail, round_trips: mid(svcTrips) },
    baseline: { wall_ms: r1(median(baseline)), rounds_ms: baseline.map(r1), round_trips: mid(baseTrips) },
  };
}
