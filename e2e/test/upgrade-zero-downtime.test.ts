// The documented rolling upgrade (docs/operating/upgrades.md) loses nothing.
// Two api-gateway processes behind a real HAProxy (Debian's package) that
// routes by the probe the manifests use, /readyz/traffic; a client sends
// requests (reads and triggers) without pause and holds two log streams on a
// running execution, all through the balancer. The procedure: the new
// release's migration Job applies an additive migration (the old gateways'
// /readyz now fails, as the spec says, while /readyz/traffic keeps them in
// the pool); then each old gateway in turn is replaced: a new one starts,
// the balancer sees it ready, the old one gets SIGTERM and drains
// (SVC_SHUTDOWN_DRAIN). Zero failed requests, and each stream, resumed with
// Last-Event-ID whenever a stopping gateway ended it, received every line
// exactly once. The new release is the same build plus that migration: the
// test applies it as the release's Job would (`applyMigrations` with its list).
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';
import { applyMigrations, loadMigrations, type Migration } from '@svc/db';
import { SseClient } from '../../apps/api-gateway/test/sse-client.js';
import { flow, sh, sleep, tmpDir, until } from './engine-support.js';
import { freePort, root, startStack, type Proc, type Stack } from './stack.js';

const HAPROXY = '/usr/sbin/haproxy';
let s: Stack;
let lb: ChildProcess | undefined;
let lbOut = '';
let lbUrl = '';
let statsUrl = '';
let dir: string;

/** Debian's haproxy, installed with apt-get (scripts/apt-install.mjs) when missing: the test fails, never skips, without it. */
async function haproxyInstalled(): Promise<void> {
  if (fs.existsSync(HAPROXY)) return;
  const { aptInstall } = (await import(pathToFileURL(path.join(root, 'scripts/apt-install.mjs')).href)) as {
    aptInstall(pkgs: string[]): Promise<{ ok: boolean; output: string }>;
  };
  const r = await aptInstall(['haproxy']);
  assert.ok(r.ok && fs.existsSync(HAPROXY), `apt-get install haproxy failed:\n${r.output.slice(-2000)}`);
}

async function healthy(url: string, p: Proc): Promise<void> {
  await until(
    `${url} to answer /healthz`,
    async () => {
      if (p.child.exitCode !== null) throw new Error(`gateway exited ${p.child.exitCode}:\n${p.output()}`);
      return (await fetch(`${url}/healthz`).catch(() => null))?.ok;
    },
    90_000,
  );
}

