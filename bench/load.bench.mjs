// Benchmark: the load part of issue 24. A whole deployment (api-gateway,
// scheduler, one dispatcher with the process executor, maintenance) on an
// embedded PostgreSQL, loaded over HTTP by autocannon (one instance per
// request kind, each rate-limited, all at once), in two phases:
//
//   load    BENCH_LOAD_BACKLOG executions (default 1,000) are triggered
//           first; then for BENCH_LOAD_SECONDS (default 300) a mix of
//           BENCH_LOAD_RPS requests/s (default 200) runs while they drain:
//             listFlows          15 %   GET /api/v1/flows
//             getFlow             5 %   GET /api/v1/flows/load/work
//             listExecutions     20 %   GET /api/v1/executions?limit=50
//             getExecution       20 %   GET /api/v1/executions/{id}
//             getExecutionLogs   20 %   GET /api/v1/executions/{id}/logs
//             getDashboard     17.5 %   GET /api/v1/stats/dashboard?range=24h
//             triggerFlow       2.5 %   POST /api/v1/flows/load/work/executions
//           ({id}: executions triggered so far, picked at random). Per kind:
//           requests, p50/p99/max latency, error rate (non-2xx, socket
//           errors and timeouts over all answered and failed requests).
//           Then: when the backlog had drained (from its first trigger), and
//           that every execution of the phase ends, with its end states.
//   memory  BENCH_MEMORY_EXECUTIONS executions (default 10,000), triggered
//           with at most 64 not yet ended at a time, until all have ended.
//
// Resident memory (VmRSS) of each app's process is sampled every second over
// both phases; reported per phase: start, peak and end, and for the memory
// phase also at every tenth of the executions ended, to show it flat.
// The work flow is one process task that prints two lines (`sh -c`).
//
// Latencies are autocannon's: from each request's send to its response, at a
// fixed rate per kind (a stalled server lowers the rate sent rather than
// queueing; the p99 then understates what an open-loop client would see,
// which is why the requests actually sent are reported beside the target).
//
// Full run (idle machine, ~10-15 min):  npm run bench -- load
// Quick check:  BENCH_LOAD_SECONDS=20 BENCH_LOAD_RPS=50 BENCH_LOAD_BACKLOG=100 BENCH_MEMORY_EXECUTIONS=300 npm run bench -- load
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { rssMiB } from './lib/rss.mjs';
import { root, startDeployment } from './lib/svc-deployment.mjs';

const { startPostgresKeeper } = await import(path.join(root, 'packages/db/dist/index.js'));

const LOAD_SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 300);
const LOAD_RPS = Number(process.env.BENCH_LOAD_RPS ?? 200);
const BACKLOG = Number(process.env.BENCH_LOAD_BACKLOG ?? 1000);
const MEMORY_EXECUTIONS = Number(process.env.BENCH_MEMORY_EXECUTIONS ?? 10_000);
/** How long the executions of a phase may take to end after it, before the benchmark fails. */
const DRAIN_TIMEOUT_S = Number(process.env.BENCH_DRAIN_TIMEOUT_S ?? 900);
const MEMORY_IN_FLIGHT = 64;
const APPS = ['api-gateway', 'scheduler', 'dispatcher', 'maintenance'];
const ENDED = ['SUCCESS', 'FAILED', 'TIMED_OUT', 'CANCELLED', 'SKIPPED'];
const NS = 'load';
const FLOW = 'work';

const MIX = [
  { kind: 'listFlows', share: 0.15, method: 'GET', path: () => '/api/v1/flows' },
  { kind: 'getFlow', share: 0.05, method: 'GET', path: () => `/api/v1/flows/${NS}/${FLOW}` },
  { kind: 'listExecutions', share: 0.2, method: 'GET', path: () => '/api/v1/executions?limit=50' },
  { kind: 'getExecution', share: 0.2, method: 'GET', path: (id) => `/api/v1/executions/${id()}` },
  { kind: 'getExecutionLogs', share: 0.2, method: 'GET', path: (id) => `/api/v1/executions/${id()}/logs` },
  { kind: 'getDashboard', share: 0.175, method: 'GET', path: () => '/api/v1/stats/dashboard?range=24h' },
  { kind: 'triggerFlow', share: 0.025, method: 'POST', path: () => `/api/v1/flows/${NS}/${FLOW}/executions`, body: '{}' },
];

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

