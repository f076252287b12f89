// 200 runners and a gateway that restarts: every runner's heartbeat fails to
// connect while the gateway is away and is retried by the runner's HTTP
// transport (packages/runner, the code `svc exec` runs in every task). With
// the shared backoff (full jitter) the retries of the 200 are spread over each
// pause instead of arriving in step, and every runner reaches the gateway once
// it is back. A real api-gateway over loopback, killed and started again on
// the same port; the runners' tokens are not valid, so the answer that ends
// each call is the gateway's 401 (proof it was reached, and a 4xx that is not
// retried). A second part checks a 503 with Retry-After: no retry before it.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '@svc/db/testing';
import { createHttpTransport, RunnerHttpError } from '@svc/runner';
import { root } from './stack.js';

const RUNNERS = 200;
let tdb: TestDatabase;
let dir: string;
const children: ChildProcess[] = [];

before(async () => {
  tdb = await createTestDatabase();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-runner-retries-'));
});
after(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await tdb?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

async function startGateway(port: number): Promise<ChildProcess> {
  let out = '';
  const child = spawn(process.execPath, [path.join(root, 'apps/api-gateway/dist/main.js')], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      SVC_DATABASE_URL: tdb.url,
      SVC_HOST: '127.0.0.1',
      SVC_PORT: String(port),
      SVC_LOG_LEVEL: 'warn',
      SVC_DATA_DIR: path.join(dir, `data-${children.length}`),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const until = Date.now() + 90_000;
  for (;;) {
    const up = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return child;
    if (child.exitCode !== null) throw new Error(`gateway exited ${child.exitCode}:\n${out}`);
    if (Date.now() > until) throw new Error(`gateway did not listen:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The most attempts that fall within any `windowMs` of each other. */
function densest(times: number[], windowMs: number): number {
  const t = [...times].sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; j < t.length; j++) {
    while (t[j]! - t[i]! > windowMs) i++;
    best = Math.max(best, j - i + 1);
  }
  return best;
}

test(`${RUNNERS} runners retry a restarting gateway spread out, and all reach it once it is back`, async () => {
  const port = await freePort();
  const first = await startGateway(port);
  first.kill('SIGKILL');
  await new Promise((r) => first.once('exit', r));

  // attempts[k] = when each runner made its attempt number k+1; pauses[k] = how long it waited before it after attempt k failed.
  const attempts: number[][] = [];
  const pauses: number[][] = [];
  const started = Date.now();
  const calls = Array.from({ length: RUNNERS }, (_, i) => {
    let n = 0;
    let failedAt: number | undefined;
    const t = createHttpTransport({
      server: `http://127.0.0.1:${port}`,
      taskRunId: `tr-${i}`,
      token: 'not-a-run-token',
      retryForMs: 120_000,
      // Ceilings of 1, 2, 4 and 8 s: long beside the lateness of timers on a loaded machine (up to half a second seen).
      initialBackoffMs: 1_000,
      maxBackoffMs: 8_000,
      fetch: async (input, init) => {
        const now = Date.now();
        if (failedAt !== undefined) (pauses[n - 1] ??= []).push(now - failedAt);
        (attempts[n++] ??= []).push(now - started);
        try {
          return await fetch(input, init);
        } catch (err) {
          failedAt = Date.now();
          throw err;
        }
      },
    });
    return t.heartbeat().then(
      () => 'answered',
      (err: unknown) => (err instanceof RunnerHttpError && err.status === 401 ? 'reached' : `failed: ${String(err)}`),
    );
  });
  // Away for 8 s: the first attempts (pause ceilings 1, 2 and 4 s) fail against a closed port.
  await new Promise((r) => setTimeout(r, 8_000));
  const restartedAt = Date.now() - started;
  await startGateway(port);
  const outcomes = await Promise.all(calls);
  assert.deepEqual(
    outcomes.filter((o) => o !== 'reached'),
    [],
    'every runner reached the restarted gateway (its 401) and none gave up',
  );

  // The pauses before the 3rd and 4th attempts (ceilings 2 and 4 s). In step, every runner waits the whole
  // ceiling, and a timer is never early: the shortest pause is the ceiling. Spread, the pauses cover the range
  // below it (plus the lateness of timers on a loaded machine, which the bounds leave room for).
  const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * p)]!;
  for (const [k, ceiling] of [
    [1, 2_000],
    [2, 4_000],
  ] as const) {
    const ps = pauses[k] ?? [];
    assert.ok(ps.length >= RUNNERS * 0.8, `attempt ${k + 2}: ${ps.length} runners retried`);
    assert.ok(pct(ps, 0.1) < ceiling * 0.6, `attempt ${k + 2}: the shortest pauses (p10 ${pct(ps, 0.1)} ms) are well below the ceiling ${ceiling} ms`);
    const spread = pct(ps, 0.9) - pct(ps, 0.1);
    assert.ok(spread >= ceiling * 0.4, `attempt ${k + 2}: the middle 80% of pauses span ${spread} ms (ceiling ${ceiling} ms)`);
  }
  // And the arrivals at the restarted gateway are not one burst of 200 connections.
  const arrivals = attempts.flat().filter((t) => t >= restartedAt);
  assert.ok(densest(arrivals, 50) < RUNNERS / 2, `${densest(arrivals, 50)} of ${arrivals.length} arrivals within 50 ms of each other`);
});

test('a 503 with Retry-After is not retried before it, and a 429 is retried', async () => {
  const seen: { at: number; status: number }[] = [];
  const statuses = [503, 429, 200];
  const server = http.createServer((req, res) => {
    const status = statuses[seen.length] ?? 200;
    seen.push({ at: Date.now(), status });
    req.resume();
    if (status === 200) {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"cancel":false}');
      return;
    }
    res.writeHead(status, { 'retry-after': '1', 'content-type': 'application/json' }).end('{"error":{"code":"unavailable","message":"later"}}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const { port } = server.address() as net.AddressInfo;
    const t = createHttpTransport({ server: `http://127.0.0.1:${port}`, taskRunId: 'tr', token: 'x', initialBackoffMs: 10, maxBackoffMs: 20 });
    assert.deepEqual(await t.heartbeat(), { cancel: false });
    assert.deepEqual(
      seen.map((s) => s.status),
      [503, 429, 200],
    );
    // Each retry came after the second the server asked for, though the backoff alone would be ≤ 20 ms.
    assert.ok(seen[1]!.at - seen[0]!.at >= 1_000, `${seen[1]!.at - seen[0]!.at} ms after the 503`);
    assert.ok(seen[2]!.at - seen[1]!.at >= 1_000, `${seen[2]!.at - seen[1]!.at} ms after the 429`);
  } finally {
    server.close();
  }
});
