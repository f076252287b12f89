// Helpers of the log, stream and artifact tests: a gateway whose live hub is
// closed with it (and reachable, to check subscriptions), executions whose
// task runs are claimed here the way a dispatcher claims them and then fed
// through the real runner protocol over HTTP, and a small SSE client.
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { components } from '@svc/api-spec';
import { parseConfig } from '@svc/config';
import { createDb, Notifier } from '@svc/db';
import { createTestDatabase } from '@svc/db/testing';
import { claimTaskRuns, loadRunTokenKey, signRunToken } from '@svc/engine/internal';
import { createTestLogger } from '@svc/logging';
import { applyHttpTimeouts, httpTimeouts } from '@svc/service';
import { createObjectStore } from '@svc/storage';
import { buildGateway, type Gateway } from '../src/app.js';
import type { LiveSettings } from '../src/live/settings.js';
import { GATEWAY_NOTIFIER } from '../src/live/hub.js';
import type { TestGateway } from './helpers.js';
import { login, makeToken, makeUser } from './identity-helpers.js';

export { SseClient, type SseEvent } from './sse-client.js';

export interface LiveGateway extends TestGateway {
  gateway: Gateway;
  /** An admin API token. */
  token: string;
  api<T = any>(method: string, p: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: T; headers: Headers }>;
}

/**
 * A real gateway on its own test database (or on `shareWith`'s: a second
 * instance). `env` is parsed into its configuration, which is how
 * SVC_SSE_KEEPALIVE_MS reaches it.
 */
export async function startLiveGateway(opts: { shareWith?: LiveGateway; env?: Record<string, string>; live?: Partial<LiveSettings> } = {}): Promise<LiveGateway> {
  const tdb = opts.shareWith ? undefined : await createTestDatabase();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-live-'));
  const config = parseConfig({ SVC_DATA_DIR: dataDir, SVC_PORT: '0', ...opts.env });
  const db = createDb({ url: opts.shareWith?.db.url ?? tdb!.url, poolSize: 6 });
  const storage = opts.shareWith?.storage ?? (await createObjectStore(config.storage));
  const { logger, lines } = createTestLogger({ level: 'debug' });
  // The process's notifier, as runService gives it to main.ts.
  const notifier = new Notifier({ url: db.url, log: logger, applicationName: 'svc-api-gateway-listen', ...GATEWAY_NOTIFIER });
  const gateway = buildGateway({ notifier, config, log: logger, db, storage, instanceId: 'test-instance', version: '9.9.9', ...(opts.live ? { liveOverrides: opts.live } : {}) });
  const server = gateway.app.listen(0, '127.0.0.1');
  // As main.ts does: a test client's idle connection must not meet Node's 5 s default.
  applyHttpTimeouts(server, httpTimeouts(config));
  await new Promise<void>((r) => server.once('listening', () => r()));
  const { port } = server.address() as AddressInfo;
  const gw = {
    url: `http://127.0.0.1:${port}`,
    db,
    tdb,
    storage,
    logs: lines,
    gateway,
    token: '',
    async close() {
      await gateway.close();
      await notifier.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await db.close();
      await tdb?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  } as LiveGateway;
  gw.api = async (method, p, body, headers = {}) => {
    const r = await fetch(`${gw.url}${p}`, {
      method,
      headers: { authorization: `Bearer ${gw.token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {}
    return { status: r.status, body: parsed as any, headers: r.headers };
  };
  if (opts.shareWith) {
    gw.token = opts.shareWith.token;
  } else {
    await makeUser(gw, 'admin@example.com', 'admin');
    gw.token = await makeToken(gw, await login(gw, 'admin@example.com'), 'admin');
  }
  return gw;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Saves a flow file `<id>.flow.yaml` (JSON is valid YAML) in namespace `ns`, creating it first. */
export async function saveFlow(gw: LiveGateway, ns: string, def: Record<string, unknown>): Promise<void> {
  const made = await gw.api('POST', '/api/v1/namespaces', { name: ns });
  if (made.status !== 201 && made.status !== 409) throw new Error(`createNamespace: ${made.status} ${JSON.stringify(made.body)}`);
  const r = await gw.api('POST', `/api/v1/namespaces/${ns}/changes`, {
    message: 'test',
    changes: [{ op: 'put', path: `${String(def.id)}.flow.yaml`, content: JSON.stringify(def, null, 1) }],
  });
  if (r.status !== 201) throw new Error(`saveChanges: ${r.status} ${JSON.stringify(r.body)}`);
}

export interface ClaimedRun {
  id: string;
  taskKey: string;
  attempt: number;
  token: string;
}

/** Claims every claimable task run of the default pool (as a dispatcher would) and signs a run token for each. */
export async function claimRuns(gw: LiveGateway): Promise<ClaimedRun[]> {
  const claimed = await claimTaskRuns(gw.db.pool, { instanceId: 'test-claimer', pools: ['default'], executorType: 'process', limit: 100, now: new Date() });
  const key = await loadRunTokenKey(gw.db.pool);
  return claimed.map((c) => ({ id: c.id, taskKey: c.task_key, attempt: c.attempt, token: signRunToken(key, c.id, new Date(Date.now() + 3600_000)) }));
}

export async function trigger(gw: LiveGateway, ns: string, flow: string): Promise<string> {
  const r = await gw.api('POST', `/api/v1/flows/${ns}/${flow}/executions`, {});
  if (r.status !== 201) throw new Error(`trigger: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.id as string;
}

type RunnerLogLine = components['schemas']['RunnerLogLine'];
/** A line of runnerPostLogs, numbered here (`stream` may be left out: postLines sends `stdout`). */
export type PostedLine = Required<Pick<RunnerLogLine, 'n'>> & Pick<RunnerLogLine, 'text' | 'ts'> & Partial<Pick<RunnerLogLine, 'stream'>>;

/** runnerPostLogs over HTTP. */
export async function postLines(gw: { url: string }, run: ClaimedRun, lines: PostedLine[]): Promise<void> {
  const r = await fetch(`${gw.url}/api/runner/v1/task-runs/${run.id}/logs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${run.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ lines: lines.map((l) => ({ stream: 'stdout', ...l })) }),
  });
  if (r.status >= 300) throw new Error(`runnerPostLogs: ${r.status} ${await r.text()}`);
}

/** runnerComplete over HTTP. */
export async function completeRun(gw: { url: string }, run: ClaimedRun, body: Record<string, unknown> = { state: 'SUCCESS', exit_code: 0 }): Promise<void> {
  const r = await fetch(`${gw.url}/api/runner/v1/task-runs/${run.id}/complete`, {
    method: 'POST',
    headers: { authorization: `Bearer ${run.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (r.status >= 300) throw new Error(`runnerComplete: ${r.status} ${await r.text()}`);
}

export async function waitEnded(gw: LiveGateway, id: string, ms = 20_000): Promise<any> {
  const until = Date.now() + ms;
  for (;;) {
    const e = (await gw.api('GET', `/api/v1/executions/${id}`)).body;
    if (['SUCCESS', 'FAILED', 'TIMED_OUT', 'CANCELLED', 'SKIPPED'].includes(e.state)) return e;
    if (Date.now() > until) throw new Error(`execution ${id} did not end: ${JSON.stringify(e)}`);
    await sleep(30);
  }
}
