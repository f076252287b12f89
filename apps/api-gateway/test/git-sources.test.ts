// Git sources over real HTTP against real git servers on this machine: bare
// repositories over file://, `git daemon` on loopback, git http-backend
// behind HTTPS with a token, and an sshd with a key and strict host keys.
// Covers the API (CRUD, roles, sync requests and runs), read-only mapped
// namespaces, push-webhook signatures, branch pushes seen in the remote, and
// ends with a leak check: no credential in any response, log line, sync run
// or source row of the whole file.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import { after, before, test } from 'node:test';
import { formatMasterKeys, generateMasterKey, PlatformSecretStore } from '@svc/secrets';
import { GitSyncWorker, hubSignature } from '@svc/git-sources';
import {
  sshdUnavailable,
  startGitDaemon,
  startHttpsGitServer,
  startSshGitServer,
  TestRepo,
  tempRoot,
  type HttpsGitServer,
  type SshGitServer,
  type TestServer,
} from '@svc/git-sources/testing';
import { createTestLogger } from '@svc/logging';
import { startTestGateway, type TestGateway } from './helpers.js';
import { login, makeToken, makeUser, raw } from './identity-helpers.js';
import { assertConforms, assertNoLeak, createRecorder } from './secrets-helpers.js';

const KEY = generateMasterKey('k1');
const P = {
  token: 'PLANTED-git-token-Vb71xQ9',
  wrongToken: 'PLANTED-wrong-git-token-Nm42',
  webhook: 'PLANTED-webhook-secret-Kp33',
};
const flow = (id: string, command = 'true') => JSON.stringify({ id, tasks: [{ id: 't', type: 'command', command: [command] }] });

const rec = createRecorder();
const { call } = rec;
let gw: TestGateway;
let root: string;
let daemon: TestServer;
let httpsServer: HttpsGitServer;
let ssh: SshGitServer | undefined;
const sshSkip = sshdUnavailable();
const workerLog = createTestLogger({ level: 'debug' });
let worker: GitSyncWorker;
const t: Record<'viewer' | 'editor' | 'admin', string> = { viewer: '', editor: '', admin: '' };
const savedCaInfo = process.env.GIT_SSL_CAINFO;

before(async () => {
  gw = await startTestGateway({ env: { SVC_MASTER_KEYS: formatMasterKeys([KEY]), SVC_PUBLIC_URL: 'https://svc.example.test' } });
  await makeUser(gw, 'admin@example.com', 'admin');
  const cookie = await login(gw, 'admin@example.com');
  for (const role of ['viewer', 'editor', 'admin'] as const) t[role] = await makeToken(gw, cookie, role);
  root = tempRoot();
  daemon = await startGitDaemon(root);
  httpsServer = await startHttpsGitServer(root, P.token);
  process.env.GIT_SSL_CAINFO = httpsServer.caFile;
  if (!sshSkip) ssh = await startSshGitServer();
  worker = new GitSyncWorker({
    db: gw.db,
    pool: gw.db.pool,
    storage: gw.storage,
    now: () => new Date(),
    maxFileBytes: 1 << 20,
    maxBundleBytes: 10 << 20,
    credentials: new PlatformSecretStore({ db: gw.db.pool, keys: [KEY] }),
    log: workerLog.logger,
    holderId: 'test-worker',
  });
  for (const [key, value] of [['GIT_TOKEN', P.token], ['GIT_WRONG_TOKEN', P.wrongToken], ['GIT_WEBHOOK', P.webhook], ...(ssh ? [['GIT_SSH_KEY', ssh.clientKey]] : [])] as const) {
    const r = await call(gw, t.admin, 'PUT', `/api/v1/platform-secrets/${key}`, { value });
    assert.ok(r.status === 200 || r.status === 201, r.body);
  }
});

after(async () => {
  if (savedCaInfo === undefined) delete process.env.GIT_SSL_CAINFO;
  else process.env.GIT_SSL_CAINFO = savedCaInfo;
  await ssh?.close();
  await httpsServer.close();
  await daemon.close();
  await gw.close();
  fs.rmSync(root, { recursive: true, force: true });
});

