// The security rules of the API's newer surfaces, black-box against what
// `npm start` runs (`svc local`: embedded PostgreSQL, every service, the
// first admin printed once), over HTTP only, as a user or a script sees them:
// browser security headers and compression, /mcp refusing a reset account and
// a too-deep body, runFile's env allowlist, a git repo_url carrying a token,
// the admin-only AI usage view, organization email's verified senders and
// status (with `svc org` on the embedded database), and git push-back's CI rule. Each rule's own tests (in apps/ and
// packages/) cover its details; this one checks the shipped start path has
// them all.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { TestRepo, tempRoot } from '@svc/git-sources/testing';

const run = promisify(execFile);

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-local-sec-'));
let child: ReturnType<typeof spawn> | undefined;
let exited: Promise<number | null> = Promise.resolve(null);
let out = '';
let base = '';
let adminToken = '';

async function api(method: string, p: string, opts: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {}) {
  const r = await fetch(`${base}${p}`, {
    method,
    headers: {
      ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
      ...(opts.body !== undefined || opts.raw ? { 'content-type': 'application/json' } : {}),
      ...opts.headers,
    },
    body: opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)),
  });
  const text = await r.text();
  let body: any;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  return { status: r.status, body, headers: r.headers };
}

async function tokenFor(email: string, password: string): Promise<string> {
  const login = await fetch(`${base}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
  assert.equal(login.status, 200, await login.clone().text());
  const cookie = /svc_session=[^;]+/.exec(login.headers.get('set-cookie') ?? '')![0];
  const r = await fetch(`${base}/api/v1/tokens`, {
    method: 'POST',
    headers: { cookie, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'black-box' }),
  });
  assert.equal(r.status, 201, await r.clone().text());
  return ((await r.json()) as { secret: string }).secret;
}

before(async () => {
  fs.chmodSync(dataDir, 0o755);
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  child = spawn(process.execPath, [path.join(root, 'apps/cli/dist/main.js'), 'local'], {
    env: { PATH: process.env.PATH, SVC_DATA_DIR: dataDir, SVC_PORT: String(port), SVC_HEALTH_PORT: String(await freePort()), SVC_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  exited = new Promise((r) => child!.once('exit', (c) => r(c)));
  const until = Date.now() + 90_000;
  // The first admin's line and "svc is up" come through different pipes: wait for both.
  while (!out.includes('svc is up') || !/first admin: \S+  password: \S+/.test(out)) {
    if (Date.now() > until || child.exitCode !== null) assert.fail(`svc local did not come up:\n${out}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const admin = /first admin: (\S+)  password: (\S+)/.exec(out);
  assert.ok(admin, 'the generated admin is printed');
  adminToken = await tokenFor(admin[1]!, admin[2]!);
});

