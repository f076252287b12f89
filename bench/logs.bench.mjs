// Benchmark: logs (issue 7, "Speed"), against a real api-gateway process (with
// dispatcher and maintenance beside it) on an embedded PostgreSQL. The
// benchmark plays the runners: it claims task runs of a pool no dispatcher
// serves and posts their lines through the runner protocol, as `svc exec`
// does (batches of up to 500 lines, one request at a time per runner).
//
//   ingest     10 runners post 500-line batches of 100-byte lines as fast as
//              the gateway answers, for BENCH_INGEST_MS; lines stored per
//              second (counted in the database). Target: >= 50,000 lines/s.
//   latency    one runner posts one line at a time (20 ms apart); an SSE
//              client of streamExecutionLogs stamps its arrival: post start to
//              arrival, p50 and p99, idle and while 10 other runners post
//              20,000 lines/s in all.
//              Target: p50 < 20 ms.
//   page       getExecutionLogs?limit=5000 on an execution holding 1,000,000
//              lines (10 task runs x 100,000, written in bulk by SQL): the
//              first page, a page from the middle (cursor), and a page of one
//              task; full response received over HTTP, median of 30.
//              Target: < 50 ms.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { beOnline, claimAll, openStream, q, round, runnerClient } from './lib/logs-helpers.mjs';
import { root, startDeployment } from './lib/svc-deployment.mjs';

const { startPostgresKeeper } = await import(path.join(root, 'packages/db/dist/index.js'));

const INGEST_MS = Number(process.env.BENCH_INGEST_MS ?? 10_000);
const LATENCY_SAMPLES = Number(process.env.BENCH_LATENCY_SAMPLES ?? 300);
const PAGE_LINES = Number(process.env.BENCH_PAGE_LINES ?? 1_000_000);
const RUNNERS = 10;
const POOL = 'bench-runners';
const LINE = (i) => `${String(i).padStart(8, '0')} ${'lorem ipsum dolor sit amet '.repeat(4).slice(0, 90)}`;

const flow = (id, tasks) => JSON.stringify({ id, tasks: Array.from({ length: tasks }, (_, i) => ({ id: `t${i}`, type: 'command', command: ['true'], executor: { type: 'process', pool: POOL } })) });

async function ingest(d, db, seconds) {
  const ex = await d.trigger('logs', 'ten');
  const runs = await claimAll(db, ex.id, [POOL], RUNNERS);
  const clients = runs.map((r) => runnerClient(d.base, r));
  const batch = Array.from({ length: 500 }, (_, i) => LINE(i));
  let stop = false;
  const t0 = performance.now();
  const loops = clients.map(async (c) => {
    while (!stop) await c.post(batch);
  });
  await new Promise((r) => setTimeout(r, seconds));
  stop = true;
  await Promise.all(loops);
  const wall = (performance.now() - t0) / 1000;
  const stored = Number((await db.query(`SELECT count(*) AS n FROM log_lines WHERE execution_id = $1`, [ex.id])).rows[0].n);
  clients.forEach((c) => c.close());
  return { lines: stored, seconds: round(wall), lines_per_second: Math.round(stored / wall), posts_per_second: Math.round(stored / 500 / wall) };
}

async function latency(d, db, samples, withLoad) {
  const ex = await d.trigger('logs', withLoad ? 'eleven' : 'one');
  const runs = await claimAll(db, ex.id, [POOL], withLoad ? RUNNERS + 1 : 1);
  const probe = runnerClient(d.base, runs[0]);
  const arrivals = new Map();
  const waiters = new Map();
  const stream = await openStream(`${d.base}/api/v1/executions/${ex.id}/logs/stream?task=${runs[0].taskKey}`, d.token, (event, data, at) => {
    if (event !== 'line') return;
    const text = JSON.parse(data).text;
    arrivals.set(text, at);
    waiters.get(text)?.();
  });
  let stop = false;
  const load = withLoad
    ? runs.slice(1).map(async (r) => {
        const c = runnerClient(d.base, r);
        // 100 lines every 50 ms per runner: 20,000 lines/s in all, a busy but not saturated gateway.
        const batch = Array.from({ length: 100 }, (_, i) => LINE(i));
        while (!stop) await Promise.all([c.post(batch), new Promise((res) => setTimeout(res, 50))]);
        c.close();
      })
    : [];
  const out = [];
  for (let i = 0; i < samples + 20; i++) {
    const text = `probe ${i}`;
    const arrived = new Promise((res) => waiters.set(text, res));
    const t = performance.now();
    await probe.post([text]);
    await Promise.race([arrived, new Promise((res) => setTimeout(res, 5000))]);
    waiters.delete(text);
    if (i >= 20 && arrivals.has(text)) out.push(arrivals.get(text) - t);
    await new Promise((res) => setTimeout(res, 20));
  }
  stop = true;
  await Promise.all(load);
  stream.close();
  probe.close();
  out.sort((a, b) => a - b);
  return { samples: out.length, lost: samples - out.length, p50_ms: round(q(out, 0.5)), p99_ms: round(q(out, 0.99)), max_ms: round(out.at(-1)) };
}