type Json = Record<string, any>;
const body = (r: { body: string }) => JSON.parse(r.body) as Json;

async function createSource(input: Json): Promise<Json> {
  const r = await call(gw, t.admin, 'POST', '/api/v1/git-sources', input);
  assert.equal(r.status, 201, r.body);
  assertConforms('createGitSource', 201, body(r));
  return body(r);
}

async function runsOf(id: string): Promise<Json[]> {
  const r = await call(gw, t.viewer, 'GET', `/api/v1/git-sources/${id}/runs`);
  assert.equal(r.status, 200, r.body);
  return body(r).items;
}

async function sourceOf(id: string): Promise<Json> {
  const r = await call(gw, t.viewer, 'GET', `/api/v1/git-sources/${id}`);
  assert.equal(r.status, 200, r.body);
  return body(r);
}

test('CRUD of git sources: every field, admin only for writes, settings checked', async () => {
  const repo = new TestRepo(root, 'crud');
  repo.commit({ 'hello.flow.yaml': flow('hello') }, 'first');
  // A viewer reads, only an admin writes.
  assert.equal((await call(gw, t.editor, 'POST', '/api/v1/git-sources', { name: 'x', repo_url: repo.fileUrl, mappings: [{ namespace: 'crud', repo_path: '' }] })).status, 403);
  const created = await createSource({
    name: 'crud',
    repo_url: repo.fileUrl,
    mappings: [{ namespace: 'crud', repo_path: '/' }],
    webhook_secret_key: 'GIT_WEBHOOK',
    poll_interval: 0,
  });
  assert.deepEqual(Object.keys(created).sort(), [
    'auth_type',
    'branch',
    'credential_secret_key',
    'id',
    'known_hosts',
    'last_error',
    'last_sync_at',
    'last_sync_status',
    'last_synced_sha',
    'mappings',
    'name',
    'poll_interval',
    'push_paths',
    'repo_url',
    'webhook_secret_key',
    'webhook_url',
  ]);
  assert.equal(created.branch, 'main');
  assert.equal(created.auth_type, 'none');
  assert.equal(created.webhook_url, `https://svc.example.test/hooks/git/${created.id}`);
  assert.deepEqual(created.mappings, [{ namespace: 'crud', repo_path: '' }]);
  assert.equal(created.last_sync_at, null);

  const got = await call(gw, t.viewer, 'GET', `/api/v1/git-sources/${created.id}`);
  assert.equal(got.status, 200);
  assertConforms('getGitSource', 200, body(got));
  const list = body(await call(gw, t.viewer, 'GET', '/api/v1/git-sources?limit=1'));
  assert.equal(list.items.length, 1);

  // The first sync was queued by the create.
  const [queued] = await runsOf(created.id);
  assert.equal(queued.status, 'queued');
  await worker.tick();
  const after1 = await sourceOf(created.id);
  assert.equal(after1.last_sync_status, 'success');
  assert.equal(after1.last_synced_sha, repo.revParse('main'));
  assert.ok(after1.last_sync_at);
  const versions = body(await call(gw, t.viewer, 'GET', '/api/v1/namespaces/crud/versions'));
  assert.equal(versions.items[0].git_sha, after1.last_synced_sha);
  assert.equal(versions.items[0].message, 'first');
  // An execution of a synced flow carries the commit that produced its revision.
  const ex = await call(gw, t.editor, 'POST', '/api/v1/flows/crud/hello/executions', {});
  assert.equal(ex.status, 201, ex.body);
  assert.equal(body(ex).git_sha, after1.last_synced_sha);
  // A commit that changes only a script: the flow's revision stays, but an execution runs the new commit's files and says so.
  const scriptOnly = repo.commit({ 'hello.flow.yaml': flow('hello'), 'scripts/step.sh': 'echo two\n' }, 'a script only');
  assert.equal((await call(gw, t.admin, 'POST', `/api/v1/git-sources/${created.id}/sync`)).status, 202);
  await worker.tick();
  assert.equal((await sourceOf(created.id)).last_synced_sha, scriptOnly);
  const ex2 = await call(gw, t.editor, 'POST', '/api/v1/flows/crud/hello/executions', {});
  assert.equal(body(ex2).git_sha, scriptOnly, 'the commit whose files run, not the one that last changed the flow file');
  const fileRun = await call(gw, t.editor, 'POST', '/api/v1/namespaces/crud/run', { path: 'scripts/step.sh' });
  assert.equal(fileRun.status, 201, fileRun.body);
  assert.equal(body(fileRun).git_sha, scriptOnly, 'a file run carries the commit of its files too');

  // Settings that cannot work: one 422 naming each field.
  const bad = await call(gw, t.admin, 'POST', '/api/v1/git-sources', {
    name: 'bad',
    repo_url: `https://user:${P.wrongToken}@example.com/x.git`,
    auth_type: 'ssh',
    branch: '-x',
    mappings: [{ namespace: 'Not A Namespace', repo_path: '../up' }],
  });
  assert.equal(bad.status, 422);
  const fields = body(bad)
    .error.details.map((d: Json) => d.field)
    .sort();
  assert.deepEqual(fields, ['branch', 'credential_secret_key', 'mappings[0].namespace', 'mappings[0].repo_path', 'repo_url']);
  const sshNoHosts = await call(gw, t.admin, 'POST', '/api/v1/git-sources', {
    name: 'ssh-no-hosts',
    repo_url: 'ssh://git@example.com/x.git',
    auth_type: 'ssh',
    credential_secret_key: 'GIT_SSH_KEY',
    mappings: [{ namespace: 'x', repo_path: '' }],
  });
  assert.deepEqual(
    body(sshNoHosts).error.details.map((d: Json) => d.field),
    ['known_hosts'],
  );
  // A namespace is mapped by one source at most; names are unique.
  assert.equal((await call(gw, t.admin, 'POST', '/api/v1/git-sources', { name: 'other', repo_url: repo.fileUrl, mappings: [{ namespace: 'crud', repo_path: '' }] })).status, 409);
  assert.equal((await call(gw, t.admin, 'POST', '/api/v1/git-sources', { name: 'crud', repo_url: repo.fileUrl, mappings: [{ namespace: 'crud-2', repo_path: '' }] })).status, 409);

  // Update replaces settings; a namespace no longer mapped becomes writable.
  const upd = await call(gw, t.admin, 'PUT', `/api/v1/git-sources/${created.id}`, {
    name: 'crud',
    repo_url: repo.fileUrl,
    poll_interval: 300,
    webhook_secret_key: 'GIT_WEBHOOK',
    mappings: [{ namespace: 'crud-moved', repo_path: '' }],
  });
  assert.equal(upd.status, 200, upd.body);
  assert.equal(body(upd).poll_interval, 300);
  assert.equal(body(await call(gw, t.viewer, 'GET', '/api/v1/namespaces/crud/git')).read_only, false);
  assertConforms('getNamespaceGit', 200, body(await call(gw, t.viewer, 'GET', '/api/v1/namespaces/crud/git')));
  assert.equal((await call(gw, t.editor, 'POST', '/api/v1/namespaces/crud/changes', { message: 'now mine', changes: [{ op: 'put', path: 'x.txt', content: 'x' }] })).status, 201);
  await worker.tick();
  assert.equal(body(await call(gw, t.viewer, 'GET', '/api/v1/namespaces/crud-moved/versions')).items[0].git_sha, repo.revParse('main'));

  // Delete: runs stay, namespaces become writable.
  assert.equal((await call(gw, t.editor, 'DELETE', `/api/v1/git-sources/${created.id}`)).status, 403);
  assert.equal((await call(gw, t.admin, 'DELETE', `/api/v1/git-sources/${created.id}`)).status, 204);
  assert.equal((await call(gw, t.viewer, 'GET', `/api/v1/git-sources/${created.id}`)).status, 404);
  const kept = await gw.db.pool.query(`SELECT count(*)::int AS n FROM git_sync_runs WHERE git_source_id = $1`, [created.id]);
  assert.equal(kept.rows[0].n, 3);
  assert.equal(body(await call(gw, t.viewer, 'GET', '/api/v1/namespaces/crud-moved/git')).read_only, false);
});

