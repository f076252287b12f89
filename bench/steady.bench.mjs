// Benchmark B6 (issue #46): steady state as a user runs svc. `npm start` alone
// (startAsUser of engine-user.bench.mjs: every app, the embedded PostgreSQL,
// the default log level and slots), then BENCH_STEADY_RATE (50) executions per
// second of a one-task flow for BENCH_STEADY_SECONDS (300), sent at that rate
// whatever the answers take (an open loop, as independent clients send), each
// request with an API token. Reported:
//   - trigger -> start p50/p99: from the moment a trigger request is sent to
//     its task's process start, written by the task itself (`date +%s%N`);
//   - per minute, the same figures, to show they do not drift;
//   - the resident memory (VmRSS) of each app and of PostgreSQL at the end of
//     minute 1 and at the end, and its growth in between. Goal: no app grows
//     (within 10 % of minute 1's figure, allowing for the collector's swings);
//     PostgreSQL's is reported, not judged (its processes' RSS counts the
//     shared buffers they touched, which fill up to shared_buffers).
// BENCH_STEADY_TIMELINE=FILE also writes every execution's [sent, started]
// (ms since the epoch; started null if it never did), to line up slow
// stretches with what else ran then.
import fs from 'node:fs';
import path from 'node:path';
import { startAsUser } from './engine-user.bench.mjs';
import { procStat } from './lib/cpu.mjs';
import { rssMiB } from './lib/rss.mjs';
import { benchDir, flowFiles, median, quantile, stampOf } from './lib/engine-scenarios.mjs';
import { wallMs } from './lib/svc-deployment.mjs';

const RATE = Number(process.env.BENCH_STEADY_RATE ?? 50);
const SECONDS = Number(process.env.BENCH_STEADY_SECONDS ?? 300);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const r1 = (x) => +x.toFixed(1);
const r2 = (x) => +x.toFixed(2);

/** Resident MiB of each process descending from `root` (npm start's), summed by app (gateway, scheduler, dispatcher, maintenance, postgres). */
function rssByApp(root) {
  const procs = [];
  for (const pid of fs.readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    const s = procStat(pid);
    if (s) procs.push({ pid: Number(pid), ppid: s.ppid });
  }
  // The apps start detached (their own process groups), so they are found by descent.
  const mine = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of procs) if (!mine.has(p.pid) && mine.has(p.ppid)) grew = mine.add(p.pid) !== null;
  }
  const out = {};
  for (const pid of mine) {
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      const app = /postgres/.test(cmd) ? 'postgres' : (/apps\/([a-z-]+)\/dist\/main\.js/.exec(cmd)?.[1] ?? null);
      if (!app) continue;
      const mib = rssMiB(pid);
      if (!Number.isNaN(mib)) out[app] = r1((out[app] ?? 0) + mib);
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

export async function run() {
  const { dir, stampDir } = benchDir('svc-bench-steady-');
  const svc = await startAsUser(dir);
  try {
    await svc.api('POST', '/api/v1/namespaces', { name: 'bench' }, 201);
    await svc.api(
      'POST',
      '/api/v1/namespaces/bench/changes',
      { message: 'bench', changes: [{ op: 'put', path: 'lat.flow.yaml', content: flowFiles(stampDir)['lat.flow.yaml'] }] },
      201,
    );
    const sent = new Map(); // execution id -> [sent at, minute]
    const failures = [];
    const inFlight = new Set();
    const t0 = wallMs();
    let rssMinute1 = null;
    for (let i = 0; i < RATE * SECONDS; i++) {
      // The i-th request leaves at its own instant: a slow answer delays no other request.
      const due = t0 + (i * 1000) / RATE;
      const wait = due - wallMs();
      if (wait > 0) await sleep(wait);
      if (rssMinute1 === null && wallMs() - t0 >= 60_000) rssMinute1 = rssByApp(svc.pid);
      const at = wallMs();
      const p = svc
        .api('POST', '/api/v1/flows/bench/lat/executions', {})
        .then((e) => (e?.id ? sent.set(e.id, [at, Math.floor((at - t0) / 60_000)]) : failures.push(JSON.stringify(e).slice(0, 200))))
        .catch((err) => failures.push(String(err)))
        .finally(() => inFlight.delete(p));
      inFlight.add(p);
    }
    await Promise.all(inFlight);
    const rssEnd = rssByApp(svc.pid);
    // Every execution's start, once its task wrote it (the last ones may still be starting).
    const starts = new Map();
    for (const until = Date.now() + 120_000; starts.size < sent.size && Date.now() < until; await sleep(500)) {
      for (const [id] of sent) {
        if (starts.has(id)) continue;
        const at = stampOf(path.join(stampDir, id));
        if (at !== undefined) starts.set(id, at);
      }
    }
    const waits = [];
    const byMinute = new Map();
    for (const [id, [at, minute]] of sent) {
      const s = starts.get(id);
      if (s === undefined) continue;
      waits.push(s - at);
      byMinute.set(minute, [...(byMinute.get(minute) ?? []), s - at]);
    }
    if (process.env.BENCH_STEADY_TIMELINE) fs.writeFileSync(process.env.BENCH_STEADY_TIMELINE, JSON.stringify([...sent].map(([id, [at]]) => [at, starts.get(id) ?? null])));
    const growth = Object.fromEntries(Object.keys(rssEnd).map((k) => [k, r1(rssEnd[k] - (rssMinute1?.[k] ?? 0))]));
    // The apps' memory is the goal. PostgreSQL's is reported beside it: the RSS of its processes counts the
    // shared buffers each one has touched, so it rises as the buffers fill, up to shared_buffers, without a leak.
    const grew = Object.keys(rssEnd).filter((k) => k !== 'postgres' && rssMinute1?.[k] && rssEnd[k] - rssMinute1[k] > 0.1 * rssMinute1[k]);
    const result = {
      rate_per_second: RATE,
      seconds: SECONDS,
      sent: RATE * SECONDS,
      accepted: sent.size,
      refused_or_failed: failures.length,
      started: starts.size,
      trigger_to_start_p50_ms: r2(median(waits)),
      trigger_to_start_p99_ms: r2(quantile(waits, 0.99)),
      by_minute: [...byMinute].sort((a, b) => a[0] - b[0]).map(([m, xs]) => ({ minute: m + 1, p50_ms: r2(median(xs)), p99_ms: r2(quantile(xs, 0.99)), n: xs.length })),
      rss_mib_minute_1: rssMinute1,
      rss_mib_end: rssEnd,
      rss_growth_mib: growth,
      no_growth: { goal: 'each app (not PostgreSQL) within 10 % of its minute-1 RSS', met: !!rssMinute1 && Object.keys(rssEnd).length >= 4 && grew.length === 0, grew },
      ...(failures.length ? { first_failures: failures.slice(0, 3) } : {}),
    };
    console.log(JSON.stringify(result));
    return result;
  } finally {
    await svc.stop().catch((err) => console.error(`steady bench cleanup: ${err}`));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
