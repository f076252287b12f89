// Git push-back is made with the source's credential, so what an editor may
// push is bounded (push-paths.ts): never CI configuration, and only the
// source's push_paths when it has some; a refused path is 422 naming
// changes[i].path (or new_path) and pushes nothing. A push is audited as
// `git.push` with its source, branch, sha and paths. A repo_url holding a
// credential in its user info is refused. The push webhook looks its source
// up before reading the body and reads a capped body.
// Each of these failed before: CI paths were pushed, push_paths did not exist,
// nothing was audited, https://<token>@host was accepted, an unknown source
// waited for the whole body, and a body of several MiB was read and checked.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { formatMasterKeys, generateMasterKey } from '@svc/secrets';
import { hubSignature } from '@svc/git-sources';
import { startGitDaemon, TestRepo, tempRoot, type TestServer } from '@svc/git-sources/testing';
import { startTestGateway, type TestGateway } from './helpers.js';
import { login, makeToken, makeUser, raw } from './identity-helpers.js';
import { assertConforms, createRecorder } from './secrets-helpers.js';

const KEY = generateMasterKey('k1');
const WEBHOOK_SECRET = 'PLANTED-webhook-secret-Zr81';
const flow = (id: string) => JSON.stringify({ id, tasks: [{ id: 't', type: 'command', command: ['true'] }] });
const { call } = createRecorder();
let gw: TestGateway;
let root: string;
let daemon: TestServer;
const t: Record<'editor' | 'admin', string> = { editor: '', admin: '' };

type Json = Record<string, any>;
const body = (r: { body: string }) => JSON.parse(r.body) as Json;

before(async () => {
  gw = await startTestGateway({ env: { SVC_MASTER_KEYS: formatMasterKeys([KEY]) } });
  await makeUser(gw, 'admin@example.com', 'admin');
  const cookie = await login(gw, 'admin@example.com');
  for (const role of ['editor', 'admin'] as const) t[role] = await makeToken(gw, cookie, role);
  root = tempRoot();
  daemon = await startGitDaemon(root);
  const put = await call(gw, t.admin, 'PUT', '/api/v1/platform-secrets/GIT_WEBHOOK', { value: WEBHOOK_SECRET });
  assert.ok(put.status === 200 || put.status === 201, put.body);
});