/** Samples every app's RSS each second; `phase(name)` starts a new series. */
function memorySampler(procs) {
  const phases = {};
  let current;
  const sample = () => {
    if (!current) return;
    const row = { t: Date.now() };
    for (const app of APPS) row[app] = Math.round(rssMiB(procs[app].child.pid));
    current.push(row);
    return row;
  };
  const timer = setInterval(sample, 1000);
  return {
    phase(name) {
      current = phases[name] = [];
      sample();
    },
    sample,
    summary(name) {
      const rows = phases[name];
      return Object.fromEntries(APPS.map((app) => [app, { start_mib: rows[0][app], peak_mib: Math.max(...rows.map((r) => r[app])), end_mib: rows.at(-1)[app] }]));
    },
    stop: () => clearInterval(timer),
  };
}

/** Waits until none of `ids` is left unended; returns when the last ended (ms since epoch) and the end states. */
async function drained(db, ids, timeoutS) {
  const until = Date.now() + timeoutS * 1000;
  for (;;) {
    const r = await db.query(
      `SELECT (SELECT count(*)::int FROM executions WHERE id = ANY($1) AND ended_at IS NULL) AS open,
              (SELECT max(ended_at) FROM executions WHERE id = ANY($1)) AS last,
              (SELECT jsonb_object_agg(state, n) FROM (SELECT state, count(*) AS n FROM executions WHERE id = ANY($1) GROUP BY state) s) AS states`,
      [ids],
    );
    const { open, last, states } = r.rows[0];
    if (open === 0) return { last: last.getTime(), states };
    if (Date.now() > until) throw new Error(`${open} of ${ids.length} executions not ended ${timeoutS} s after their phase: ${JSON.stringify(states)}`);
    await sleep(1000);
  }
}

async function triggerMany(d, n, inFlight, ids) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(inFlight, n) }, async () => {
      while (next < n) {
        next++;
        ids.push((await d.trigger(NS, FLOW)).id);
      }
    }),
  );
}

function runKind(d, token, m, rate, seconds, ids) {
  const pick = () => ids[Math.floor(Math.random() * ids.length)];
  const request = { method: m.method, path: m.path(pick) };
  if (m.body !== undefined) request.body = m.body;
  // setupRequest runs for every request: a fresh execution id each time.
  if (m.path.length) request.setupRequest = (req) => ({ ...req, path: m.path(pick) });
  if (m.kind === 'triggerFlow') request.onResponse = (status, body) => status === 201 && ids.push(JSON.parse(body).id);
  return autocannon({
    url: d.base,
    // Enough connections that a slow answer does not hold the rate down; autocannon caps the sending at overallRate.
    connections: Math.max(4, Math.ceil(rate / 2)),
    overallRate: rate,
    duration: seconds,
    timeout: 30,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    requests: [request],
  });
}

