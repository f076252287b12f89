// Benchmark: the engine as a user runs it (issue #46), side by side in one run
// with graphile-worker as its users run it. The `engine` benchmark beside it
// (engine.bench.mjs) is the project's own variant: three apps started by
// hand, the trigger timed from its response, completion read from the
// database. This one measures what a user sees:
//
//   svc       `npm start` and nothing else (scripts/start.mjs: `svc local`
//             with every app, the scheduler too, the embedded PostgreSQL, the
//             default log level with its line per request, the default slots:
//             SVC_WORKER_SLOTS 8), and an admin from SVC_ADMIN_EMAIL and
//             SVC_ADMIN_PASSWORD; requests with an API token.
//   baseline  graphile-worker on a PostgreSQL of its own (embedded, the same
//             build), concurrency 8, its handler spawning the same command.
//
//   B1 latency   from the moment the trigger request is sent (addJob called)
//                to the task's process start, recorded by the task itself
//                (`date +%s%N`); one at a time, interleaved. Goal: p50 <= 1.5 x.
//   B2 throughput 1,000 one-task executions of `true`: 1,000 trigger requests,
//                32 in flight, against one addJobs call of 1,000 jobs;
//                completion read over the public API (listExecutions by
//                label). Goal: >= 0.6 x. B2-batch: the same 1,000 in one
//                triggerFlowBatch request, when the gateway has it.
//   B3 chain     40 sequential `true` tasks: trigger request to the end read
//                over the API (getExecution). Goal: <= 1.3 x.
//   B4 fan-out   200 independent `true` tasks (max_parallel 0), the same way.
//                Goal: <= 1.5 x.
//   B5 for_each  one `true` task fanned out over 1,000 items (for_each): trigger
//                request to the end read over the API, against 1,000
//                graphile-worker jobs added in one addJobs call, to the last
//                one's end. Goal: <= 1.5 x.
//
// BENCH_USER_RUNS (default 3) alternates svc and the baseline that many times
// (svc first, then the baseline, then svc, ...), each run doing all four
// workloads; BENCH_LATENCY_SAMPLES, BENCH_THROUGHPUT_COUNT, BENCH_ROUNDS as for
// `engine`. Ratios are svc / baseline, per run and as the median of runs.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { startBaseline } from './lib/graphile-baseline.mjs';
import { benchDir, FOR_EACH_ITEMS, flowFiles, median, quantile, readStamp } from './lib/engine-scenarios.mjs';
import { adminToken, freePort, root, wallMs } from './lib/svc-deployment.mjs';

const { startPostgresKeeper } = await import(path.join(root, 'packages/db/dist/index.js'));

const RUNS = Number(process.env.BENCH_USER_RUNS ?? 3);
const LATENCY_SAMPLES = Number(process.env.BENCH_LATENCY_SAMPLES ?? 100);
const THROUGHPUT_COUNT = Number(process.env.BENCH_THROUGHPUT_COUNT ?? 1000);
const IN_FLIGHT = 32;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const FOR_EACH_ROUNDS = Number(process.env.BENCH_FOR_EACH_ROUNDS ?? 2);
const SLOTS = 8; // SVC_WORKER_SLOTS' default: the baseline gets as many
const ENDED = new Set(['SUCCESS', 'FAILED', 'TIMED_OUT', 'CANCELLED', 'SKIPPED']);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const r1 = (x) => +x.toFixed(1);
const r2 = (x) => +x.toFixed(2);