after(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGINT');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 30_000))]);
    if (child.exitCode === null) child.kill('SIGKILL');
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test('the UI is served with a strict Content-Security-Policy and the browser security headers, its JavaScript compressed', async () => {
  const home = await fetch(`${base}/`);
  assert.equal(home.status, 200);
  const csp = home.headers.get('content-security-policy') ?? '';
  const directive = (name: string) =>
    csp
      .split(';')
      .map((d) => d.trim())
      .find((d) => d.startsWith(`${name} `)) ?? '';
  assert.match(directive('script-src'), /'self'/);
  assert.doesNotMatch(directive('script-src'), /'unsafe-inline'|'unsafe-eval'/);
  assert.equal(directive('frame-ancestors'), "frame-ancestors 'none'");
  assert.equal(directive('object-src'), "object-src 'none'");
  assert.equal(home.headers.get('x-content-type-options'), 'nosniff');
  assert.ok(home.headers.get('referrer-policy'));
  const html = await home.text();
  const asset = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
  assert.ok(asset, html.slice(0, 400));
  const js = await fetch(`${base}${asset}`, { headers: { 'accept-encoding': 'gzip' } });
  assert.equal(js.headers.get('content-encoding'), 'gzip');
  // fetch decodes it: the body is JavaScript all the same.
  assert.ok((await js.text()).length > 1000);
  // And an API answer carries a policy that allows nothing to load.
  const me = await api('GET', '/api/v1/auth/me', { token: adminToken });
  assert.match(me.headers.get('content-security-policy') ?? '', /default-src 'none'/);
});

test('/mcp refuses the token of a user whose password was reset, as /api/v1 does, and a body nested too deep', async () => {
  const email = `mcp-${process.pid}@example.com`;
  const created = await api('POST', '/api/v1/users', { token: adminToken, body: { email, role: 'operator', password: 'first password 1' } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const token = await tokenFor(email, 'first password 1');
  const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'black-box', version: '1' } } };
  const mcpHeaders = { accept: 'application/json, text/event-stream' };
  assert.equal((await api('POST', '/mcp', { token, body: initialize, headers: mcpHeaders })).status, 200, 'before the reset');
  assert.equal((await api('POST', `/api/v1/users/${created.body.id}/reset-password`, { token: adminToken, body: {} })).status, 200);
  const v1 = await api('GET', '/api/v1/flows', { token });
  assert.equal(v1.status, 403);
  assert.equal(v1.body.error.code, 'password_change_required');
  const mcp = await api('POST', '/mcp', { token, body: initialize, headers: mcpHeaders });
  assert.equal(mcp.status, 403, JSON.stringify(mcp.body));
  assert.equal(mcp.body.error.code, 'password_change_required');

  const deep = `${'{"a":'.repeat(100)}1${'}'.repeat(100)}`;
  const tooDeep = await api('POST', '/mcp', { token: adminToken, raw: `{"jsonrpc":"2.0","id":2,"method":"initialize","params":${deep}}`, headers: mcpHeaders });
  assert.equal(tooDeep.status, 422, JSON.stringify(tooDeep.body));
  assert.equal(tooDeep.body.error.details[0].field, 'body');
});

