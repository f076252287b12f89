// Path traversal in every path-like field, against real processes: namespace
// file paths (save, rename, upload, read, run, validate), flow `file:`,
// `files:` and `workdir`, git-source mappings, artifacts a task leaves as
// links, artifact names uploaded over the runner protocol, and the download
// routes. A canary file outside every place the service owns must never be
// read (its text never appears in an answer, a log line or an artifact) nor
// written beside (no file appears next to it).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { claimTaskRuns, loadRunTokenKey, signRunToken } from '@svc/engine/internal';
import { startStack, type Stack } from './stack.js';
import { assertWellFormed, answerOf } from './hostile/envelope.js';

let s: Stack;
const NS = 'trav';
const canaryDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hostile-canary-'));
const canary = path.join(canaryDir, 'secret.txt');
const CANARY_TEXT = `CANARY-${process.pid}-${Date.now()}`;
/** Every way up to the canary from wherever the service resolves a relative path. */
const up = '../'.repeat(12);
const TO_CANARY = [`${up}${canary.slice(1)}`, canary, `a/${up}${canary.slice(1)}`, `./${up}${canary.slice(1)}`, `..\\..\\..\\${canary.slice(1)}`, `${canary}\u0000.txt`];
const TO_NEW = (name: string) => [`${up}${canaryDir.slice(1)}/${name}`, path.join(canaryDir, name), `x/${up}${canaryDir.slice(1)}/${name}`];