/** `npm start`'s process (scripts/start.mjs) with a port and data directory of its own; resolves once it says it is up. */
export async function startAsUser(dir) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = {
    ...process.env,
    SVC_PORT: String(port),
    SVC_DATA_DIR: path.join(dir, 'data'),
    SVC_ADMIN_EMAIL: 'bench@example.com',
    SVC_ADMIN_PASSWORD: 'bench password 1',
  };
  for (const k of Object.keys(env)) if (k.startsWith('SVC_') && !['SVC_PORT', 'SVC_DATA_DIR', 'SVC_ADMIN_EMAIL', 'SVC_ADMIN_PASSWORD'].includes(k)) delete env[k];
  // Its own process group: stopping it stops every app it started.
  const child = spawn(process.execPath, [path.join(root, 'scripts/start.mjs')], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d.toString().slice(0, 2000)));
  const exited = new Promise((r) => child.once('exit', r));
  for (let i = 0; !out.includes('svc is up'); i++) {
    if (child.exitCode !== null) throw new Error(`npm start exited ${child.exitCode}:\n${out.slice(-3000)}`);
    if (i > 1800) throw new Error(`npm start did not come up in 3 minutes:\n${out.slice(-3000)}`);
    await sleep(100);
  }
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const headers = { authorization: `Bearer ${await adminToken(base)}` };
  /** One request over the keep-alive agent (node:http: the load generator shares the cores with what it measures). */
  const request = (method, p, body) =>
    new Promise((resolve, reject) => {
      const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const req = http.request(
        `${base}${p}`,
        { method, agent, headers: { ...headers, ...(data ? { 'content-type': 'application/json', 'content-length': data.length } : {}) } },
        (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            resolve({ status: res.statusCode, body: text ? JSON.parse(text) : undefined });
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(data);
    });
  const api = async (method, p, body, want) => {
    const r = await request(method, p, body);
    if (want && r.status !== want) throw new Error(`${method} ${p}: ${r.status} ${JSON.stringify(r.body).slice(0, 500)}`);
    return r.body;
  };
  return {
    api,
    /** The process group of `npm start` (every app it started is in it). */
    pid: child.pid,
    async stop() {
      agent.destroy();
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {}
      const t = setTimeout(() => {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {}
      }, 30_000);
      await exited;
      clearTimeout(t);
    },
  };
}

/** Polls getExecution until it ended, as a client does; the execution. */
async function ended(svc, id, pollMs = 20) {
  for (const until = Date.now() + 300_000; ;) {
    const e = await svc.api('GET', `/api/v1/executions/${id}`, undefined, 200);
    if (ENDED.has(e.state)) return e;
    if (Date.now() > until) throw new Error(`execution ${id} did not end`);
    await sleep(pollMs);
  }
}

async function inFlight(count, concurrency, fn) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await fn(next++);
    }),
  );
}

/** One run of svc: B1, B2 (and B2-batch), B3, B4, B5. */
async function svcRun(svc, stampDir, run) {
  const lat = [];
  for (let i = 0; i < LATENCY_SAMPLES + 10; i++) {
    const sent = wallMs();
    const { id } = await svc.api('POST', '/api/v1/flows/bench/lat/executions', {}, 201);
    const start = await readStamp(path.join(stampDir, id));
    await ended(svc, id, 5);
    if (i >= 10) lat.push(start - sent);
    await sleep(10 + Math.random() * 20);
  }
  // B2: 1,000 requests, completion read by listing the run's label.
  const label = `run${run}`;
  let t0 = wallMs();
  await inFlight(THROUGHPUT_COUNT, IN_FLIGHT, () => svc.api('POST', '/api/v1/flows/bench/one/executions', { labels: { b2: label } }, 201));
  const b2 = await allEnded(svc, label, THROUGHPUT_COUNT, t0);
  // B2-batch: one request of 1,000, where the gateway has triggerFlowBatch.
  let batch = null;
  t0 = wallMs();
  const items = Array.from({ length: THROUGHPUT_COUNT }, () => ({ labels: { b2: `${label}-batch` } }));
  const r = await svc.api('POST', '/api/v1/flows/bench/one/executions/batch', { items });
  if (r && Array.isArray(r.executions)) batch = await allEnded(svc, `${label}-batch`, THROUGHPUT_COUNT, t0);
  const chainMs = [];
  const fanMs = [];
  for (let i = 0; i < ROUNDS; i++) {
    for (const [flow, into] of [
      ['chain', chainMs],
      ['fan', fanMs],
    ]) {
      const s = wallMs();
      const { id } = await svc.api('POST', `/api/v1/flows/bench/${flow}/executions`, {}, 201);
      const e = await ended(svc, id, 20);
      if (e.state !== 'SUCCESS') throw new Error(`${flow} ${id} ended ${e.state}`);
      // The end as the client saw it (a read after the execution ended), not the row's ended_at.
      into.push(wallMs() - s);
      await sleep(300);
    }
  }
  // B5: one task over 1,000 items; the end as a client reads it.
  const eachMs = [];
  for (let i = 0; i < FOR_EACH_ROUNDS; i++) {
    const s = wallMs();
    const { id } = await svc.api('POST', '/api/v1/flows/bench/each/executions', {}, 201);
    const e = await ended(svc, id, 100);
    if (e.state !== 'SUCCESS') throw new Error(`each ${id} ended ${e.state}`);
    eachMs.push(wallMs() - s);
    await sleep(300);
  }
  return {
    latency_p50_ms: r2(median(lat)),
    latency_p99_ms: r2(quantile(lat, 0.99)),
    throughput_per_second: b2,
    batch_per_second: batch,
    chain_ms: r1(median(chainMs)),
    fan_ms: r1(median(fanMs)),
    for_each_ms: r1(median(eachMs)),
  };
}