after(async () => {
  await daemon?.close();
  await gw?.close();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

async function createSource(input: Json): Promise<Json> {
  const r = await call(gw, t.admin, 'POST', '/api/v1/git-sources', input);
  assert.equal(r.status, 201, r.body);
  assertConforms('createGitSource', 201, body(r));
  return body(r);
}

const push = (ns: string, changes: Json[], message = 'a change') => call(gw, t.editor, 'POST', `/api/v1/namespaces/${ns}/git/push`, { message, changes });

function assertRefused(r: { status: number; body: string }, fields: string[]): void {
  assert.equal(r.status, 422, r.body);
  assert.equal(body(r).error.code, 'validation_failed');
  assert.deepEqual(
    body(r).error.details.map((d: Json) => d.field),
    fields,
  );
}

test('CI configuration is never pushed, wherever it is and whatever push_paths say; nothing reaches the remote', async () => {
  const repo = new TestRepo(root, 'ci');
  repo.commit({ 'a.flow.yaml': flow('a'), 'Jenkinsfile.txt': 'x' }, 'first');
  const src = await createSource({ name: 'ci', repo_url: `${daemon.url}/ci.git`, mappings: [{ namespace: 'ci', repo_path: '' }] });
  assert.deepEqual(src.push_paths, []);
  const put = (p: string) => ({ op: 'put', path: p, content: 'on: push\njobs: {}\n' });
  for (const p of [
    '.github/workflows/evil.yml',
    '.gitlab-ci.yml',
    '.gitlab/ci/x.yml',
    '.circleci/config.yml',
    'Jenkinsfile',
    '.buildkite/pipeline.yml',
    'azure-pipelines.yml',
    '.drone.yml',
    'bitbucket-pipelines.yml',
    'sub/.GitHub/workflows/x.yml',
  ]) {
    assertRefused(await push('ci', [put('ok.txt'), put(p)]), ['changes[1].path']);
  }
  assertRefused(await push('ci', [{ op: 'rename', path: 'a.flow.yaml', new_path: '.github/workflows/a.yml' }]), ['changes[0].new_path']);
  // Opening everything to push_paths does not open CI paths.
  const upd = await call(gw, t.admin, 'PUT', `/api/v1/git-sources/${src.id}`, {
    name: 'ci',
    repo_url: `${daemon.url}/ci.git`,
    push_paths: ['**'],
    mappings: [{ namespace: 'ci', repo_path: '' }],
  });
  assert.equal(upd.status, 200, upd.body);
  assert.deepEqual(body(upd).push_paths, ['**']);
  assertRefused(await push('ci', [put('.github/workflows/evil.yml')]), ['changes[0].path']);
  assert.deepEqual(repo.branches(), ['main'], 'no refused push pushed a branch');
  assert.equal((await gw.db.pool.query(`SELECT count(*)::int AS n FROM git_sync_runs WHERE git_source_id = $1 AND trigger = 'push'`, [src.id])).rows[0].n, 0);
});

test('push_paths narrow what a push writes; an allowed push is audited with its source, branch, sha and paths', async () => {
  const repo = new TestRepo(root, 'narrow');
  repo.commit({ 'flows/a.flow.yaml': flow('a'), 'flows/old.txt': 'o' }, 'first');
  const bad = await call(gw, t.admin, 'POST', '/api/v1/git-sources', {
    name: 'narrow',
    repo_url: `${daemon.url}/narrow.git`,
    push_paths: ['ok/**', '/abs', 'a/../b'],
    mappings: [{ namespace: 'narrow', repo_path: 'flows' }],
  });
  assertRefused(bad, ['push_paths[1]', 'push_paths[2]']);
  const src = await createSource({
    name: 'narrow',
    repo_url: `${daemon.url}/narrow.git`,
    push_paths: ['flows/*.flow.yaml', 'flows/old.txt'],
    mappings: [{ namespace: 'narrow', repo_path: 'flows' }],
  });
  assertRefused(
    await push('narrow', [
      { op: 'put', path: 'b.flow.yaml', content: flow('b') },
      { op: 'put', path: 'bin/run.sh', content: '#!/bin/sh\n' },
    ]),
    ['changes[1].path'],
  );

  const ok = await push(
    'narrow',
    [
      { op: 'put', path: 'b.flow.yaml', content: flow('b') },
      { op: 'delete', path: 'old.txt' },
    ],
    'Add b',
  );
  assert.equal(ok.status, 201, ok.body);
  assertConforms('pushNamespaceBranch', 201, body(ok));
  assert.equal(repo.show(body(ok).branch, 'flows/b.flow.yaml'), flow('b'));
  const audit = (await gw.db.pool.query(`SELECT actor_type, target_type, target_id, details FROM audit_events WHERE action = 'git.push'`)).rows;
  assert.equal(audit.length, 1);
  assert.equal(audit[0].target_type, 'git_source');
  assert.equal(audit[0].target_id, src.id);
  assert.equal(audit[0].actor_type, 'token');
  assert.deepEqual(audit[0].details, {
    namespace: 'narrow',
    branch: body(ok).branch,
    sha: body(ok).sha,
    base_sha: body(ok).base_sha,
    paths: ['flows/b.flow.yaml', 'flows/old.txt'],
  });
});

test('a repo_url with user info (a token as the user name, or user:token) is 422 naming repo_url and credential_secret_key', async () => {
  for (const url of [
    'https://ghp_PLANTEDtoken123@example.com/o/r.git',
    'https://x-access-token:PLANTEDtoken@example.com/o/r.git',
    'http://PLANTED@example.com/r.git',
    'https://user:@example.com/r.git',
  ]) {
    const r = await call(gw, t.admin, 'POST', '/api/v1/git-sources', { name: 'userinfo', repo_url: url, mappings: [{ namespace: 'userinfo', repo_path: '' }] });
    assertRefused(r, ['repo_url']);
    assert.match(body(r).error.details[0].message, /credential_secret_key/);
    assert.doesNotMatch(r.body, /PLANTED/, 'the credential is not echoed');
  }
  // An ssh user is not a credential.
  const ssh = await call(gw, t.admin, 'POST', '/api/v1/git-sources', {
    name: 'ssh-user',
    repo_url: 'ssh://git@example.com/o/r.git',
    auth_type: 'ssh',
    credential_secret_key: 'GIT_WEBHOOK',
    known_hosts: 'example.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl',
    mappings: [{ namespace: 'ssh-user', repo_path: '' }],
  });
  assert.equal(ssh.status, 201, ssh.body);
});

/** Sends the headers and `first` bytes of a body announced as `length` bytes, and waits for an answer without sending the rest. */
function partialPost(url: string, length: number, first: number, ms = 5_000): Promise<number | 'no answer'> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': String(length) } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
      req.destroy();
    });
    req.on('error', (err) => (err.message.includes('socket hang up') ? undefined : reject(err)));
    req.write(Buffer.alloc(first, 0x20));
    setTimeout(() => {
      resolve('no answer');
      req.destroy();
    }, ms);
  });
}

test('push webhook: an unknown source is 404 before the body is read; a body past 1 MiB is 413 before its signature is checked', async () => {
  assert.equal(await partialPost(`${gw.url}/hooks/git/no-such-source`, 5 << 20, 1024), 404);
  const repo = new TestRepo(root, 'hooked');
  repo.commit({ 'a.txt': 'a' }, 'first');
  const src = await createSource({ name: 'hooked', repo_url: repo.fileUrl, webhook_secret_key: 'GIT_WEBHOOK', mappings: [{ namespace: 'hooked', repo_path: '' }] });
  const big = Buffer.from(JSON.stringify({ ref: 'refs/heads/main', padding: 'x'.repeat(2 << 20) }));
  const r = await raw(gw, 'POST', `/hooks/git/${src.id}`, { 'content-type': 'application/json', 'x-hub-signature-256': hubSignature(WEBHOOK_SECRET, big) }, big.toString('utf8'));
  assert.equal(r.status, 413, r.body);
  // A usual payload still verifies and requests a sync.
  const small = JSON.stringify({ ref: 'refs/heads/main' });
  const ok = await raw(gw, 'POST', `/hooks/git/${src.id}`, { 'content-type': 'application/json', 'x-hub-signature-256': hubSignature(WEBHOOK_SECRET, Buffer.from(small)) }, small);
  assert.equal(ok.status, 202, ok.body);
  const unsigned = await raw(gw, 'POST', `/hooks/git/${src.id}`, { 'content-type': 'application/json' }, small);
  assert.equal(unsigned.status, 401);
});