test('a mapped namespace answers 409 namespace_read_only on every write and shows its source', async () => {
  const repo = new TestRepo(root, 'readonly');
  repo.commit({ 'a.flow.yaml': flow('a') }, 'first');
  const src = await createSource({ name: 'readonly', repo_url: repo.fileUrl, mappings: [{ namespace: 'ro.team', repo_path: '' }] });
  await worker.tick();
  const writes: [string, string, unknown][] = [
    ['POST', '/api/v1/namespaces/ro.team/changes', { message: 'x', changes: [{ op: 'put', path: 'b.txt', content: 'b' }] }],
    ['POST', '/api/v1/namespaces/ro.team/revert', { version: 0 }],
    ['DELETE', '/api/v1/namespaces/ro.team', undefined],
  ];
  for (const [method, path, b] of writes) {
    const r = await call(gw, t.admin, method, path, b);
    assert.equal(r.status, 409, `${method} ${path}: ${r.body}`);
    assert.equal(body(r).error.code, 'namespace_read_only');
  }
  const up = await raw(gw, 'PUT', '/api/v1/namespaces/ro.team/file?path=c.txt', { authorization: `Bearer ${t.admin}`, 'content-type': 'application/octet-stream' }, 'c');
  assert.equal(up.status, 409);
  assert.equal(up.json().error.code, 'namespace_read_only');

  const view = await call(gw, t.viewer, 'GET', '/api/v1/namespaces/ro.team/git');
  assert.equal(view.status, 200);
  assertConforms('getNamespaceGit', 200, body(view));
  assert.equal(body(view).read_only, true);
  assert.equal(body(view).source.id, src.id);
  assert.equal(body(view).source.last_synced_sha, repo.revParse('main'));
  assert.equal(body(await call(gw, t.viewer, 'GET', '/api/v1/namespaces/ro.team')).read_only, true);
  assert.equal((await call(gw, t.viewer, 'GET', '/api/v1/namespaces/nope/git')).status, 404);
});