/**
 * Completions per second of the `count` executions labelled b2=`label`, from `t0` to the moment a client's
 * listExecutions shows none of them waiting or running; then (untimed) that all `count` succeeded.
 */
async function allEnded(svc, label, count, t0) {
  const open = ['QUEUED', 'RUNNING', 'CANCELLING'];
  for (;;) {
    const pages = await Promise.all(open.map((state) => svc.api('GET', `/api/v1/executions?label=b2:${label}&state=${state}&limit=1`, undefined, 200)));
    if (pages.every((p) => p.items.length === 0)) break;
    await sleep(100);
  }
  const perSecond = r1(count / ((wallMs() - t0) / 1000));
  let succeeded = 0;
  for (let cursor; ;) {
    const page = await svc.api('GET', `/api/v1/executions?label=b2:${label}&state=SUCCESS&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, undefined, 200);
    succeeded += page.items.length;
    cursor = page.next_cursor;
    if (!cursor) break;
  }
  if (succeeded !== count) throw new Error(`${succeeded} of ${count} executions labelled ${label} succeeded`);
  return perSecond;
}

/** One run of the baseline, the way a graphile-worker user enqueues. */
async function baselineRun(base, stampDir, run) {
  const lat = [];
  for (let i = 0; i < LATENCY_SAMPLES + 10; i++) {
    const file = path.join(stampDir, `baseline-${run}-${i}`);
    const sent = wallMs();
    await base.addJob('stamp', { file, tag: `lat-${run}-${i}` });
    const start = await readStamp(file);
    await base.waitFor(`lat-${run}-${i}`, 1);
    if (i >= 10) lat.push(start - sent);
    await sleep(10 + Math.random() * 20);
  }
  let t0 = wallMs();
  await base.addJobs(Array.from({ length: THROUGHPUT_COUNT }, () => ({ identifier: 'noop', payload: { tag: `tp-${run}` } })));
  const times = await base.waitFor(`tp-${run}`, THROUGHPUT_COUNT);
  const tp = r1(THROUGHPUT_COUNT / ((Math.max(...times) - t0) / 1000));
  const chainMs = [];
  const fanMs = [];
  for (let i = 0; i < ROUNDS; i++) {
    t0 = wallMs();
    await base.addJob('chain', { i: 0, n: 40, tag: `chain-${run}-${i}` });
    chainMs.push(Math.max(...(await base.waitFor(`chain-${run}-${i}`, 40))) - t0);
    await sleep(300);
    t0 = wallMs();
    await base.addJobs(Array.from({ length: 200 }, () => ({ identifier: 'noop', payload: { tag: `fan-${run}-${i}` } })));
    fanMs.push(Math.max(...(await base.waitFor(`fan-${run}-${i}`, 200))) - t0);
    await sleep(300);
  }
  const eachMs = [];
  for (let i = 0; i < FOR_EACH_ROUNDS; i++) {
    t0 = wallMs();
    await base.addJobs(Array.from({ length: FOR_EACH_ITEMS }, () => ({ identifier: 'noop', payload: { tag: `each-${run}-${i}` } })));
    eachMs.push(Math.max(...(await base.waitFor(`each-${run}-${i}`, FOR_EACH_ITEMS))) - t0);
    await sleep(300);
  }
  return {
    latency_p50_ms: r2(median(lat)),
    latency_p99_ms: r2(quantile(lat, 0.99)),
    throughput_per_second: tp,
    chain_ms: r1(median(chainMs)),
    fan_ms: r1(median(fanMs)),
    for_each_ms: r1(median(eachMs)),
  };
}

export async function run() {
  const { dir, stampDir } = benchDir('svc-bench-user-');
  const stops = [];
  try {
    const cluster = await startPostgresKeeper(path.join(dir, 'baseline-pg'), { database: 'baseline', ephemeral: true, stdio: 'ignore' });
    stops.push(() => cluster.stop());
    const svc = await startAsUser(dir);
    stops.unshift(() => svc.stop());
    await svc.api('POST', '/api/v1/namespaces', { name: 'bench' }, 201);
    await svc.api(
      'POST',
      '/api/v1/namespaces/bench/changes',
      { message: 'bench', changes: Object.entries(flowFiles(stampDir)).map(([p, content]) => ({ op: 'put', path: p, content })) },
      201,
    );
    const base = await startBaseline({ url: cluster.url, concurrency: SLOTS });
    stops.unshift(() => base.stop());
    const runs = [];
    for (let i = 0; i < RUNS; i++) {
      // Alternating: svc, then the baseline, in each run, so both see the same machine over the whole benchmark.
      const s = await svcRun(svc, stampDir, i);
      await sleep(1000);
      const b = await baselineRun(base, stampDir, i);
      await sleep(1000);
      runs.push({
        svc: s,
        baseline: b,
        ratio: {
          b1_latency_p50: r2(s.latency_p50_ms / b.latency_p50_ms),
          b2_throughput: r2(s.throughput_per_second / b.throughput_per_second),
          b2_batch_throughput: s.batch_per_second === null ? null : r2(s.batch_per_second / b.throughput_per_second),
          b3_chain: r2(s.chain_ms / b.chain_ms),
          b4_fan_out: r2(s.fan_ms / b.fan_ms),
          b5_for_each: r2(s.for_each_ms / b.for_each_ms),
        },
      });
      console.log(`run ${i + 1}: ${JSON.stringify(runs.at(-1))}`);
    }
    const med = (k) => r2(median(runs.map((x) => x.ratio[k]).filter((v) => v !== null)));
    const result = {
      b1_latency_p50_ratio: { value: med('b1_latency_p50'), goal: '<= 1.5', met: med('b1_latency_p50') <= 1.5 },
      b2_throughput_ratio: { value: med('b2_throughput'), goal: '>= 0.6', met: med('b2_throughput') >= 0.6 },
      b2_batch_throughput_ratio: { value: runs.some((x) => x.ratio.b2_batch_throughput !== null) ? med('b2_batch_throughput') : null },
      b3_chain_ratio: { value: med('b3_chain'), goal: '<= 1.3', met: med('b3_chain') <= 1.3 },
      b4_fan_out_ratio: { value: med('b4_fan_out'), goal: '<= 1.5', met: med('b4_fan_out') <= 1.5 },
      b5_for_each_ratio: { value: med('b5_for_each'), goal: '<= 1.5', met: med('b5_for_each') <= 1.5 },
      runs,
    };
    console.log('figure | median ratio svc/baseline | goal');
    for (const [k, v] of Object.entries(result)) if (k !== 'runs') console.log(`${k} | ${v.value} | ${v.goal ?? '-'}${v.goal ? (v.met ? ' met' : ' MISSED') : ''}`);
    return result;
  } finally {
    for (const stop of stops) await stop().catch((err) => console.error(`engine-user bench cleanup: ${err}`));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
