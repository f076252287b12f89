// Benchmark: the docker executor against the process executor (issue 16).
//
//   latency      one execution at a time, a one-task flow (`command: [true]`):
//                trigger response to the task run's claim (started_at), to
//                the task's process running (the runner's `started` event;
//                docker only: the process executor reports none), and to the
//                execution's end, read from the database. p50 / p95.
//   throughput   BENCH_EXEC_BURST executions triggered at once, time until
//                all ended: executions per second, with SVC_WORKER_SLOTS
//                task runs at a time per executor.
// Real PostgreSQL (embedded), real api-gateway, dispatcher and maintenance
// processes, the private Docker engine of scripts/docker-engine.mjs and the
// busybox test image (no libc: the injected runner brings everything).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { root, startDeployment, wallMs } from './lib/svc-deployment.mjs';

const SAMPLES = Number(process.env.BENCH_EXEC_SAMPLES ?? 20);
const BURST = Number(process.env.BENCH_EXEC_BURST ?? 40);
const SLOTS = Number(process.env.BENCH_EXEC_SLOTS ?? 8);

const { startPostgresKeeper } = await import(path.join(root, 'packages/db/dist/index.js'));
const { startDockerEngine } = await import(path.join(root, 'scripts/docker-engine.mjs'));
const { dockerAt, ensureTestImages } = await import('@svc/container-testing');

const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];
const r1 = (x) => (x === undefined ? null : Math.round(x * 10) / 10);
const summary = (xs) => (xs.length ? { p50: r1(pct(xs, 50)), p95: r1(pct(xs, 95)), n: xs.length } : null);

async function waitAllEnded(db, ids, ms = 300_000) {
  const end = Date.now() + ms;
  for (;;) {
    const r = await db.query(`SELECT count(*)::int AS n FROM executions WHERE id = ANY($1) AND state IN ('SUCCESS','FAILED','TIMED_OUT','CANCELLED','SKIPPED')`, [ids]);
    if (r.rows[0].n === ids.length) return;
    if (Date.now() > end) throw new Error(`${ids.length - r.rows[0].n} executions did not end`);
    await new Promise((res) => setTimeout(res, 20));
  }
}

async function measure(d, db, ns) {
  // Warm-up: the docker executor fills its runner volume on the first run.
  for (let i = 0; i < 2; i++) {
    const w = await d.trigger(ns, 'one');
    await waitAllEnded(db, [w.id]);
  }
  const toClaim = [];
  const toStart = [];
  const toEnd = [];
  for (let i = 0; i < SAMPLES; i++) {
    const t = await d.trigger(ns, 'one');
    await waitAllEnded(db, [t.id]);
    const row = (await db.query(`SELECT e.state, t.started_at, t.progress, e.ended_at FROM executions e JOIN task_runs t ON t.execution_id = e.id WHERE e.id = $1`, [t.id]))
      .rows[0];
    if (row.state !== 'SUCCESS') throw new Error(`${ns}: execution ${t.id} ended ${row.state}`);
    toClaim.push(row.started_at.getTime() - t.sent);
    if (row.progress?.type === 'started') toStart.push(Date.parse(row.progress.at) - t.sent);
    toEnd.push(row.ended_at.getTime() - t.sent);
  }
  const t0 = wallMs();
  const ids = [];
  for (let i = 0; i < BURST; i++) ids.push((await d.trigger(ns, 'one')).id);
  await waitAllEnded(db, ids);
  const seconds = (wallMs() - t0) / 1000;
  const failed = (await db.query(`SELECT count(*)::int AS n FROM executions WHERE id = ANY($1) AND state <> 'SUCCESS'`, [ids])).rows[0].n;
  return {
    trigger_to_claim_ms: summary(toClaim),
    trigger_to_process_started_ms: summary(toStart),
    trigger_to_end_ms: summary(toEnd),
    burst: { executions: BURST, seconds: r1(seconds), per_second: r1(BURST / seconds), failed },
  };
}

export async function run() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-exec-'));
  const stops = [];
  try {
    const engine = await startDockerEngine({ dir: path.join(dir, 'docker') });
    if (!engine.ok) return { skipped: `no Docker engine: ${engine.reason}` };
    stops.push(() => engine.stop());
    const images = await ensureTestImages(dockerAt(engine.host));
    const cluster = await startPostgresKeeper(path.join(dir, 'pg'), { database: 'svc', ephemeral: true, stdio: 'ignore' });
    stops.push(() => cluster.stop());
    const d = await startDeployment({
      url: cluster.url,
      dir: path.join(dir, 'svc'),
      env: { SVC_EXECUTORS: 'process,docker', SVC_DOCKER_HOST: engine.host, SVC_WORKER_SLOTS: String(SLOTS) },
    });
    stops.push(() => d.stop());
    const db = new pg.Pool({ connectionString: cluster.url, max: 4 });
    stops.push(() => db.end());
    const one = (executor) => JSON.stringify({ id: 'one', executor, tasks: [{ id: 't', type: 'command', command: ['true'] }] });
    await d.saveFlows('proc', { 'one.flow.yaml': one({ type: 'process' }) });
    await d.saveFlows('dock', { 'one.flow.yaml': one({ type: 'docker', image: images.busybox }) });
    // Docker is advertised once the dispatcher's engine check passed.
    for (let i = 0; !(await db.query(`SELECT 1 FROM instances WHERE 'docker' = ANY(executors) AND stopped_at IS NULL`)).rowCount; i++) {
      if (i > 600) throw new Error(`docker was never advertised:\n${d.output()}`);
      await new Promise((res) => setTimeout(res, 100));
    }
    const process_ = await measure(d, db, 'proc');
    const docker = await measure(d, db, 'dock');
    return { samples: SAMPLES, slots: SLOTS, process: process_, docker };
  } finally {
    for (const stop of stops.reverse()) await stop().catch((err) => console.error('bench cleanup:', err.message));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