test('push webhook: a wrong or missing signature is 401 and starts nothing; repeated deliveries are harmless', async () => {
  const repo = new TestRepo(root, 'hooked');
  repo.commit({ 'a.txt': 'a\n' }, 'first');
  const src = await createSource({ name: 'hooked', repo_url: repo.fileUrl, webhook_secret_key: 'GIT_WEBHOOK', mappings: [{ namespace: 'hooked', repo_path: '' }] });
  await worker.tick();
  const payload = JSON.stringify({ ref: 'refs/heads/main', after: 'x' });
  const hook = async (headers: Record<string, string>, b = payload) => {
    const r = await raw(gw, 'POST', `/hooks/git/${src.id}`, { 'content-type': 'application/json', ...headers }, b);
    rec.seen.push(`POST /hooks/git -> ${r.status} ${JSON.stringify(r.headers)} ${r.body}`);
    return r;
  };
  const requested = async () => (await gw.db.pool.query(`SELECT sync_requested_at FROM git_sources WHERE id = $1`, [src.id])).rows[0].sync_requested_at;
  const runCount = async () => (await runsOf(src.id)).length;
  const before = await runCount();

  for (const headers of [
    {},
    { 'x-hub-signature-256': hubSignature('not-the-secret', Buffer.from(payload)) },
    { 'x-hub-signature-256': 'sha256=00' },
    { 'x-gitlab-token': 'wrong' },
  ] as Record<string, string>[]) {
    const r = await hook(headers);
    assert.equal(r.status, 401, JSON.stringify(headers));
    assert.equal(r.json().error.code, 'unauthorized');
  }
  // Signed for another body.
  assert.equal((await hook({ 'x-hub-signature-256': hubSignature(P.webhook, Buffer.from('{}')) })).status, 401);
  assert.equal(await runCount(), before, 'nothing was queued');
  assert.equal(await requested(), null);
  assert.equal((await raw(gw, 'POST', '/hooks/git/no-such-source', { 'content-type': 'application/json' }, payload)).status, 404);

  const sha = repo.commit({ 'a.txt': 'a2\n' }, 'second');
  const first = await hook({ 'x-hub-signature-256': hubSignature(P.webhook, Buffer.from(payload)) });
  assert.equal(first.status, 202, first.body);
  const again = await hook({ 'x-hub-signature-256': hubSignature(P.webhook, Buffer.from(payload)) });
  const gitlab = await hook({ 'x-gitlab-token': P.webhook });
  assert.equal(again.json<Json>().run_id, first.json<Json>().run_id, 'a redelivery joins the queued run');
  assert.equal(gitlab.json<Json>().run_id, first.json<Json>().run_id);
  // A push to another branch requests nothing.
  const other = JSON.stringify({ ref: 'refs/heads/feature' });
  assert.equal((await hook({ 'x-hub-signature-256': hubSignature(P.webhook, Buffer.from(other)) }, other)).json<Json>().requested, false);
  await worker.tick();
  const runs = await runsOf(src.id);
  assert.equal(runs.length, before + 1);
  assert.equal(runs[0].trigger, 'webhook');
  assert.equal(runs[0].status, 'success');
  assert.equal(runs[0].sha, sha);
  // Delivered again after the sync: one more run, which finds nothing to change.
  await hook({ 'x-hub-signature-256': hubSignature(P.webhook, Buffer.from(payload)) });
  await worker.tick();
  const later = await runsOf(src.id);
  assert.equal(later[0].status, 'no_change');
  assert.equal(body(await call(gw, t.viewer, 'GET', '/api/v1/namespaces/hooked/versions')).items.length, 2);
});

