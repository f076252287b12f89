// The health server of the apps without an HTTP API (scheduler, dispatcher,
// maintenance), what the Kubernetes probes, the Compose healthchecks and the
// image HEALTHCHECK call: each real app, on SVC_HEALTH_PORT, answers /healthz,
// /readyz (database, migrations, started) and /metrics; /readyz turns 503
// while the database holds a migration this build does not know (an upgrade
// half rolled out) and back to 200 once it does not, while /healthz stays 200;
// SIGTERM still stops each cleanly.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '@svc/db/testing';
import { root } from './stack.js';

const APPS = ['scheduler', 'dispatcher', 'maintenance'] as const;
type App = (typeof APPS)[number];

let tdb: TestDatabase;
let pool: pg.Pool;
const procs = new Map<App, { child: ChildProcess; output: () => string; exited: Promise<number | null>; url: string }>();

async function waitFor<T>(what: string, fn: () => Promise<T | undefined | null | false>, ms = 90_000): Promise<T> {
  const until = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const get = async (url: string) => {
  const r = await fetch(url, { signal: AbortSignal.timeout(15_000) });
  const text = await r.text();
  return { status: r.status, type: r.headers.get('content-type') ?? '', text };
};

before(async () => {
  tdb = await createTestDatabase();
  pool = new pg.Pool({ connectionString: tdb.url, max: 2 });
  pool.on('error', () => undefined);
  for (const app of APPS) {
    let out = '';
    const child = spawn(process.execPath, [path.join(root, 'apps', app, 'dist', 'main.js')], {
      env: {
        PATH: process.env.PATH,
        SVC_DATABASE_URL: tdb.url,
        SVC_HEALTH_PORT: '0',
        SVC_LOG_LEVEL: 'info',
        SVC_DATA_DIR: path.join(root, '.test-data', `svc-health-${app}`),
        SVC_RUNNER_URL: 'http://127.0.0.1:9',
        SVC_BUILD_VERSION: '9.8.7-test',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    procs.set(app, { child, output: () => out, exited, url: '' });
  }
  for (const app of APPS) {
    const p = procs.get(app)!;
    const port = await waitFor(`${app}'s health port`, async () => {
      if (p.child.exitCode !== null) throw new Error(`${app} exited: ${p.output()}`);
      return /"message":"health listening"[^\n]*"port":(\d+)/.exec(p.output())?.[1];
    });
    p.url = `http://127.0.0.1:${port}`;
  }
});

after(async () => {
  for (const p of procs.values()) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  await Promise.all([...procs.values()].map((p) => p.exited));
  await pool?.end();
  await tdb?.drop();
});

test('each app answers /healthz and, once started, /readyz with its database, migrations and start checks', async () => {
  for (const app of APPS) {
    const { url } = procs.get(app)!;
    const ready = await waitFor(`${app} ready`, async () => {
      const r = await get(`${url}/readyz`);
      return r.status === 200 ? r : undefined;
    });
    assert.match(ready.type, /^application\/json/);
    const { details, ...report } = JSON.parse(ready.text) as { details?: Record<string, string> };
    assert.deepEqual(report, { status: 'ok', checks: { database: 'ok', migrations: 'ok', started: 'ok' } }, app);
    // Maintenance without SVC_SMTP_URL says so beside its checks (still ready); the others add nothing.
    if (app === 'maintenance') assert.match(details?.email ?? '', /^not configured: SVC_SMTP_URL is unset/, app);
    else assert.equal(details, undefined, app);
    const live = await get(`${url}/healthz`);
    assert.equal(live.status, 200, app);
    assert.deepEqual(JSON.parse(live.text), { status: 'ok' });
    const missing = await get(`${url}/api/v1/flows`);
    assert.equal(missing.status, 404, app);
    assert.equal(JSON.parse(missing.text).error.code, 'not_found');
  }
});

test('each app serves Prometheus metrics, its process metrics, its build and its own', async () => {
  for (const app of APPS) {
    const m = await get(`${procs.get(app)!.url}/metrics`);
    assert.equal(m.status, 200, app);
    assert.match(m.type, /^text\/plain/);
    // The build it runs (SVC_BUILD_VERSION, which the images stamp at build time).
    assert.ok(
      m.text.includes(`svc_build_info{app="${app}",version="9.8.7-test",node="${process.version}"} 1`),
      `${app}: ${m.text
        .split('\n')
        .filter((l) => l.startsWith('svc_build'))
        .join(' ')}`,
    );
    assert.match(m.text, /^process_resident_memory_bytes \d+/m, app);
    assert.match(m.text, /^nodejs_eventloop_lag_seconds /m, app);
  }
  const maintenance = await get(`${procs.get('maintenance')!.url}/metrics`);
  assert.match(maintenance.text, /^svc_maintenance_lease_held [01]$/m);
});

test('/readyz fails while the database holds a migration this build does not know, /healthz does not', async () => {
  for (const app of APPS) await waitFor(`${app} ready`, async () => (await get(`${procs.get(app)!.url}/readyz`)).status === 200);
  await pool.query(
    `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count)
     VALUES ('future-health', 'x', now(), '29990101000000_newer', now(), 1)`,
  );
  try {
    for (const app of APPS) {
      const { url } = procs.get(app)!;
      const r = await get(`${url}/readyz`);
      assert.equal(r.status, 503, app);
      const body = JSON.parse(r.text) as { status: string; checks: Record<string, string>; failed: string[] };
      assert.equal(body.status, 'fail');
      assert.deepEqual(body.failed, ['migrations'], app);
      assert.match(body.checks.migrations!, /recorded but not in this build[^]*29990101000000_newer/);
      assert.equal(body.checks.database, 'ok');
      assert.equal((await get(`${url}/healthz`)).status, 200, `${app}: alive all the same`);
    }
  } finally {
    await pool.query(`DELETE FROM "_prisma_migrations" WHERE id = 'future-health'`);
  }
  for (const app of APPS) assert.equal((await get(`${procs.get(app)!.url}/readyz`)).status, 200, app);
});

test('SIGTERM stops each app cleanly, its health server with it', async () => {
  for (const app of APPS) {
    const p = procs.get(app)!;
    p.child.kill('SIGTERM');
    assert.equal(await p.exited, 0, `${app}:\n${p.output().slice(-3000)}`);
    await assert.rejects(fetch(`${p.url}/healthz`, { signal: AbortSignal.timeout(5000) }), app);
  }
});