export async function run() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-load-'));
  fs.chmodSync(dir, 0o755);
  const cluster = await startPostgresKeeper(path.join(dir, 'pg'), { database: 'svc', ephemeral: true, stdio: 'ignore' });
  const stops = [() => cluster.stop()];
  const loadavg = { start: os.loadavg().map((x) => round(x, 2)) };
  try {
    // BENCH_NODE_OPTIONS: for the apps only, e.g. --max-old-space-size=192 to tell garbage not yet collected from a leak.
    const env = process.env.BENCH_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS } : {};
    const d = await startDeployment({ url: cluster.url, dir: path.join(dir, 'svc'), apps: APPS, env });
    stops.unshift(() => d.stop());
    const db = new pg.Pool({ connectionString: cluster.url, max: 2 });
    stops.unshift(() => db.end());
    await d.saveFlows(NS, {
      [`${FLOW}.flow.yaml`]: JSON.stringify({ id: FLOW, tasks: [{ id: 'say', type: 'command', command: ['sh', '-c', 'echo started; echo done'] }] }),
    });
    const token = (await d.api('POST', '/api/v1/tokens', { name: 'bench-load', role: 'admin' })).body.secret;
    const mem = memorySampler(d.procs);
    stops.unshift(() => mem.stop());

    // --- load phase ---
    const backlog = [];
    const t0 = Date.now();
    await triggerMany(d, BACKLOG, 16, backlog);
    const backlogTriggerS = round((Date.now() - t0) / 1000);
    const ids = [...backlog];
    mem.phase('load');
    const loadStart = Date.now();
    const rates = MIX.map((m) => Math.max(1, Math.round(LOAD_RPS * m.share)));
    const results = await Promise.all(MIX.map((m, i) => runKind(d, token, m, rates[i], LOAD_SECONDS, ids)));
    const loadEnd = Date.now();
    const backlogDone = await drained(db, backlog, DRAIN_TIMEOUT_S);
    const phaseIds = [...ids];
    const allDone = await drained(db, phaseIds, DRAIN_TIMEOUT_S);
    mem.sample();
    const requests = Object.fromEntries(
      MIX.map((m, i) => {
        const r = results[i];
        const ok = r['2xx'];
        const failed = r.non2xx + r.errors;
        return [
          m.kind,
          {
            target_rps: rates[i],
            sent_rps: round((ok + failed) / LOAD_SECONDS),
            requests: ok + failed,
            p50_ms: r.latency.p50,
            p99_ms: r.latency.p99,
            max_ms: r.latency.max,
            error_rate: ok + failed ? round(failed / (ok + failed), 4) : null,
            non2xx: r.non2xx,
            errors: r.errors,
            timeouts: r.timeouts,
          },
        ];
      }),
    );
    const all = Object.values(requests);
    const total = all.reduce((n, r) => n + r.requests, 0);
    const load = {
      seconds: LOAD_SECONDS,
      target_rps: rates.reduce((a, b) => a + b, 0),
      sent_rps: round(total / LOAD_SECONDS),
      error_rate: round(all.reduce((n, r) => n + r.non2xx + r.errors, 0) / total, 4),
      requests,
      backlog: { executions: BACKLOG, triggered_in_s: backlogTriggerS, drained_s_after_first_trigger: round((backlogDone.last - t0) / 1000), states: backlogDone.states },
      executions_in_phase: phaseIds.length,
      all_ended_s_after_load_end: round(Math.max(0, allDone.last - loadEnd) / 1000),
      end_states: allDone.states,
      rss: mem.summary('load'),
    };

    // --- memory phase ---
    mem.phase('memory');
    const memIds = [];
    const memStart = Date.now();
    const checkpoints = [];
    const checkpointEvery = Math.max(1, Math.floor(MEMORY_EXECUTIONS / 10));
    let triggered = 0;
    let ended = 0;
    let stuck = false;
    const endedCount = async () => (await db.query(`SELECT count(*)::int AS n FROM executions WHERE id = ANY($1) AND ended_at IS NOT NULL`, [memIds])).rows[0].n;
    const watcher = (async () => {
      while (ended < MEMORY_EXECUTIONS) {
        await sleep(500);
        ended = await endedCount();
        while (checkpoints.length < Math.floor(ended / checkpointEvery)) checkpoints.push({ ended: (checkpoints.length + 1) * checkpointEvery, ...mem.sample() });
        if (Date.now() - memStart > (DRAIN_TIMEOUT_S + MEMORY_EXECUTIONS / 5) * 1000) {
          stuck = true;
          throw new Error(`memory phase: only ${ended} of ${MEMORY_EXECUTIONS} ended`);
        }
      }
    })();
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (triggered < MEMORY_EXECUTIONS && !stuck) {
          if (triggered - ended >= MEMORY_IN_FLIGHT) {
            await sleep(50);
            continue;
          }
          triggered++;
          memIds.push((await d.trigger(NS, FLOW)).id);
        }
      }),
    );
    await watcher;
    const memDone = await drained(db, memIds, DRAIN_TIMEOUT_S);
    // Let the last task runs' buffers go before the end sample.
    await sleep(5000);
    mem.sample();
    const memory = {
      executions: MEMORY_EXECUTIONS,
      seconds: round((memDone.last - memStart) / 1000),
      executions_per_s: round(MEMORY_EXECUTIONS / ((memDone.last - memStart) / 1000)),
      end_states: memDone.states,
      rss: mem.summary('memory'),
      rss_mib_at_each_tenth: checkpoints.map(({ ended: n, ...r }) => ({ ended: n, ...Object.fromEntries(APPS.map((a) => [a, r[a]])) })),
    };
    loadavg.end = os.loadavg().map((x) => round(x, 2));
    return { load, memory, loadavg, node_options: process.env.BENCH_NODE_OPTIONS ?? null };
  } finally {
    for (const stop of stops)
      await Promise.resolve()
        .then(stop)
        .catch(() => undefined);
  }
}