/** Every answer a test got: none may carry the canary's text. */
const answers: string[] = [];
async function call(method: string, p: string, init: { body?: unknown; raw?: string | Buffer; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { authorization: `Bearer ${s.token}`, ...init.headers };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const r = await fetch(`${s.url}${p}`, { method, headers, body: init.body !== undefined ? JSON.stringify(init.body) : init.raw });
  const a = await answerOf(r);
  answers.push(a.text);
  assertWellFormed(a, `${method} ${p}`);
  return { status: a.status, headers: a.headers, text: a.text, json: a.text && a.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(a.text) : undefined };
}

/** A GET with the path sent byte for byte as given (no client-side `..` resolution). */
function rawGet(p: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const u = new URL(s.url);
    const req = http.request({ host: u.hostname, port: u.port, path: p, headers: { authorization: `Bearer ${s.token}` } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

function assertCanaryAlone(): void {
  assert.deepEqual(fs.readdirSync(canaryDir), ['secret.txt'], 'nothing was written beside the canary');
  assert.equal(fs.readFileSync(canary, 'utf8'), CANARY_TEXT, 'the canary is unchanged');
}

before(async () => {
  // Only root (the service) could read it: a task (SVC_TASK_USER, nobody) cannot, so only the service following a link or path could leak it.
  fs.writeFileSync(canary, CANARY_TEXT, { mode: 0o600 });
  s = await startStack();
  await s.saveFlow(NS, { 'ok.sh': 'echo ok\n' });
});
after(async () => {
  await s?.stop();
  fs.rmSync(canaryDir, { recursive: true, force: true });
});

test('namespace file paths that climb out are refused on save, rename, upload, read, run and validate', async () => {
  let refused = 0;
  for (const p of [...TO_CANARY, ...TO_NEW('pwned'), '..', '.', '', 'a/..', 'C:/x', '//etc/passwd', 'a/\u0001b', 'trailing/']) {
    const put = await call('POST', `/api/v1/namespaces/${NS}/changes`, { body: { message: 'm', changes: [{ op: 'put', path: p, content: 'x' }] } });
    assert.equal(put.status, 422, `put ${JSON.stringify(p)}: ${put.text}`);
    assert.match(put.json.error.details[0].field, /^(changes\[0\]\.path|body)/, put.text);
    const rename = await call('POST', `/api/v1/namespaces/${NS}/changes`, { body: { message: 'm', changes: [{ op: 'rename', path: 'ok.sh', new_path: p }] } });
    assert.equal(rename.status, 422, `rename to ${JSON.stringify(p)}: ${rename.text}`);
    const q = new URLSearchParams({ path: p.replace(/\u0000/g, '') }).toString();
    const upload = await call('PUT', `/api/v1/namespaces/${NS}/file?${q}`, { raw: 'pwned', headers: { 'content-type': 'application/octet-stream' } });
    assert.ok([404, 422].includes(upload.status), `upload to ${JSON.stringify(p)}: ${upload.status} ${upload.text}`);
    const read = await call('GET', `/api/v1/namespaces/${NS}/file?${q}`);
    assert.ok([404, 422].includes(read.status), `read ${JSON.stringify(p)}: ${read.status}`);
    const run = await call('POST', `/api/v1/namespaces/${NS}/run`, { body: { path: p } });
    assert.ok([404, 422].includes(run.status), `run ${JSON.stringify(p)}: ${run.status} ${run.text}`);
    const validate = await call('POST', `/api/v1/namespaces/${NS}/validate`, { body: { path: p, content: 'x' } });
    assert.ok(validate.status === 422 || (validate.status === 200 && validate.json.valid !== undefined), `validate ${JSON.stringify(p)}: ${validate.status} ${validate.text}`);
    refused += 5;
  }
  const files = (await call('GET', `/api/v1/namespaces/${NS}/files`)).json.items.map((f: any) => f.path);
  assert.deepEqual(files, ['ok.sh'], 'no traversal path was stored');
  assertCanaryAlone();
  console.log(`namespace paths: ${refused} traversal attempts refused`);
});

test('flow file:, files: and workdir that climb out are refused as flow_invalid, and nothing runs', async () => {
  const flows: Record<string, string>[] = [];
  for (const p of TO_CANARY.filter((x) => !x.includes('\u0000'))) {
    flows.push({ task: `{id: t, type: script, file: ${JSON.stringify(p)}}` });
    flows.push({ task: `{id: t, type: command, command: [cat, secret.txt], workdir: ${JSON.stringify(path.posix.dirname(p))}}` });
  }
  for (const p of TO_NEW('pwned')) flows.push({ task: `{id: t, type: command, command: ["true"], files: {${JSON.stringify(p)}: "pwned"}}` });
  for (const [i, f] of flows.entries()) {
    const r = await call('POST', `/api/v1/namespaces/${NS}/changes`, {
      body: { message: 'm', changes: [{ op: 'put', path: `f${i}.flow.yaml`, content: `id: f${i}\ntasks:\n  - ${f.task}\n` }] },
    });
    if (r.status === 201) {
      // Accepted by the schema: then the run must fail before touching anything outside.
      const ex = await s.trigger(NS, `f${i}`);
      const done = await s.waitEnded(ex.id, 60_000);
      assert.equal(done.state, 'FAILED', `${f.task}: ${JSON.stringify(done.task_runs)}`);
      const logs = await call('GET', `/api/v1/executions/${ex.id}/logs`);
      assert.ok(!logs.text.includes(CANARY_TEXT));
    } else {
      assert.equal(r.status, 422, `${f.task}: ${r.text}`);
      assert.equal(r.json.error.code, 'flow_invalid', r.text);
    }
  }
  assertCanaryAlone();
  console.log(`flow file references: ${flows.length} traversal flows refused or failed`);
});

test('a task that leaves links to files outside in its artifacts dir uploads none of them', async () => {
  await s.saveFlow(NS, {
    'links.flow.yaml': [
      'id: links',
      'tasks:',
      '  - id: t',
      '    type: command',
      `    command: [sh, -c, 'ln -s ${canary} "$SVC_ARTIFACTS_DIR/leak.txt"; ln -s / "$SVC_ARTIFACTS_DIR/root"; mkdir "$SVC_ARTIFACTS_DIR/d"; ln -s ${canaryDir} "$SVC_ARTIFACTS_DIR/d/dir"; ln ${canary} "$SVC_ARTIFACTS_DIR/hard.txt" 2>/dev/null; echo fine > "$SVC_ARTIFACTS_DIR/ok.txt"']`,
      '',
    ].join('\n'),
  });
  const ex = await s.trigger(NS, 'links');
  const done = await s.waitEnded(ex.id, 60_000);
  assert.equal(done.state, 'SUCCESS', JSON.stringify(done.task_runs));
  const arts = (await call('GET', `/api/v1/executions/${ex.id}/artifacts`)).json.items;
  for (const a of arts) {
    const body = await call('GET', `/api/v1/executions/${ex.id}/artifacts/${a.id}`);
    assert.ok(!body.text.includes(CANARY_TEXT), `artifact ${a.name} carries the canary`);
  }
  assert.ok(arts.some((a: any) => a.name === 'ok.txt'));
  for (const name of ['leak.txt', 'root', 'd/dir']) assert.ok(!arts.some((a: any) => a.name === name), `${name} was uploaded`);
  assertCanaryAlone();
});

test('artifact names over the runner protocol are names, never paths: stored inside the object store, downloaded with a safe file name', async () => {
  await s.saveFlow(NS, { 'remote.flow.yaml': 'id: remote\ntasks:\n  - {id: t, type: command, command: ["true"], executor: {type: process, pool: nobody}}\n' });
  const ex = await s.trigger(NS, 'remote');
  await s.waitFor(ex.id, (e) => e.task_runs[0]?.state === 'QUEUED');
  const [run] = await claimTaskRuns(s.db, { instanceId: 'hostile', pools: ['nobody'], executorType: 'process', limit: 1, now: new Date() });
  assert.ok(run);
  const token = signRunToken(await loadRunTokenKey(s.db), run.id, new Date(Date.now() + 3600_000));
  const names = [...TO_NEW('pwned'), '..', '.', 'a/../../../b', '/etc/passwd', 'evil"; filename=x.exe', 'line\r\nSet-Cookie: svc_session=fixed', 'ok.txt'];
  for (const name of names) {
    const r = await fetch(`${s.url}/api/runner/v1/task-runs/${run.id}/artifacts/${encodeURIComponent(name)}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'text/plain' },
      body: `content of ${name}`,
    });
    const a = await answerOf(r);
    assertWellFormed(a, `PUT artifact ${JSON.stringify(name)}`);
    // `..` and `.` are resolved away by the URL before they are sent (404: no route); every other name is stored as a name.
    assert.ok([201, 422].includes(a.status) || (['..', '.'].includes(name) && a.status === 404), `${JSON.stringify(name)}: ${a.status} ${a.text}`);
  }
  assertCanaryAlone();
  // Every object the store holds is inside its directory (no key climbed out of it).
  const storeRoot = fs.realpathSync(s.dataDir);
  const walk = (d: string): string[] =>
    fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [fs.realpathSync(path.join(d, e.name))]));
  for (const f of walk(storeRoot)) assert.ok(f.startsWith(storeRoot + path.sep), f);
  const arts = (await call('GET', `/api/v1/executions/${ex.id}/artifacts?limit=200`)).json.items;
  assert.ok(arts.length >= 1);
  for (const a of arts) {
    const r = await call('GET', `/api/v1/executions/${ex.id}/artifacts/${a.id}`);
    assert.equal(r.status, 200);
    assert.equal(r.text, `content of ${a.name}`, 'each name gets its own content back');
    const cd = r.headers.get('content-disposition') ?? '';
    assert.match(cd, /^attachment; filename="[^"/\\\r\n]*"; filename\*=UTF-8''[A-Za-z0-9%._~!*'()-]*$/, `Content-Disposition of ${JSON.stringify(a.name)}: ${cd}`);
    assert.equal(r.headers.get('set-cookie'), null, 'no header was injected through a name');
  }
  // Download routes with climbing ids find nothing.
  // Sent as written (fetch would resolve `..` and `%2e%2e` to another route before sending).
  for (const id of ['..', '%2e%2e', '..%2f..%2fetc%2fpasswd', '%2e%2e%2f%2e%2e%2fetc%2fpasswd', encodeURIComponent(canary)]) {
    for (const p of [
      `/api/v1/executions/${ex.id}/artifacts/${id}`,
      `/api/v1/executions/${id}/logs/download`,
      `/api/v1/executions/${ex.id}/artifacts/${id}/../../../../../..${canary}`,
    ]) {
      const d = await rawGet(p);
      answers.push(d.text);
      assert.ok(!d.text.includes(CANARY_TEXT), p);
      assert.ok([400, 404, 422].includes(d.status), `${p}: ${d.status} ${d.text.slice(0, 200)}`);
    }
  }
  console.log(`artifact names: ${names.length} hostile names stored as names; ${arts.length} downloads checked`);
});

test('git-source mappings that climb out of the repository are refused', async () => {
  for (const repoPath of ['..', '../..', 'a/../../b', '..\\..', 'a/\u0001']) {
    const r = await call('POST', '/api/v1/git-sources', {
      body: { name: `g${Math.random()}`, repo_url: 'https://git.example.test/r.git', mappings: [{ namespace: 'gitns', repo_path: repoPath }] },
    });
    assert.equal(r.status, 422, `${JSON.stringify(repoPath)}: ${r.text}`);
  }
});

test('no answer in this file carried the canary', () => {
  assert.ok(answers.length > 100);
  for (const a of answers) assert.ok(!a.includes(CANARY_TEXT));
  assertCanaryAlone();
});
