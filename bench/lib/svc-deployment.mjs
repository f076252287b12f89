// A whole svc deployment for benchmarks: api-gateway, dispatcher and
// maintenance processes on a given database, an admin with an API token,
// talking over HTTP. (Benchmarks do not import test code; this mirrors
// e2e/test/stack.ts.)
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dbLib = await import(path.join(root, 'packages/db/dist/index.js'));
const identity = await import(path.join(root, 'packages/identity/dist/index.js'));

/** Wall-clock milliseconds with sub-millisecond precision (comparable with `date +%s%N`). */
export const wallMs = () => performance.timeOrigin + performance.now();
export const ENDED = ['SUCCESS', 'FAILED', 'TIMED_OUT', 'CANCELLED', 'SKIPPED'];

export function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** The environment of an app process of a benchmark deployment; `env` is added last. */
export function appEnv({ url, port, dir, storageUrl, env = {} }) {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    SVC_DATABASE_URL: url,
    SVC_PORT: String(port),
    SVC_DATA_DIR: dir,
    SVC_STORAGE_URL: storageUrl,
    SVC_LOG_LEVEL: 'warn',
    ...env,
  };
}

/**
 * Starts a deployment on `o.url` (migrated here) with files under `o.dir`.
 * @param {{ url: string, dir: string, env?: Record<string, string>, apps?: string[] }} o `env` is added to every process's
 *   environment; `apps` are the apps started (default api-gateway, dispatcher and maintenance; the gateway and a dispatcher are needed).
 */
/**
 * POST triggerFlow with an empty body on `agent`: the execution's id, when
 * the response headers arrived (`at`: the execution is committed by then) and
 * when the request started (`sent`).
 */
export async function triggerOverHttp(base, agent, headers, ns, flow) {
  const sent = wallMs();
  const { status, at, text } = await new Promise((resolve, reject) => {
    const req = http.request(`${base}/api/v1/flows/${ns}/${flow}/executions`, { method: 'POST', agent, headers }, (res) => {
      const at = wallMs();
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, at, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end('{}');
  });
  if (status !== 201) throw new Error(`trigger through ${base} failed: ${status} ${text}`);
  return { id: JSON.parse(text).id, at, sent };
}

/** Signs in as the benchmarks' admin (bench@example.com) at `base` and makes an admin API token: its secret. */
export async function adminToken(base) {
  const login = await fetch(`${base}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'bench@example.com', password: 'bench password 1' }),
  });
  const cookie = /svc_session=[^;]+/.exec(login.headers.get('set-cookie') ?? '')[0];
  const tok = await (
    await fetch(`${base}/api/v1/tokens`, {
      method: 'POST',
      headers: { cookie, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench', role: 'admin' }),
    })
  ).json();
  return tok.secret;
}

export async function startDeployment(o) {
  const setup = dbLib.createDb({ url: o.url, poolSize: 2 });
  await dbLib.applyMigrations(setup.pool);
  await identity.createUser(setup.pool, { email: 'bench@example.com', role: 'admin', password: 'bench password 1' }, new Date());
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = appEnv({ url: o.url, port, dir: o.dir, storageUrl: `file://${path.join(o.dir, 'objects')}`, env: o.env });
  const procs = {};
  for (const app of o.apps ?? ['api-gateway', 'dispatcher', 'maintenance']) {
    const child = spawn(process.execPath, [path.join(root, 'apps', app, 'dist', 'main.js')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const p = { child, out: '', exited: new Promise((r) => child.once('exit', r)) };
    child.stdout.on('data', (d) => (p.out += d));
    child.stderr.on('data', (d) => (p.out += d));
    procs[app] = p;
  }
  const output = () =>
    Object.entries(procs)
      .map(([app, p]) => (p.out ? `--- ${app}\n${p.out}` : ''))
      .join('');
  try {
    // 90 s, as the e2e stacks allow: on a loaded machine the gateway's start (migrations checked, modules loaded) passed 15 s.
    const startBy = Date.now() + 90_000;
    for (;;) {
      try {
        if ((await fetch(`${base}/healthz`)).ok) break;
      } catch {}
      if (Date.now() > startBy) throw new Error(`gateway did not start:\n${output()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    for (let i = 0; !(await setup.pool.query(`SELECT 1 FROM instances WHERE kind = 'dispatcher' AND stopped_at IS NULL`)).rowCount; i++) {
      if (i > 300) throw new Error(`no dispatcher came online:\n${output()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  } catch (err) {
    for (const p of Object.values(procs)) p.child.kill('SIGKILL');
    await setup.close();
    throw err;
  }
  await setup.close();
  const auth = { authorization: `Bearer ${await adminToken(base)}` };
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

  const api = async (method, p, body) => {
    const r = await fetch(`${base}${p}`, {
      method,
      headers: { ...auth, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : undefined };
  };
  return {
    base,
    procs,
    output,
    api,
    /** Creates namespace `ns` and saves `files` (path -> content) in one change. */
    async saveFlows(ns, files) {
      await api('POST', '/api/v1/namespaces', { name: ns });
      const r = await api('POST', `/api/v1/namespaces/${ns}/changes`, {
        message: 'bench',
        changes: Object.entries(files).map(([p, content]) => ({ op: 'put', path: p, content })),
      });
      if (r.status !== 201) throw new Error(`save failed: ${r.status} ${JSON.stringify(r.body)}`);
    },
    /**
     * triggerFlow over HTTP. `at` is when the response headers arrived (the
     * execution is committed by then); the body is read afterwards. `sent`
     * is when the request started.
     */
    async trigger(ns, flow) {
      // node:http with a keep-alive agent rather than fetch: the load generator
      // shares the 2 cores with what it measures, and fetch costs it about
      // three times the CPU per request.
      return triggerOverHttp(base, agent, { ...auth, 'content-type': 'application/json', 'content-length': 2 }, ns, flow);
    },
    /**
     * triggerFlowBatch over HTTP: one request of `count` items (empty), up
     * to 1,000 per request; the ids in item order.
     */
    async triggerBatch(ns, flow, count) {
      const ids = [];
      for (let done = 0; done < count; done += 1000) {
        const body = JSON.stringify({ items: Array.from({ length: Math.min(1000, count - done) }, () => ({})) });
        const r = await fetch(`${base}/api/v1/flows/${ns}/${flow}/executions/batch`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body,
        });
        const text = await r.text();
        if (r.status !== 201) throw new Error(`batch trigger through ${base} failed: ${r.status} ${text.slice(0, 500)}`);
        ids.push(...JSON.parse(text).executions.map((e) => e.id));
      }
      return ids;
    },
    async stop() {
      agent.destroy();
      for (const p of Object.values(procs)) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGTERM');
      await Promise.race([Promise.all(Object.values(procs).map((p) => p.exited)), new Promise((r) => setTimeout(r, 15_000))]);
      for (const p of Object.values(procs)) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    },
  };
}