test('syncGitSource over git daemon: 202 with the queued run, repeated requests join it', async () => {
  const repo = new TestRepo(root, 'daemon');
  repo.commit({ 'flows/a.flow.yaml': flow('a') }, 'first');
  const src = await createSource({ name: 'daemon', repo_url: `${daemon.url}/daemon.git`, mappings: [{ namespace: 'daemon', repo_path: 'flows' }] });
  const r1 = await call(gw, t.admin, 'POST', `/api/v1/git-sources/${src.id}/sync`);
  assert.equal(r1.status, 202, r1.body);
  assertConforms('syncGitSource', 202, body(r1));
  assert.equal((await call(gw, t.viewer, 'POST', `/api/v1/git-sources/${src.id}/sync`)).status, 403);
  const r2 = await call(gw, t.admin, 'POST', `/api/v1/git-sources/${src.id}/sync`);
  assert.equal(body(r2).id, body(r1).id);
  await worker.tick();
  const runs = await runsOf(src.id);
  assert.deepEqual(
    runs.map((r) => r.status),
    ['success'],
  );
  assertConforms('listGitSyncRuns', 200, { items: runs });
  assert.deepEqual(
    runs[0].details.namespaces.map((n: Json) => [n.namespace, n.changes]),
    [['daemon', 1]],
  );
});

