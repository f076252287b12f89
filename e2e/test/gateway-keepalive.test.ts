// Behind a load balancer: the proxy keeps idle upstream connections open (60 s
// for AWS ALB and nginx) and reuses them. A gateway that closes an idle
// connection sooner (Node's default is 5 s) makes the proxy send a request
// into a closing socket: a reset, a 502. A real api-gateway over loopback:
// one keep-alive connection stays usable after 6.5 s idle (the default
// SVC_HTTP_KEEPALIVE_TIMEOUT is 75s), and a short configured timeout is
// honoured (the server closes the idle socket after it, not after 5 s).
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '@svc/db/testing';
import { root } from './stack.js';

let tdb: TestDatabase;
let dir: string;
const gateways: ChildProcess[] = [];

before(async () => {
  tdb = await createTestDatabase();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-keepalive-'));
});
after(async () => {
  for (const child of gateways) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await tdb?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Starts the api-gateway with `env` and resolves with its URL once it listens. */
async function startGateway(env: Record<string, string> = {}): Promise<string> {
  let out = '';
  const child = spawn(process.execPath, [path.join(root, 'apps/api-gateway/dist/main.js')], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      SVC_DATABASE_URL: tdb.url,
      SVC_PORT: '0',
      SVC_LOG_LEVEL: 'info',
      SVC_DATA_DIR: path.join(dir, `data-${gateways.length}`),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  gateways.push(child);
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const until = Date.now() + 60_000;
  for (;;) {
    const line = out.split('\n').find((l) => l.includes('"message":"listening"'));
    if (line) return (JSON.parse(line) as { url: string }).url;
    if (child.exitCode !== null) throw new Error(`gateway exited ${child.exitCode}:\n${out}`);
    if (Date.now() > until) throw new Error(`gateway did not listen:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** GET through `agent`, with what tells whether the connection was reused. */
function get(agent: http.Agent, url: string): Promise<{ status: number; reused: boolean; localPort: number; keepAlive: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent }, (res) => {
      res.resume();
      res.on('end', () =>
        resolve({ status: res.statusCode!, reused: req.reusedSocket, localPort: req.socket!.localPort!, keepAlive: res.headers['keep-alive'] as string | undefined }),
      );
    });
    req.on('error', reject);
  });
}

test('one keep-alive connection is still served after 6.5 s idle (longer than Node’s 5 s default)', async () => {
  const url = await startGateway();
  // One socket, kept by the client far longer than the server: only the server can close it.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1, keepAliveMsecs: 1000, timeout: 120_000 });
  try {
    const first = await get(agent, `${url}/healthz`);
    assert.equal(first.status, 200);
    assert.equal(first.reused, false);
    assert.equal(first.keepAlive, 'timeout=75', 'the server announces its keep-alive timeout');
    await sleep(6500);
    const second = await get(agent, `${url}/healthz`);
    assert.equal(second.status, 200);
    assert.equal(second.reused, true, 'the second request went over the same connection');
    assert.equal(second.localPort, first.localPort);
  } finally {
    agent.destroy();
  }
});

test('a short SVC_HTTP_KEEPALIVE_TIMEOUT is honoured: the server closes the idle connection after it', async () => {
  const url = new URL(await startGateway({ SVC_HTTP_KEEPALIVE_TIMEOUT: '1s' }));
  const socket = net.connect(Number(url.port), url.hostname);
  let received = '';
  socket.on('data', (d) => (received += d));
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now())));
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.write(`GET /healthz HTTP/1.1\r\nHost: ${url.host}\r\nConnection: keep-alive\r\n\r\n`);
  const until = Date.now() + 10_000;
  while (!/\r\n\r\n[\s\S]*"ok"/.test(received) && Date.now() < until) await sleep(10);
  const answered = Date.now();
  assert.match(received, /^HTTP\/1\.1 200 /);
  assert.match(received, /\r\nKeep-Alive: timeout=1\r\n/i);
  const idle = (await closed) - answered;
  // Node checks idle sockets on a timer: allow some slack above the 1 s, none near the 5 s default.
  assert.ok(idle >= 800 && idle < 3500, `closed after ${idle} ms idle`);
});
