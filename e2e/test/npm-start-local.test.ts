// What `npm start` runs (`svc local`), end to end: embedded PostgreSQL in a
// fresh data dir, every service, /readyz 200 with all four checks, then
// SIGINT (Ctrl-C) stops the services and the database cleanly.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** Whether 127.0.0.1:port can be listened on now. */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** A port N with N, N+1 and N+2 free (the three health ports of svc local): a free port's neighbours may be taken by other tests' processes. */
async function freePortRun(): Promise<number> {
  for (;;) {
    const n = await freePort();
    if (n < 65533 && (await canListen(n + 1)) && (await canListen(n + 2))) return n;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('svc local serves a ready service and Ctrl-C stops everything, database last', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-local-'));
  fs.chmodSync(dataDir, 0o755);
  const port = await freePort();
  // The three apps without an API of their own serve their health on this port and the next two.
  const healthPort = await freePortRun();
  let out = '';
  const child = spawn(process.execPath, [path.join(root, 'apps/cli/dist/main.js'), 'local'], {
    env: { PATH: process.env.PATH, SVC_DATA_DIR: dataDir, SVC_PORT: String(port), SVC_HEALTH_PORT: String(healthPort), SVC_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
  try {
    const until = Date.now() + 90_000;
    while (!out.includes('svc is up')) {
      if (Date.now() > until || child.exitCode !== null) assert.fail(`svc local did not come up:\n${out}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const r = await fetch(`http://127.0.0.1:${port}/readyz`);
    assert.equal(r.status, 200);
    const { details, ...report } = (await r.json()) as { details?: Record<string, string> };
    assert.deepEqual(report, { status: 'ok', checks: { database: 'ok', migrations: 'ok', storage: 'ok', master_keys: 'ok' } });
    // Without SVC_SMTP_URL the gateway says that emails would wait (a warning; still ready).
    assert.match(details?.email ?? '', /^not configured: /);

    // The embedded cluster and a generated master key live in the data dir.
    const conn = JSON.parse(fs.readFileSync(path.join(dataDir, 'postgres', 'connection.json'), 'utf8')) as { port: number };
    assert.ok(conn.port > 0);
    const pgPid = Number(fs.readFileSync(path.join(dataDir, 'postgres', 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    assert.ok(alive(pgPid));
    assert.match(fs.readFileSync(path.join(dataDir, 'master-keys'), 'utf8'), /^local1:[A-Za-z0-9+/]{43}=$/m);
    for (const kind of ['api-gateway', 'scheduler', 'dispatcher', 'maintenance']) assert.match(out, new RegExp(`"service":"${kind}","message":"started"`));
    // Maintenance on the health port, the scheduler on the next, the dispatcher on the one after: each ready.
    for (const [i, kind] of ['maintenance', 'scheduler', 'dispatcher'].entries()) {
      assert.match(out, new RegExp(`"service":"${kind}",[^\\n]*"message":"health listening"[^\\n]*"port":${healthPort + i}\\b`), kind);
      assert.equal((await fetch(`http://127.0.0.1:${healthPort + i}/readyz`)).status, 200, kind);
    }
    assert.match(await (await fetch(`http://127.0.0.1:${healthPort}/metrics`)).text(), /^svc_maintenance_lease_held /m);

    // The first admin of embedded mode, printed once, can sign in.
    const admin = /first admin: (\S+)  password: (\S+)/.exec(out);
    assert.ok(admin, 'the generated admin is printed');
    const login = await fetch(`http://127.0.0.1:${port}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: admin[1], password: admin[2] }),
    });
    assert.equal(login.status, 200);

    child.kill('SIGINT');
    assert.equal(await exited, 0, out);
    assert.equal(alive(pgPid), false, `the embedded PostgreSQL stopped:\n${out}`);
    assert.equal(fs.existsSync(path.join(dataDir, 'postgres', 'connection.json')), false);
    // Database last: each service's last act before "stopped" is a database
    // write (its instance row marked stopped), which fails with "error while
    // stopping" if the database went first. (Lines of different processes come
    // through different pipes, so their order in `out` proves nothing.)
    for (const kind of ['api-gateway', 'scheduler', 'dispatcher', 'maintenance']) {
      assert.match(out, new RegExp(`"service":"${kind}","message":"stopped"`), `${kind} stopped`);
    }
    assert.doesNotMatch(out, /error while stopping/);
    assert.match(out, /stopping embedded PostgreSQL/);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
