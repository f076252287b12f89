// A whole deployment for end-to-end tests: real api-gateway, dispatcher and
// maintenance processes on a test database of their own, a real admin with an
// API token, talking over HTTP.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '@svc/db/testing';
import { createUser } from '@svc/identity';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

export interface Proc {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

export interface Stack {
  url: string;
  token: string;
  db: pg.Pool;
  dataDir: string;
  procs: Proc[];
  api<T = any>(method: string, p: string, body?: unknown): Promise<{ status: number; body: T }>;
  saveFlow(ns: string, files: Record<string, string>, executable?: string[]): Promise<void>;
  trigger(ns: string, flow: string, body?: unknown): Promise<any>;
  waitFor(id: string, pred: (e: any) => boolean, ms?: number): Promise<any>;
  waitEnded(id: string, ms?: number): Promise<any>;
  startApp(app: string, env?: Record<string, string>): Proc;
  stop(): Promise<void>;
}

/**
 * A user of global role `none` bound `role` on `namespace` only (and its
 * children), made by the stack's admin, signed in, with an API token of its
 * own (of `tokenRole`, or the default role a token gets): the user the
 * namespace-boundary tests act as.
 */
export async function boundUser(
  s: Stack,
  opts: { email: string; password: string; namespace: string; role: string; tokenName: string; tokenRole?: string },
): Promise<{ id: string; cookie: string; token: string }> {
  const u = await s.api('POST', '/api/v1/users', { email: opts.email, role: 'none', password: opts.password });
  assert.equal(u.status, 201, JSON.stringify(u.body));
  const b = await s.api('POST', '/api/v1/role-bindings', { namespace: opts.namespace, user: opts.email, role: opts.role });
  assert.equal(b.status, 201, JSON.stringify(b.body));
  const login = await fetch(`${s.url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: opts.email, password: opts.password }),
  });
  assert.equal(login.status, 200);
  const cookie = /svc_session=[^;]+/.exec(login.headers.get('set-cookie') ?? '')![0];
  const minted = await fetch(`${s.url}/api/v1/tokens`, {
    method: 'POST',
    headers: { cookie, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' },
    body: JSON.stringify({ name: opts.tokenName, ...(opts.tokenRole ? { role: opts.tokenRole } : {}) }),
  });
  assert.equal(minted.status, 201);
  return { id: u.body.id, cookie, token: ((await minted.json()) as { secret: string }).secret };
}

/** How long a stack's gateway may take to answer /healthz. */
const GATEWAY_START_MS = 90_000;

const ENDED = ['SUCCESS', 'FAILED', 'TIMED_OUT', 'CANCELLED', 'SKIPPED'];

type StackOptions = { env?: Record<string, string>; dispatchers?: number; maintenance?: boolean };

/** The gateway of a stack exited while the stack started (its port was taken meanwhile by another test's process, say). */
class GatewayExited extends Error {}

/**
 * Starts a stack; a start whose gateway exits on the way (the free port it
 * was given was taken before it bound it) is cleaned up and tried again on
 * another port, up to three times.
 */
export async function startStack(opts: StackOptions = {}): Promise<Stack> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startStackOnce(opts);
    } catch (err) {
      if (attempt >= 3 || !(err instanceof GatewayExited)) throw err;
    }
  }
}

async function startStackOnce(opts: StackOptions): Promise<Stack> {
  const tdb: TestDatabase = await createTestDatabase();
  const db = new pg.Pool({ connectionString: tdb.url, max: 4 });
  db.on('error', () => undefined);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-stack-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const baseEnv: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    SVC_DATABASE_URL: tdb.url,
    SVC_DATA_DIR: dataDir,
    SVC_PORT: String(port),
    SVC_LOG_LEVEL: process.env.SVC_E2E_LOG_LEVEL ?? 'warn',
    SVC_MASTER_KEYS: `k1:${Buffer.alloc(32, 9).toString('base64')}`,
    SVC_WATCHDOG_MS: '500',
    SVC_KILL_DELAY_MS: '1000',
    // The tests' http tasks call servers of their own on loopback; a test of the address guard sets it to '' (unset).
    SVC_HTTP_TASK_ALLOWED_HOSTS: '127.0.0.1,::1,localhost',
    ...opts.env,
  };
  const procs: Proc[] = [];
  const secretGuard = new SecretGuard();
  const startApp = (app: string, env: Record<string, string> = {}): Proc => {
    let out = '';
    const child = spawn(process.execPath, [path.join(root, 'apps', app, 'dist', 'main.js')], { env: { ...baseEnv, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    // Debugging knob: SVC_E2E_PRINT_LOGS=1 copies every service's output to the test's stderr.
    if (process.env.SVC_E2E_PRINT_LOGS) for (const s of [child.stdout!, child.stderr!]) s.on('data', (d) => process.stderr.write(`[${app}] ${String(d)}`));
    const p: Proc = { child, output: () => out, exited: new Promise((r) => child.once('exit', (c) => r(c))) };
    procs.push(p);
    return p;
  };

  const gw = startApp('api-gateway');
  for (let i = 0; i < (opts.dispatchers ?? 1); i++) startApp('dispatcher');
  if (opts.maintenance ?? true) startApp('maintenance');
  let tok: { secret: string };
  let api: Stack['api'];
  try {
    // A generous deadline: on a loaded 2-core machine (test files run three at a time) a cold start can take tens of seconds.
    const deadline = Date.now() + GATEWAY_START_MS;
    for (;;) {
      if (gw.child.exitCode !== null || gw.child.signalCode !== null) throw new GatewayExited(`gateway exited while starting:\n${gw.output()}`);
      try {
        if ((await fetch(`${url}/healthz`)).ok) break;
      } catch {}
      if (Date.now() > deadline) throw new Error(`gateway did not start within ${GATEWAY_START_MS / 1000} s:\n${gw.output()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    await createUser(db, { email: 'e2e@example.com', role: 'admin', password: 'e2e password 1' }, new Date());
    const login = await fetch(`${url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'e2e@example.com', password: 'e2e password 1' }),
    });
    const cookie = /svc_session=[^;]+/.exec(login.headers.get('set-cookie') ?? '')![0];
    const secret = (await (
      await fetch(`${url}/api/v1/tokens`, {
        method: 'POST',
        headers: { cookie, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'e2e', role: 'admin' }),
      })
    ).json()) as { secret: string };
    tok = secret;
    api = async (method: string, p: string, body?: unknown) => {
      secretGuard.sent(method, p, body);
      const r = await fetch(`${url}${p}`, {
        method,
        headers: { authorization: `Bearer ${tok.secret}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await r.text();
      secretGuard.answered(method, p, text);
      return { status: r.status, body: text ? JSON.parse(text) : undefined };
    };
    // Wait until a dispatcher is online, so task runs are not parked as no_instance_for_pool.
    for (let i = 0; (opts.dispatchers ?? 1) > 0; i++) {
      const r = await db.query(`SELECT 1 FROM instances WHERE kind = 'dispatcher' AND stopped_at IS NULL`);
      if (r.rowCount) break;
      if (i > 200) throw new Error('no dispatcher came online');
      await new Promise((res) => setTimeout(res, 50));
    }
  } catch (err) {
    // Nothing may outlive a failed start: leftover services would keep the test process alive.
    for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await Promise.race([Promise.all(procs.map((p) => p.exited)), new Promise((r) => setTimeout(r, 5000))]);
    await db.end().catch(() => undefined);
    await tdb.drop().catch(() => undefined);
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (!(err instanceof GatewayExited) && gw.child.exitCode !== null && gw.output().includes('EADDRINUSE')) throw new GatewayExited(String(err));
    throw err;
  }
  const created = new Set<string>();
  const stack: Stack = {
    url,
    token: tok.secret,
    db,
    dataDir,
    procs,
    api,
    async saveFlow(ns, files, executable = []) {
      if (!created.has(ns)) {
        await api('POST', '/api/v1/namespaces', { name: ns });
        created.add(ns);
      }
      const r = await api('POST', `/api/v1/namespaces/${ns}/changes`, {
        message: 'e2e',
        changes: Object.entries(files).map(([p, content]) => ({ op: 'put', path: p, content, executable: executable.includes(p) })),
      });
      if (r.status !== 201) throw new Error(`save failed: ${r.status} ${JSON.stringify(r.body)}`);
    },
    async trigger(ns, flow, body = {}) {
      const r = await api('POST', `/api/v1/flows/${ns}/${flow}/executions`, body);
      if (r.status !== 201) throw new Error(`trigger failed: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body;
    },
    async waitFor(id, pred, ms = 30_000) {
      const until = Date.now() + ms;
      let last: any;
      for (;;) {
        last = (await api('GET', `/api/v1/executions/${id}`)).body;
        if (pred(last)) return last;
        if (Date.now() > until) throw new Error(`timed out waiting on execution ${id}: ${JSON.stringify(last, null, 1)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    waitEnded(id, ms) {
      return stack.waitFor(id, (e) => ENDED.includes(e.state), ms);
    },
    startApp,
    async stop() {
      const leaks = secretGuard.leaks(procs.map((p, i) => [`output of app #${i} (pid ${p.child.pid})`, p.output()]));
      for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all(procs.map((p) => p.exited)), new Promise((r) => (timer = setTimeout(r, 15_000)))]);
      clearTimeout(timer);
      for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
      await db.end();
      await tdb.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
      if (leaks.length) throw new Error(`secret values leaked (suite-wide guard, e2e/test/stack.ts):\n${leaks.join('\n')}`);
    },
  };
  return stack;
}

/**
 * The suite-wide secret guard: every secret value a test PUTs through
 * `s.api` (global, namespace and platform secrets) is remembered, and at `stop()` every
 * response body `s.api` returned and every app's captured output is searched
 * for it. A value found fails the test file (stop throws), naming the secret
 * key and where, never the value. A response is searched only for the values
 * stored as secrets before it came (a value a test used plainly first and
 * made a secret later was no secret then). Values shorter than 6 characters
 * are not searched: they would match by chance.
 */
class SecretGuard {
  /** Each secret value: its key, and how many responses had come before it was stored. */
  private values = new Map<string, { key: string; since: number }>();
  private answers: [string, string][] = [];

  sent(method: string, p: string, body: unknown): void {
    const m = /^\/api\/v1\/(?:(?:namespaces\/[^/]+\/)?secrets|platform-secrets)\/([^/?]+)$/.exec(p);
    const value = (body as { value?: unknown } | undefined)?.value;
    if (method === 'PUT' && m && typeof value === 'string' && value.length >= 6 && !this.values.has(value)) {
      this.values.set(value, { key: decodeURIComponent(m[1]!), since: this.answers.length });
    }
  }

  answered(method: string, p: string, text: string): void {
    if (text) this.answers.push([`the response to ${method} ${p}`, text]);
  }

  leaks(outputs: [string, string][]): string[] {
    const out: string[] = [];
    for (const [value, { key, since }] of this.values) {
      for (const [where, text] of [...this.answers.slice(since), ...outputs]) {
        // JSON escapes quotes and backslashes: look for the value both as is and as JSON puts it.
        if (text.includes(value) || text.includes(JSON.stringify(value).slice(1, -1))) out.push(`the value of secret ${key} is in ${where}`);
      }
    }
    return out;
  }
}