test('runFile takes only allowed environment names; a git repo_url with a token in it is refused', async () => {
  assert.ok([200, 201].includes((await api('POST', '/api/v1/namespaces', { token: adminToken, body: { name: 'blackbox' } })).status));
  const saved = await api('POST', '/api/v1/namespaces/blackbox/changes', {
    token: adminToken,
    body: { message: 'a script', changes: [{ op: 'put', path: 'hello.sh', content: 'echo hi\n' }] },
  });
  assert.equal(saved.status, 201, JSON.stringify(saved.body));
  for (const name of ['HTTPS_PROXY', 'PIP_INDEX_URL', 'NODE_TLS_REJECT_UNAUTHORIZED', 'npm_config_registry']) {
    const r = await api('POST', '/api/v1/namespaces/blackbox/run', { token: adminToken, body: { path: 'hello.sh', env: { [name]: 'x' } } });
    assert.equal(r.status, 422, `${name}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.error.code, 'validation_failed');
    assert.deepEqual(
      r.body.error.details.map((d: { field: string }) => d.field),
      [`env.${name}`],
    );
  }
  const ok = await api('POST', '/api/v1/namespaces/blackbox/run', { token: adminToken, body: { path: 'hello.sh', env: { GREETING: 'hi' } } });
  assert.equal(ok.status, 201, JSON.stringify(ok.body));

  const git = await api('POST', '/api/v1/git-sources', {
    token: adminToken,
    body: { name: 'leaky', repo_url: 'https://ghp_secret123@example.com/o/r.git', mappings: [{ namespace: 'leaky', repo_path: '' }] },
  });
  assert.equal(git.status, 422, JSON.stringify(git.body));
  const field = git.body.error.details.find((d: { field: string }) => d.field === 'repo_url');
  assert.match(field.message, /credential_secret_key/);
  assert.ok(!JSON.stringify(git.body).includes('ghp_secret123'), 'the token is not echoed');
});

test('the AI usage view is for admins only', async () => {
  const usage = await api('GET', '/api/v1/ai/usage', { token: adminToken });
  assert.equal(usage.status, 200, JSON.stringify(usage.body));
  const email = `viewer-${process.pid}@example.com`;
  assert.equal((await api('POST', '/api/v1/users', { token: adminToken, body: { email, role: 'viewer', password: 'viewer password 1' } })).status, 201);
  const viewer = await tokenFor(email, 'viewer password 1');
  assert.equal((await api('GET', '/api/v1/ai/usage', { token: viewer })).status, 403);
});

/** `svc ARGS` as an operator runs it beside `npm start`: the CLI finds the embedded database through SVC_DATA_DIR. */
async function svc(args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [path.join(root, 'apps/cli/dist/main.js'), ...args], { env: { PATH: process.env.PATH, SVC_DATA_DIR: dataDir }, timeout: 60_000 });
  return stdout.trim();
}

test('organization email: only from verified senders; the status says sending is not configured', async () => {
  await svc(['org', 'create', 'blackbox']);
  const key = await svc(['org', 'key', 'create', 'blackbox']);
  assert.match(key, /^svc_live_/);
  await svc(['org', 'sender', 'add', 'blackbox', 'blackbox.example']);
  const send = (from: string) => api('POST', '/api/v1/emails', { token: key, body: { from, to: 'someone@example.org', subject: 'hi', text: 'hello' } });
  const refused = await send('Mallory <ceo@other.example>');
  assert.equal(refused.status, 422, JSON.stringify(refused.body));
  assert.deepEqual(
    refused.body.error.details.map((d: { field: string }) => d.field),
    ['from'],
  );
  assert.equal((await send('sub@mail.blackbox.example')).status, 422, 'a verified domain does not cover its subdomains');
  const ok = await send('Billing <billing@blackbox.example>');
  assert.equal(ok.status, 202, JSON.stringify(ok.body));
  const status = await api('GET', '/api/v1/emails/status', { token: key });
  assert.equal(status.status, 200, JSON.stringify(status.body));
  assert.ok(!JSON.stringify(status.body).includes(key), 'the key is not echoed');
  // npm start has no SVC_SMTP_URL: the email waits, and both the status and /readyz say why.
  assert.equal(status.body.sending.configured, false);
  assert.equal(status.body.sending.waiting, 1);
  assert.match(status.body.sending.detail, /not configured/);
  const ready = await api('GET', '/readyz');
  assert.equal(ready.status, 200);
  assert.match(ready.body.details?.email ?? '', /^not configured: /);
});

test('git push-back never writes CI configuration, and says which change it refused', async () => {
  const gitRoot = tempRoot();
  try {
    const repo = new TestRepo(gitRoot, 'bb');
    const sha = repo.commit({ 'flows/a.flow.yaml': JSON.stringify({ id: 'a', tasks: [{ id: 't', type: 'command', command: ['true'] }] }) }, 'first');
    const src = await api('POST', '/api/v1/git-sources', {
      token: adminToken,
      body: { name: 'bb', repo_url: repo.fileUrl, poll_interval: 1, mappings: [{ namespace: 'bb.git', repo_path: 'flows' }] },
    });
    assert.equal(src.status, 201, JSON.stringify(src.body));
    const until = Date.now() + 60_000;
    while ((await api('GET', `/api/v1/git-sources/${src.body.id}`, { token: adminToken })).body.last_synced_sha !== sha) {
      assert.ok(Date.now() < until, 'the scheduler of svc local synced the source');
      await new Promise((r) => setTimeout(r, 300));
    }
    const push = await api('POST', '/api/v1/namespaces/bb.git/git/push', {
      token: adminToken,
      body: {
        message: 'ci',
        changes: [
          { op: 'put', path: 'b.txt', content: 'b' },
          { op: 'put', path: '.github/workflows/x.yml', content: 'on: push\n' },
        ],
      },
    });
    assert.equal(push.status, 422, JSON.stringify(push.body));
    assert.deepEqual(
      push.body.error.details.map((d: { field: string }) => d.field),
      ['changes[1].path'],
    );
    assert.deepEqual(repo.branches(), ['main'], 'nothing was pushed');
  } finally {
    fs.rmSync(gitRoot, { recursive: true, force: true });
  }
});
