// The rest of the remote commands against a real stack: a push that loses the
// race to another save (version_conflict, nothing saved, a clear message),
// flow get/disable/enable/revisions/diff, token create/list/revoke,
// instances, and `svc exec` dispatching to the runner app.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startStack, svc, tempHome, writeTree, type Stack } from './support.js';

let s: Stack;
const home = tempHome();
let env: Record<string, string>;
const NS = 'cli.more';
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-more-'));

const flowV = (d: string) => `id: f\ndescription: ${d}\ntasks:\n  - id: a\n    type: command\n    command: ["true"]\n`;

before(async () => {
  s = await startStack({ maintenance: false });
  env = { ...home.env, SVC_URL: s.url, SVC_TOKEN: s.token };
  await s.saveFlow(NS, { 'f.flow.yaml': flowV('one') });
});
after(async () => {
  await s.stop();
  home.cleanup();
  fs.rmSync(work, { recursive: true, force: true });
});

/** An HTTP proxy to the gateway that lets `beforeSave` run just before it forwards the first saveChanges. */
async function racingProxy(beforeSave: () => Promise<void>): Promise<{ url: string; close(): void }> {
  let raced = false;
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.method === 'POST' && req.url?.endsWith('/changes') && !raced) {
      raced = true;
      await beforeSave();
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && !['host', 'connection', 'content-length'].includes(k)) headers[k] = v;
    const r = await fetch(`${s.url}${req.url}`, { method: req.method, headers, ...(chunks.length ? { body: Buffer.concat(chunks) } : {}) });
    const out: Record<string, string> = {};
    r.headers.forEach((v, k) => {
      if (!['content-encoding', 'transfer-encoding', 'content-length', 'connection'].includes(k)) out[k] = v;
    });
    res.writeHead(r.status, out);
    res.end(Buffer.from(await r.arrayBuffer()));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, close: () => server.close() };
}

test('a push that races another save fails with version_conflict, saves nothing and says what to do', async () => {
  writeTree(work, { 'f.flow.yaml': flowV('two'), 'new.txt': 'mine\n' });
  const proxy = await racingProxy(async () => {
    const r = await s.api('POST', `/api/v1/namespaces/${NS}/changes`, { message: 'someone else', changes: [{ op: 'put', path: 'theirs.txt', content: 'x' }] });
    assert.equal(r.status, 201);
  });
  try {
    const r = await svc(['ns', 'push', work, '-n', NS], { env: { ...env, SVC_URL: proxy.url } });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /version_conflict: cli\.more changed on the server while pushing: it was at version 1 and is now at version 2\. Nothing was saved\./);
    assert.match(r.stderr, /svc ns diff cli\.more/);
    assert.match(r.stderr, /request ID \S+/);
  } finally {
    proxy.close();
  }
  const files = (await s.api('GET', `/api/v1/namespaces/${NS}/files`)).body.items.map((f: any) => f.path).sort();
  assert.deepEqual(files, ['f.flow.yaml', 'theirs.txt'], 'nothing of the losing push was saved');
  // Pushing again on the new head works (and deletes theirs.txt, which is not in the directory).
  const again = await svc(['ns', 'push', work, '-n', NS], { env });
  assert.equal(again.code, 0, again.stderr);
  assert.equal(again.stdout, '~ f.flow.yaml\n+ new.txt\n- theirs.txt\n');
});

test('flow get, disable (a run then fails with flow_disabled), enable, revisions and diff', async () => {
  const g = await svc(['flow', 'get', `${NS}/f`], { env });
  assert.equal(g.code, 0, g.stderr);
  assert.match(g.stdout, /^description:\s+two$/m);
  assert.match(g.stdout, /^tasks:\s+a$/m);
  assert.equal((await svc(['flow', 'get', `${NS}/f`, '--source'], { env })).stdout, flowV('two'));

  assert.equal((await svc(['flow', 'disable', `${NS}/f`], { env })).code, 0);
  const refused = await svc(['run', `${NS}/f`], { env });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /code flow_disabled, HTTP 409/);
  assert.equal((await svc(['flow', 'enable', `${NS}/f`], { env })).code, 0);
  assert.equal((await svc(['run', `${NS}/f`, '--watch'], { env })).code, 0);

  const revs = await svc(['flow', 'revisions', `${NS}/f`, '-o', 'json'], { env });
  assert.equal(revs.code, 0, revs.stderr);
  const items = JSON.parse(revs.stdout);
  assert.ok(items.length >= 2, revs.stdout);
  const d = await svc(['flow', 'diff', `${NS}/f`, '--from', items[items.length - 1].id, '--to', items[0].id], { env });
  assert.equal(d.code, 0, d.stderr);
  assert.match(d.stdout, /-description: one/);
  assert.match(d.stdout, /\+description: two/);
});

test('token create prints the secret once; list shows it; revoke ends it', async () => {
  const c = await svc(['token', 'create', 'ci', '--role', 'viewer', '--expires-in-days', '7'], { env });
  assert.equal(c.code, 0, c.stderr);
  const secret = c.stdout.trim();
  assert.match(secret, /^svc_[0-9A-Za-z]{43}$/);
  const id = /token (\S+) "ci"/.exec(c.stderr)![1]!;
  const l = await svc(['token', 'list'], { env });
  assert.match(l.stdout, new RegExp(`^${id}\\s+ci\\s+viewer`, 'm'));
  assert.ok(!l.stdout.includes(secret));
  assert.equal((await svc(['whoami'], { env: { ...env, SVC_TOKEN: secret } })).code, 0);
  assert.equal((await svc(['token', 'revoke', id], { env })).code, 0);
  const after = await svc(['whoami'], { env: { ...env, SVC_TOKEN: secret } });
  assert.equal(after.code, 1);
  assert.match(after.stderr, /code unauthorized/);
});

test('instances lists the running gateway and dispatcher; svc exec dispatches to the runner', async () => {
  const i = await svc(['instances'], { env });
  assert.equal(i.code, 0, i.stderr);
  assert.match(i.stdout, /^ID\s+HOST\s+KIND\s+VERSION\s+POOLS\s+EXECUTORS\s+STATUS/);
  assert.match(i.stdout, /dispatcher.*Online/);
  const e = await svc(['exec', '--help'], { env });
  assert.equal(e.code, 0, e.stderr);
  assert.match(e.stdout + e.stderr, /--server/);
});
