// More instances of svc's apps beside a deployment of svc-deployment.mjs: a
// second api-gateway, a second dispatcher, on the same database and the same
// object store, each with a port and a data directory of its own (the
// dispatcher keeps its task working directories under its data directory, so
// two on one machine must not share one). The apps coordinate only through
// PostgreSQL, so this is what a scaled-out deployment is.
import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { appEnv, freePort, root, triggerOverHttp } from './svc-deployment.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts one more instance of `app` against `o.url`.
 * @param {{ app: 'api-gateway' | 'dispatcher' | 'maintenance', name: string, url: string, dir: string, storageUrl: string, env?: Record<string, string> }} o
 *   `name` is SVC_INSTANCE_NAME (listed in `instances.hostname`, so task runs'
 *   `claimed_by` can be told apart); `dir` its own SVC_DATA_DIR; `storageUrl`
 *   the object store the first deployment uses (`file://<its dir>/objects`).
 * @returns {Promise<{ app: string, name: string, child: import('node:child_process').ChildProcess, base?: string, output(): string, stop(): Promise<void> }>}
 *   `base` is the gateway's URL (for a gateway), once /healthz answers.
 */
export async function startInstance(o) {
  const port = await freePort();
  const env = appEnv({ url: o.url, port, dir: o.dir, storageUrl: o.storageUrl, env: { SVC_INSTANCE_NAME: o.name, ...o.env } });
  const child = spawn(process.execPath, [path.join(root, 'apps', o.app, 'dist', 'main.js')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise((r) => child.once('exit', r));
  const inst = {
    app: o.app,
    name: o.name,
    child,
    output: () => (out ? `--- ${o.app} ${o.name}\n${out}` : ''),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await Promise.race([exited, sleep(15_000)]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
  if (o.app === 'api-gateway') {
    inst.base = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(`${inst.base}/healthz`)).ok) break;
      } catch {}
      if (child.exitCode !== null || i > 300) {
        await inst.stop();
        throw new Error(`${o.name} did not start:\n${inst.output()}`);
      }
      await sleep(50);
    }
  }
  return inst;
}

/** Waits until a dispatcher named `name` is online in `instances` (query through `pool`). */
export async function waitForDispatcher(pool, name, timeoutMs = 15_000) {
  const until = Date.now() + timeoutMs;
  while (!(await pool.query(`SELECT 1 FROM instances WHERE kind = 'dispatcher' AND hostname = $1 AND stopped_at IS NULL`, [name])).rowCount) {
    if (Date.now() > until) throw new Error(`dispatcher ${name} did not come online in ${timeoutMs} ms`);
    await sleep(50);
  }
}

/**
 * A trigger client for a gateway at `base` with a bearer `token`: the same
 * request as svc-deployment.mjs's `trigger` (node:http, keep-alive agent,
 * `at` when the response headers arrive, `sent` when the request starts).
 */
export function gatewayClient(base, token) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': 2 };
  return {
    base,
    trigger: (ns, flow) => triggerOverHttp(base, agent, headers, ns, flow),
    close() {
      agent.destroy();
    },
  };
}

/** An API token (secret) made through a deployment's authenticated `api` (svc-deployment.mjs). */
export async function createToken(deployment, name) {
  const r = await deployment.api('POST', '/api/v1/tokens', { name, role: 'admin' });
  if (r.status !== 201 && r.status !== 200) throw new Error(`token creation failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.secret;
}