async function pages(d, db, total) {
  const ex = await d.trigger('logs', 'ten');
  const runs = await claimAll(db, ex.id, [POOL], RUNNERS);
  const per = Math.ceil(total / runs.length);
  const t0 = performance.now();
  // Bulk load, interleaved stamps across the runs as concurrent tasks would write them.
  for (const [k, r] of runs.entries()) {
    await db.query(
      `INSERT INTO log_lines (task_run_id, n, execution_id, task_key, attempt, ts, stream, text, seq)
       SELECT $1, g, $2, $3, 1, 1767225600000000000 + g::bigint * 1000000 + $4, 'stdout', lpad(g::text, 8, '0') || ' ' || repeat('x', 90), $4::bigint * $5 + g
       FROM generate_series(1, $5) AS g`,
      [r.id, ex.id, r.taskKey, k, per],
    );
  }
  await db.query(`ANALYZE log_lines`);
  const loadSeconds = round((performance.now() - t0) / 1000);
  const get = async (query) => {
    const times = [];
    let items = 0;
    for (let i = 0; i < 35; i++) {
      const t = performance.now();
      const r = await fetch(`${d.base}/api/v1/executions/${ex.id}/logs?${query}`, { headers: { authorization: `Bearer ${d.token}` } });
      const body = await r.json();
      if (r.status !== 200) throw new Error(`getExecutionLogs answered ${r.status}: ${JSON.stringify(body)}`);
      if (i >= 5) times.push(performance.now() - t);
      items = body.items.length;
    }
    times.sort((a, b) => a - b);
    return { items, median_ms: round(q(times, 0.5)), p95_ms: round(q(times, 0.95)) };
  };
  const mid = (await db.query(`SELECT ts::text, task_run_id, n FROM log_lines WHERE execution_id = $1 ORDER BY ts, task_run_id, n OFFSET $2 LIMIT 1`, [ex.id, Math.floor(total / 2)])).rows[0];
  const cursor = Buffer.from(JSON.stringify({ ts: mid.ts, t: mid.task_run_id, n: mid.n })).toString('base64url');
  return {
    lines_in_execution: per * runs.length,
    bulk_load_seconds: loadSeconds,
    first_page: await get('limit=5000'),
    middle_page: await get(`limit=5000&cursor=${cursor}`),
    one_task_page: await get(`limit=5000&task=${runs[3].taskKey}`),
  };
}

export async function run() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-logs-'));
  fs.chmodSync(dir, 0o755);
  const cluster = await startPostgresKeeper(path.join(dir, 'pg'), { database: 'svc', ephemeral: true, stdio: 'ignore' });
  const stops = [() => cluster.stop()];
  try {
    const d = await startDeployment({ url: cluster.url, dir: path.join(dir, 'svc') });
    stops.unshift(() => d.stop());
    d.token = (await d.api('POST', '/api/v1/tokens', { name: 'bench-reader', role: 'viewer' })).body.secret;
    await d.saveFlows('logs', { 'ten.flow.yaml': flow('ten', RUNNERS), 'eleven.flow.yaml': flow('eleven', RUNNERS + 1), 'one.flow.yaml': flow('one', 1) });
    const db = new pg.Pool({ connectionString: cluster.url, max: 4 });
    stops.unshift(() => db.end());
    const offline = await beOnline(db, [POOL]);
    stops.unshift(async () => offline());
    await ingest(d, db, 2000); // warm-up
    const result = {
      ingest: await ingest(d, db, INGEST_MS),
      latency_idle: await latency(d, db, LATENCY_SAMPLES, false),
      latency_while_ingesting: await latency(d, db, LATENCY_SAMPLES, true),
      get_execution_logs: await pages(d, db, PAGE_LINES),
      gateway_rss_mib: Math.round(Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${d.procs['api-gateway'].child.pid}/status`, 'utf8'))?.[1]) / 1024),
    };
    result.targets = {
      ingest_50000_lines_per_second: result.ingest.lines_per_second >= 50_000,
      latency_p50_under_20_ms: result.latency_idle.p50_ms < 20,
      page_of_5000_under_50_ms: Math.max(result.get_execution_logs.first_page.median_ms, result.get_execution_logs.middle_page.median_ms) < 50,
    };
    return result;
  } finally {
    for (const stop of stops) await stop().catch?.(() => undefined);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