test('pushNamespaceBranch: a new branch on top of the mapped head, visible in the remote', async () => {
  const repo = new TestRepo(root, 'pushed');
  const head = repo.commit({ 'flows/a.flow.yaml': flow('a'), 'flows/old.txt': 'old\n', 'other.txt': 'o\n' }, 'first');
  await createSource({ name: 'pushed', repo_url: `${daemon.url}/pushed.git`, mappings: [{ namespace: 'pushed', repo_path: 'flows' }] });
  await worker.tick();
  const change = {
    message: 'Add b and tidy up',
    changes: [
      { op: 'put', path: 'b.flow.yaml', content: flow('b') },
      { op: 'put', path: 'bin/run.sh', content: '#!/bin/sh\n', executable: true },
      { op: 'delete', path: 'old.txt' },
      { op: 'rename', path: 'a.flow.yaml', new_path: 'renamed/a.flow.yaml' },
    ],
  };
  assert.equal((await call(gw, t.viewer, 'POST', '/api/v1/namespaces/pushed/git/push', change)).status, 403);
  const r = await call(gw, t.editor, 'POST', '/api/v1/namespaces/pushed/git/push', change);
  assert.equal(r.status, 201, r.body);
  assertConforms('pushNamespaceBranch', 201, body(r));
  const { branch, sha } = body(r);
  assert.match(branch, /^svc\/add-b-and-tidy-up-[0-9a-f]{6}$/);
  assert.ok(repo.branches().includes(branch));
  assert.equal(repo.revParse(branch), sha);
  assert.equal(repo.show(branch, 'flows/b.flow.yaml'), flow('b'));
  assert.equal(repo.show(branch, 'flows/renamed/a.flow.yaml'), flow('a'));
  assert.equal(repo.show(branch, 'flows/a.flow.yaml'), null);
  assert.equal(repo.show(branch, 'flows/old.txt'), null);
  assert.equal(repo.show(branch, 'other.txt'), 'o\n');
  const log = repo.log(branch);
  assert.equal(log.parent, head);
  assert.equal(log.message, 'Add b and tidy up');
  assert.equal(log.author, 'admin@example.com', 'the author is the user the token belongs to');
  assert.equal(repo.revParse('main'), head, 'the mapped branch is left alone');
  // The namespace changes only when the branch is merged and synced.
  assert.equal(body(await call(gw, t.viewer, 'GET', '/api/v1/namespaces/pushed/versions')).items.length, 1);

  const invalid = await call(gw, t.editor, 'POST', '/api/v1/namespaces/pushed/git/push', {
    message: 'bad',
    changes: [{ op: 'put', path: 'x.flow.yaml', content: JSON.stringify({ id: 'x', tasks: [] }) }],
  });
  assert.equal(invalid.status, 422);
  assert.equal(body(invalid).error.code, 'flow_invalid');
  const missing = await call(gw, t.editor, 'POST', '/api/v1/namespaces/pushed/git/push', { message: 'bad', changes: [{ op: 'delete', path: 'nope.txt' }] });
  assert.equal(missing.status, 422);
  assert.equal((await call(gw, t.editor, 'POST', '/api/v1/namespaces/crud-2/git/push', change)).status, 404);
  const branches = repo.branches().length;
  assert.equal(branches, 2, 'refused pushes pushed nothing');
});

test('HTTPS with a token: sync and push authenticate through askpass; a wrong token fails without showing it', async () => {
  const repo = new TestRepo(root, 'private');
  repo.commit({ 'p.flow.yaml': flow('p') }, 'private first');
  const src = await createSource({
    name: 'https',
    repo_url: `${httpsServer.url}/private.git`,
    auth_type: 'token',
    credential_secret_key: 'GIT_TOKEN',
    mappings: [{ namespace: 'private', repo_path: '' }],
  });
  await worker.tick();
  const s = await sourceOf(src.id);
  assert.equal(s.last_sync_status, 'success', s.last_error);
  assert.ok(httpsServer.requests.some((r) => r.authorized));
  assert.ok(httpsServer.requests.every((r) => !r.url.includes(P.token)));
  const pushed = await call(gw, t.editor, 'POST', '/api/v1/namespaces/private/git/push', { message: 'over https', changes: [{ op: 'put', path: 'q.txt', content: 'q' }] });
  assert.equal(pushed.status, 201, pushed.body);
  assert.equal(repo.show(body(pushed).branch, 'q.txt'), 'q');

  const wrong = await createSource({
    name: 'https-wrong',
    repo_url: `${httpsServer.url}/private.git`,
    auth_type: 'token',
    credential_secret_key: 'GIT_WRONG_TOKEN',
    mappings: [{ namespace: 'private-wrong', repo_path: '' }],
  });
  await worker.tick();
  const w = await sourceOf(wrong.id);
  assert.equal(w.last_sync_status, 'failed');
  assert.match(w.last_error, /Authentication failed|401|could not read/i);
  const failedPush = await call(gw, t.editor, 'POST', '/api/v1/namespaces/private-wrong/git/push', { message: 'x', changes: [{ op: 'put', path: 'q.txt', content: 'q' }] });
  assert.equal(failedPush.status, 502);
  assert.equal(body(failedPush).error.code, 'git_failed');
  // No credential at all: the server's 401 is the error.
  const anon = await createSource({ name: 'https-anon', repo_url: `${httpsServer.url}/private.git`, mappings: [{ namespace: 'private-anon', repo_path: '' }] });
  await worker.tick();
  assert.equal((await sourceOf(anon.id)).last_sync_status, 'failed');
});