/** HAProxy's view of each gateway: status (UP, DOWN, ...) and sessions served, from its stats CSV. */
async function pool(): Promise<Record<string, { status: string; served: number }>> {
  const csv = await (await fetch(`${statsUrl};csv`)).text();
  const [head, ...rows] = csv.replace(/^# /, '').trim().split('\n');
  const cols = head!.split(',');
  const out: Record<string, { status: string; served: number }> = {};
  for (const row of rows) {
    const f = row.split(',');
    if (f[cols.indexOf('pxname')] !== 'gateways' || /^(FRONTEND|BACKEND)$/.test(f[cols.indexOf('svname')]!)) continue;
    out[f[cols.indexOf('svname')]!] = { status: f[cols.indexOf('status')]!, served: Number(f[cols.indexOf('stot')]) };
  }
  return out;
}

const ports: Record<string, number> = {};
const gateways: Record<string, Proc> = {};

before(async () => {
  await haproxyInstalled();
  dir = tmpDir();
  // dispatchers: 0 — the one dispatcher starts once the balancer is up, with its runners reporting through it.
  s = await startStack({ dispatchers: 0, env: { SVC_SHUTDOWN_DRAIN: '5s', SVC_SSE_KEEPALIVE_MS: '1000' } });
  gateways.g1 = s.procs[0]!;
  ports.g1 = Number(new URL(s.url).port);
  for (const g of ['g2', 'g3', 'g4']) ports[g] = await freePort();
  gateways.g2 = s.startApp('api-gateway', { SVC_PORT: String(ports.g2) });
  await healthy(`http://127.0.0.1:${ports.g2}`, gateways.g2);

  const lbPort = await freePort();
  const statsPort = await freePort();
  lbUrl = `http://127.0.0.1:${lbPort}`;
  statsUrl = `http://127.0.0.1:${statsPort}/stats`;
  // The balancer of docs/operating/upgrades.md: routes by /readyz/traffic, retries a request a closing
  // connection lost on another gateway, and lets event streams run.
  const cfg = path.join(dir, 'haproxy.cfg');
  fs.writeFileSync(
    cfg,
    `global
  maxconn 2000
defaults
  mode http
  timeout connect 2s
  timeout client 120s
  timeout server 120s
  timeout tunnel 120s
  timeout check 5s
  timeout http-keep-alive 10s
  retries 3
  option redispatch 1
  retry-on conn-failure empty-response response-timeout
frontend api
  bind 127.0.0.1:${lbPort}
  default_backend gateways
backend gateways
  balance roundrobin
  option httpchk GET /readyz/traffic
  http-check expect status 200
  default-server inter 500ms fall 1 rise 1
${['g1', 'g2', 'g3', 'g4'].map((g) => `  server ${g} 127.0.0.1:${ports[g]} check`).join('\n')}
listen stats
  bind 127.0.0.1:${statsPort}
  stats enable
  stats uri /stats
`,
  );
  const checked = spawnSync(HAPROXY, ['-c', '-f', cfg], { encoding: 'utf8' });
  assert.equal(checked.status, 0, `${checked.stdout}${checked.stderr}`);
  lb = spawn(HAPROXY, ['-db', '-f', cfg], { stdio: ['ignore', 'pipe', 'pipe'] });
  lb.stdout!.on('data', (d) => (lbOut += d));
  lb.stderr!.on('data', (d) => (lbOut += d));
  await until('HAProxy to see g1 and g2 up and the others down', async () => {
    const p = await pool().catch(() => null);
    return p && p.g1?.status === 'UP' && p.g2?.status === 'UP' && p.g3?.status.startsWith('DOWN') && p.g4?.status.startsWith('DOWN');
  });

  s.startApp('dispatcher', { SVC_RUNNER_URL: lbUrl });
  await until('a dispatcher online', async () => (await s.db.query(`SELECT 1 FROM instances WHERE kind = 'dispatcher' AND stopped_at IS NULL`)).rowCount);
  await s.saveFlow('upgrade', {
    'ticker.flow.yaml': flow({
      id: 'ticker',
      tasks: [{ id: 'tick', type: 'command', command: sh(`i=0; while [ ! -f ${dir}/stop ]; do i=$((i+1)); echo "line $i"; sleep 0.05; done; echo done`) }],
    }),
    'quick.flow.yaml': flow({ id: 'quick', tasks: [{ id: 'q', type: 'command', command: sh('echo quick') }] }),
  });
});

after(async () => {
  lb?.kill('SIGKILL');
  await s?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** A log stream through the balancer that resumes with Last-Event-ID whenever it ends before `end`. */
async function followLogs(executionId: string, auth: Record<string, string>) {
  const lines: string[] = [];
  let resumes = 0;
  let lastId: string | undefined;
  for (;;) {
    const c = await SseClient.open(`${lbUrl}/api/v1/executions/${executionId}/logs/stream`, { ...auth, ...(lastId ? { 'last-event-id': lastId } : {}) });
    assert.equal(c.status, 200, c.body);
    await c.done;
    for (const e of c.events) if (e.event === 'line') lines.push((JSON.parse(e.data) as { text: string }).text);
    lastId = c.lastId ?? lastId;
    if (c.events.some((e) => e.event === 'end')) return { lines, resumes };
    resumes++;
    assert.ok(resumes < 50, 'the stream kept ending');
  }
}

test('a rolling upgrade with an additive migration, behind HAProxy, fails no request and loses no log line', async () => {
  const auth = { authorization: `Bearer ${s.token}` };
  const api = (method: string, p: string, body?: unknown) =>
    fetch(`${lbUrl}${p}`, { method, headers: { ...auth, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
  const started = await api('POST', '/api/v1/flows/upgrade/ticker/executions', {});
  assert.equal(started.status, 201);
  const ticker = (await started.json()) as { id: string };
  const streams = [followLogs(ticker.id, auth), followLogs(ticker.id, auth)];

  // The client: reads and triggers through the balancer, without pause, until the upgrade is over.
  const failures: string[] = [];
  let sent = 0;
  let running = true;
  const triggered: string[] = [];
  const client = async (n: number) => {
    while (running) {
      sent++;
      const trigger = n === 0 && sent % 5 === 0;
      try {
        const r = trigger ? await api('POST', '/api/v1/flows/upgrade/quick/executions', {}) : await api('GET', `/api/v1/executions/${ticker.id}`);
        const text = await r.text();
        if (r.status !== (trigger ? 201 : 200)) failures.push(`${trigger ? 'trigger' : 'read'}: ${r.status} ${text.slice(0, 200)}`);
        else if (trigger) triggered.push((JSON.parse(text) as { id: string }).id);
      } catch (err) {
        failures.push(`${trigger ? 'trigger' : 'read'}: ${String((err as Error).cause ?? err)}`);
      }
    }
  };
  const clients = [0, 1, 2, 3].map(client);
  await sleep(1000);

  // 1. The new release's migration Job.
  const additive: Migration = {
    name: '99991201000000_upgrade_test_additive',
    sql: '-- svc: additive\nCREATE TABLE upgrade_test_notes (id int);',
    checksum: 'upgrade-test',
    additive: true,
  };
  assert.deepEqual(await applyMigrations(s.db, [...loadMigrations(), additive]), [additive.name]);
  const strict = await fetch(`${s.url}/readyz`);
  assert.equal(strict.status, 503, 'the spec’s /readyz: the database holds a migration this build does not');
  const traffic = await fetch(`${s.url}/readyz/traffic`);
  const trafficBody = (await traffic.json()) as { status: string; details?: { migrations?: string } };
  assert.equal(traffic.status, 200, JSON.stringify(trafficBody));
  assert.match(trafficBody.details?.migrations ?? '', /99991201000000_upgrade_test_additive is additive/);
  await sleep(1000);
  assert.equal((await pool()).g1!.status, 'UP', 'the old gateways stay in the pool after an additive migration');

  // 2. Each old gateway in turn: start its successor, wait until the balancer routes to it, then SIGTERM the old one.
  const replacements: [string, string][] = [
    ['g1', 'g3'],
    ['g2', 'g4'],
  ];
  for (const [oldG, newG] of replacements) {
    gateways[newG] = s.startApp('api-gateway', { SVC_PORT: String(ports[newG]) });
    await healthy(`http://127.0.0.1:${ports[newG]}`, gateways[newG]!);
    await until(`HAProxy to route to ${newG}`, async () => (await pool())[newG]?.status === 'UP', 30_000);
    const old = gateways[oldG]!;
    old.child.kill('SIGTERM');
    await until(`HAProxy to take ${oldG} out while it drains`, async () => (await pool())[oldG]!.status.startsWith('DOWN') && old.child.exitCode === null, 10_000);
    assert.equal(await old.exited, 0, old.output());
    await sleep(500);
  }
  await sleep(1500);
  running = false;
  await Promise.all(clients);
  fs.writeFileSync(path.join(dir, 'stop'), '');
  const [a, b] = await Promise.all(streams);

  assert.deepEqual(failures, [], `${failures.length} of ${sent} requests failed; HAProxy said:\n${lbOut.slice(-3000)}`);
  const served = await pool();
  for (const g of ['g1', 'g2', 'g3', 'g4']) assert.ok(served[g]!.served > 0, `${g} served no request: ${JSON.stringify(served)}`);
  assert.ok(sent > 40, `only ${sent} requests were sent`);
  assert.ok(triggered.length > 0);

  // Every line once, in order, in both streams, each resumed at least once, and equal to what was stored.
  // (The stack's own client talked to g1, which is gone: read through the balancer.)
  const read = async (p: string) => {
    const r = await api('GET', p);
    assert.equal(r.status, 200);
    return (await r.json()) as any;
  };
  const ended = async (id: string) =>
    until(
      `execution ${id} to end`,
      async () => ((await read(`/api/v1/executions/${id}`)) as { state: string; ended_at?: string }).ended_at && (await read(`/api/v1/executions/${id}`)).state,
      60_000,
    );
  assert.equal(await ended(ticker.id), 'SUCCESS');
  const stored: string[] = [];
  for (let cursor: string | undefined; ;) {
    const page = await read(`/api/v1/executions/${ticker.id}/logs?limit=5000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    stored.push(...(page.items as { text: string }[]).map((l) => l.text));
    cursor = page.next_cursor ?? undefined;
    if (!cursor) break;
  }
  const n = stored.length - 1;
  assert.ok(n > 20, `the task wrote ${n} lines`);
  assert.deepEqual(stored, [...Array.from({ length: n }, (_, i) => `line ${i + 1}`), 'done']);
  for (const got of [a, b]) {
    assert.ok(got.resumes >= 1, 'a stopping gateway ended the stream, and it resumed');
    assert.deepEqual(got.lines, stored);
  }
  for (const id of triggered) assert.equal(await ended(id), 'SUCCESS');
});

test('a newer migration that is not additive takes the gateway out of the pool: /readyz/traffic names it', async () => {
  const breaking: Migration = { name: '99991202000000_upgrade_test_breaking', sql: 'CREATE TABLE upgrade_test_breaking (id int);', checksum: 'b', additive: false };
  assert.deepEqual(await applyMigrations(s.db, [breaking]), [breaking.name]);
  try {
    const r = await fetch(`http://127.0.0.1:${ports.g4}/readyz/traffic`);
    const body = (await r.json()) as { failed: string[]; checks: Record<string, string> };
    assert.equal(r.status, 503);
    assert.deepEqual(body.failed, ['migrations']);
    assert.match(body.checks.migrations!, /not additive.*99991202000000_upgrade_test_breaking/);
    assert.doesNotMatch(body.checks.migrations!, /upgrade_test_additive/);
  } finally {
    await s.db.query(`DELETE FROM "_prisma_migrations" WHERE migration_name = $1`, [breaking.name]);
  }
});
