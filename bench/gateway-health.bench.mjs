// Benchmark: requests per second and latency of the gateway's health and
// metrics routes, served by a real api-gateway process against a real
// (embedded) PostgreSQL, loaded by concurrent keep-alive clients on loopback.
// Targets: /healthz at least 5,000 req/s with p99 under 20 ms; /readyz and
// /metrics (which query the database at every call) at least 300 req/s.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { rssMiB } from './lib/rss.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { startPostgresKeeper, createDb, applyMigrations } = await import(path.join(root, 'packages/db/dist/index.js'));

const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 5_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);

async function load(url, ms, concurrency) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies = [];
  let errors = 0;
  const until = Date.now() + ms;
  const one = () =>
    new Promise((resolve) => {
      const t = process.hrtime.bigint();
      http
        .get(url, { agent }, (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode !== 200) errors++;
            latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
            resolve();
          });
        })
        .on('error', () => {
          errors++;
          resolve();
        });
    });
  const start = Date.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < until) await one();
    }),
  );
  const secs = (Date.now() - start) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const q = (p) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? NaN;
  return { requests: latencies.length, rps: Math.round(latencies.length / secs), p50_ms: +q(0.5).toFixed(2), p99_ms: +q(0.99).toFixed(2), errors };
}

export async function run() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-'));
  fs.chmodSync(dir, 0o755);
  const pg = await startPostgresKeeper(path.join(dir, 'pg'), { database: 'svc', ephemeral: true, stdio: 'ignore' });
  const db = createDb({ url: pg.url, poolSize: 1 });
  await applyMigrations(db.pool);
  await db.close();
  const port = 20000 + Math.floor(Math.random() * 20000);
  const gw = spawn(process.execPath, [path.join(root, 'apps/api-gateway/dist/main.js')], {
    env: { ...process.env, SVC_DATABASE_URL: pg.url, SVC_PORT: String(port), SVC_DATA_DIR: dir, SVC_LOG_LEVEL: 'warn' },
    stdio: 'inherit',
  });
  try {
    for (let i = 0; i < 100; i++) {
      try {
        if ((await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200) break;
      } catch {}
      await new Promise((r) => setTimeout(r, 100));
    }
    const results = {};
    for (const route of ['/healthz', '/readyz', '/metrics']) {
      await load(`http://127.0.0.1:${port}${route}`, 500, CONCURRENCY); // warm-up
      results[route] = await load(`http://127.0.0.1:${port}${route}`, DURATION_MS, CONCURRENCY);
    }
    const rss = rssMiB(gw.pid);
    results.gateway_rss_mib = Number.isNaN(rss) ? null : Math.round(rss);
    return results;
  } finally {
    gw.kill('SIGTERM');
    await new Promise((r) => gw.once('exit', r));
    await pg.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