test('SSH with a key and strict known_hosts', { skip: sshSkip ?? false }, async () => {
  const server = ssh!;
  const repo = new TestRepo(root, 'over-ssh');
  repo.commit({ 's.flow.yaml': flow('s') }, 'ssh first');
  const url = `${server.url}${repo.bare}`;
  const src = await createSource({
    name: 'ssh',
    repo_url: url,
    auth_type: 'ssh',
    credential_secret_key: 'GIT_SSH_KEY',
    known_hosts: server.knownHosts,
    mappings: [{ namespace: 'over-ssh', repo_path: '' }],
  });
  await worker.tick();
  const s = await sourceOf(src.id);
  assert.equal(s.last_sync_status, 'success', s.last_error);
  assert.equal(s.last_synced_sha, repo.revParse('main'));
  const pushed = await call(gw, t.editor, 'POST', '/api/v1/namespaces/over-ssh/git/push', { message: 'over ssh', changes: [{ op: 'put', path: 'k.txt', content: 'k' }] });
  assert.equal(pushed.status, 201, pushed.body);
  assert.equal(repo.show(body(pushed).branch, 'k.txt'), 'k');

  // A host key other than the one known: refused before any authentication.
  const changed = await createSource({
    name: 'ssh-changed-key',
    repo_url: url,
    auth_type: 'ssh',
    credential_secret_key: 'GIT_SSH_KEY',
    known_hosts: server.wrongKnownHosts,
    mappings: [{ namespace: 'ssh-changed', repo_path: '' }],
  });
  await worker.tick();
  const c = await sourceOf(changed.id);
  assert.equal(c.last_sync_status, 'failed');
  assert.match(c.last_error, /Host key verification failed|REMOTE HOST IDENTIFICATION HAS CHANGED/);
});

test('no credential in any response, log line, sync run or source row of this file; no key file left', async () => {
  const planted = [P.token, P.wrongToken, P.webhook, Buffer.from(`x-access-token:${P.token}`).toString('base64')];
  if (ssh) for (const line of ssh.clientKey.split('\n')) if (line.trim().length >= 16 && !line.startsWith('-----')) planted.push(line.trim());
  const runs = (await gw.db.pool.query(`SELECT row_to_json(r)::text AS j FROM git_sync_runs r`)).rows.map((r) => r.j as string);
  const sources = (await gw.db.pool.query(`SELECT row_to_json(s)::text AS j FROM git_sources s`)).rows.map((r) => r.j as string);
  const audit = (await gw.db.pool.query(`SELECT row_to_json(a)::text AS j FROM audit_events a`)).rows.map((r) => r.j as string);
  const logs = [...gw.logs(), ...workerLog.lines()].map((l) => JSON.stringify(l));
  assert.ok(rec.seen.length > 40 && logs.length > 40 && runs.length > 10, `${rec.seen.length} responses, ${logs.length} log lines, ${runs.length} runs`);
  assertNoLeak(planted, [...rec.seen, ...logs, ...runs, ...sources, ...audit]);
  // Scratch directories (askpass script, private key, known_hosts) are removed after each operation
  // (younger ones may belong to another test file running now).
  const stale = fs
    .readdirSync(os.tmpdir())
    .filter((d) => d.startsWith('svc-git-') && fs.existsSync(`${os.tmpdir()}/${d}/home`) && fs.statSync(`${os.tmpdir()}/${d}`).mtimeMs < Date.now() - 10_000);
  assert.deepEqual(stale, []);
});
