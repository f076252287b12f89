// Syncs from a real bare repository over file:// into a real database: the
// first sync, an incremental one, a deleted file, an invalid flow that
// changes nothing, read-only namespaces, and polling by two workers that
// sync each commit once.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { createDb, inTransaction, newId, type Db } from '@svc/db';
import { requestGitSync } from '@svc/git-sources';
import { createTestDatabase, type TestDatabase } from '@svc/db/testing';
import { deleteNamespace, NamespaceReadOnlyError, revertVersion, saveChanges, listVersions, type SaveDeps } from '@svc/namespaces';
import { generateMasterKey, PlatformSecretStore } from '@svc/secrets';
import { FileObjectStore } from '@svc/storage';
import {
  branchProblem,
  createGitSource,
  getGitSource,
  GitSyncWorker,
  normalizeRepoPath,
  openAuth,
  parseGitSourceInput,
  requestSync,
  transportOf,
  type GitSourceInput,
  type GitSyncWorkerDeps,
} from '../src/index.js';
import { TestRepo, tempRoot } from '../src/testing.js';

const flow = (id: string, command = 'true') => JSON.stringify({ id, tasks: [{ id: 't', type: 'command', command: [command] }] });

let tdb: TestDatabase;
let db: Db;
let storage: FileObjectStore;
let root: string;
let credentials: PlatformSecretStore;
const pools: Db[] = [];
let clock = new Date('2026-11-25T10:00:00Z');
const warnings: string[] = [];
const log = { info: () => undefined, warn: (m: string, meta?: Record<string, unknown>) => void warnings.push(`${m} ${JSON.stringify(meta)}`) };

before(async () => {
  tdb = await createTestDatabase();
  db = createDb({ url: tdb.url, poolSize: 4 });
  root = tempRoot();
  storage = await FileObjectStore.open(path.join(root, 'objects'));
  credentials = new PlatformSecretStore({ db: db.pool, keys: [generateMasterKey('k1')] });
});

after(async () => {
  for (const d of pools) await d.close();
  await db.close();
  await tdb.drop();
  fs.rmSync(root, { recursive: true, force: true });
});

const saveDeps = (): SaveDeps => ({ pool: db.pool, storage, now: () => clock, maxFileBytes: 1 << 20, maxBundleBytes: 10 << 20 });

/** A worker on its own pool, as another instance would run it. */
function worker(holderId: string): GitSyncWorker {
  const own = createDb({ url: tdb.url, poolSize: 4 });
  pools.push(own);
  const deps: GitSyncWorkerDeps = { db: own, pool: own.pool, storage, now: () => clock, maxFileBytes: 1 << 20, maxBundleBytes: 10 << 20, credentials, log, holderId };
  return new GitSyncWorker(deps);
}

async function source(input: Partial<GitSourceInput> & Pick<GitSourceInput, 'repo_url' | 'mappings'>) {
  const parsed = parseGitSourceInput({ name: `src-${newId()}`, ...input });
  assert.ok(parsed.ok, JSON.stringify(parsed));
  return createGitSource({ db, now: () => clock }, parsed.settings, 'admin@example.test');
}

async function runs(sourceId: string) {
  return (await db.pool.query(`SELECT * FROM git_sync_runs WHERE git_source_id = $1 ORDER BY started_at, id`, [sourceId])).rows;
}

async function files(namespace: string): Promise<Record<string, { executable: boolean }>> {
  const r = await db.pool.query<{ path: string; executable: boolean }>(
    `SELECT f.path, f.executable FROM namespaces n JOIN namespace_versions v ON v.id = n.head_version_id JOIN snapshot_files f ON f.snapshot_id = v.snapshot_id WHERE n.name = $1 ORDER BY f.path`,
    [namespace],
  );
  return Object.fromEntries(r.rows.map((x) => [x.path, { executable: x.executable }]));
}

async function flowsOf(namespace: string): Promise<string[]> {
  return (await db.pool.query<{ flow_id: string }>(`SELECT flow_id FROM flows WHERE namespace = $1 AND deleted_at IS NULL ORDER BY flow_id`, [namespace])).rows.map(
    (r) => r.flow_id,
  );
}

test('first sync, incremental sync, a deleted file, and an invalid flow that changes nothing', async () => {
  const repo = new TestRepo(root, 'flows');
  const sha1 = repo.commit(
    {
      'team/hello.flow.yaml': flow('hello'),
      'team/scripts/run.sh': { content: '#!/bin/sh\necho hi\n', executable: true },
      'README.md': '# docs\n',
    },
    'Add hello\n\nWith a script.',
  );
  const src = await source({
    repo_url: repo.fileUrl,
    mappings: [
      { namespace: 'git.team', repo_path: 'team' },
      { namespace: 'git.all', repo_path: '' },
    ],
  });
  const w = worker('w1');

  // First sync (queued by the create).
  const t1 = await w.tick();
  assert.deepEqual(
    t1.synced.map((s) => s.status),
    ['success'],
  );
  assert.deepEqual(await files('git.team'), { 'hello.flow.yaml': { executable: false }, 'scripts/run.sh': { executable: true } });
  assert.deepEqual(Object.keys(await files('git.all')), ['README.md', 'team/hello.flow.yaml', 'team/scripts/run.sh']);
  assert.deepEqual(await flowsOf('git.team'), ['hello']);
  const [v1] = await listVersions(db.prisma, 'git.team', { limit: 5 });
  assert.equal(v1!.git_sha, sha1);
  assert.equal(v1!.message, 'Add hello\n\nWith a script.');
  assert.equal(v1!.author, 'author@example.test');
  let s = await getGitSource({ db, now: () => clock }, src.id);
  assert.equal(s.lastSyncedSha, sha1);
  assert.equal(s.lastSyncStatus, 'success');
  assert.equal(s.lastError, '');
  assert.ok(s.lastSyncAt);

  // Incremental: one changed file, one new; a commit outside `team` leaves git.team alone.
  const sha2 = repo.commit({ 'team/hello.flow.yaml': flow('hello', 'false'), 'team/bye.flow.yaml': flow('bye') }, 'Change hello, add bye');
  await requestSync(db.pool, { sourceId: src.id, trigger: 'manual', requestedBy: 'x', now: clock });
  assert.deepEqual(
    (await w.tick()).synced.map((x) => x.status),
    ['success'],
  );
  const [v2] = await listVersions(db.prisma, 'git.team', { limit: 5 });
  assert.equal(v2!.version, 2);
  assert.equal(v2!.git_sha, sha2);
  assert.deepEqual(await flowsOf('git.team'), ['bye', 'hello']);
  const changes = (await db.pool.query(`SELECT changes FROM namespace_versions WHERE id = $1`, [v2!.id])).rows[0].changes;
  assert.deepEqual(changes.map((c: { path: string }) => c.path).sort(), ['bye.flow.yaml', 'hello.flow.yaml']);

  const sha3 = repo.commit({ 'README.md': '# docs v2\n' }, 'Docs only');
  await requestSync(db.pool, { sourceId: src.id, trigger: 'manual', requestedBy: 'x', now: clock });
  await w.tick();
  assert.equal((await listVersions(db.prisma, 'git.team', { limit: 5 }))[0]!.version, 2, 'no version when the mapped files did not change');
  assert.equal((await listVersions(db.prisma, 'git.all', { limit: 5 }))[0]!.git_sha, sha3);

  // A deleted file: gone from the namespace, and its flow deleted.
  const sha4 = repo.commit({ 'team/bye.flow.yaml': null }, 'Remove bye');
  await requestSync(db.pool, { sourceId: src.id, trigger: 'manual', requestedBy: 'x', now: clock });
  await w.tick();
  assert.deepEqual(Object.keys(await files('git.team')), ['hello.flow.yaml', 'scripts/run.sh']);
  assert.deepEqual(await flowsOf('git.team'), ['hello']);
  assert.equal((await listVersions(db.prisma, 'git.team', { limit: 5 }))[0]!.git_sha, sha4);

  // An invalid flow: the run fails with details, no namespace changes, last_synced_sha stays.
  const heads = async () => (await db.pool.query(`SELECT name, head_version FROM namespaces WHERE name LIKE 'git.%' ORDER BY name`)).rows;
  const before = await heads();
  const bad = repo.commit({ 'team/broken.flow.yaml': JSON.stringify({ id: 'broken', tasks: [] }), 'README.md': '# docs v3\n' }, 'Break it');
  await requestSync(db.pool, { sourceId: src.id, trigger: 'manual', requestedBy: 'x', now: clock });
  assert.deepEqual(
    (await w.tick()).synced.map((x) => x.status),
    ['failed'],
  );
  assert.deepEqual(await heads(), before, 'no namespace got a version');
  const failed = (await runs(src.id)).at(-1)!;
  assert.equal(failed.status, 'failed');
  assert.equal(failed.sha, bad);
  assert.match(failed.error, /invalid file/);
  assert.ok(
    failed.details.problems.some((p: { namespace: string; field: string }) => p.namespace === 'git.team' && p.field.startsWith('broken.flow.yaml:')),
    JSON.stringify(failed.details),
  );
  s = await getGitSource({ db, now: () => clock }, src.id);
  assert.equal(s.lastSyncStatus, 'failed');
  assert.equal(s.lastSyncedSha, sha4);
  assert.match(s.lastError, /broken\.flow\.yaml/);

  // Fixed: the next sync succeeds and clears last_error.
  const fixed = repo.commit({ 'team/broken.flow.yaml': flow('broken') }, 'Fix it');
  await requestSync(db.pool, { sourceId: src.id, trigger: 'manual', requestedBy: 'x', now: clock });
  await w.tick();
  s = await getGitSource({ db, now: () => clock }, src.id);
  assert.equal(s.lastSyncStatus, 'success');
  assert.equal(s.lastSyncedSha, fixed);
  assert.equal(s.lastError, '');
  // Every sync is recorded, none deleted.
  assert.deepEqual(
    (await runs(src.id)).map((r) => r.status),
    ['success', 'success', 'success', 'success', 'failed', 'success'],
  );
});

test('a file over SVC_MAX_FILE_BYTES fails the sync before its content is read, changing nothing', async () => {
  const repo = new TestRepo(root, 'large');
  repo.commit({ 'small.txt': 's\n' }, 'one');
  const src = await source({ repo_url: repo.fileUrl, mappings: [{ namespace: 'large', repo_path: '' }] });
  const w = worker('w-large');
  await w.tick();
  repo.commit({ 'big.bin': 'x'.repeat((1 << 20) + 1) }, 'too big');
  await requestSync(db.pool, { sourceId: src.id, trigger: 'manual', requestedBy: 'x', now: clock });
  await w.tick();
  const last = (await runs(src.id)).at(-1)!;
  assert.equal(last.status, 'failed');
  assert.deepEqual(last.details.problems, [{ namespace: 'large', field: 'big.bin', message: `is ${(1 << 20) + 1} bytes; SVC_MAX_FILE_BYTES allows ${1 << 20}` }]);
  assert.deepEqual(Object.keys(await files('large')), ['small.txt']);
});

test('a mapped namespace refuses every write but the sync', async () => {
  const repo = new TestRepo(root, 'readonly');
  repo.commit({ 'a.txt': 'a\n' }, 'one');
  await source({ repo_url: repo.fileUrl, mappings: [{ namespace: 'ro', repo_path: '' }] });
  await worker('w-ro').tick();
  await assert.rejects(saveChanges(saveDeps(), { namespace: 'ro', message: 'x', author: 'me', changes: [{ op: 'put', path: 'b.txt', content: 'b' }] }), NamespaceReadOnlyError);
  await assert.rejects(revertVersion(saveDeps(), { namespace: 'ro', version: 0, author: 'me' }), NamespaceReadOnlyError);
  await assert.rejects(deleteNamespace(db.prisma, 'ro'), NamespaceReadOnlyError);
  assert.deepEqual(Object.keys(await files('ro')), ['a.txt']);
});

test('repeated requests become one queued run', async () => {
  const repo = new TestRepo(root, 'coalesce');
  repo.commit({ 'a.txt': 'a\n' }, 'one');
  const src = await source({ repo_url: repo.fileUrl, mappings: [{ namespace: 'coalesce', repo_path: '' }] });
  const ids = new Set<string>();
  for (let i = 0; i < 5; i++) ids.add((await requestSync(db.pool, { sourceId: src.id, trigger: 'webhook', requestedBy: 'webhook', now: clock })).id);
  assert.equal(ids.size, 1, 'the create queued one run; five more requests joined it');
  await worker('w-c').tick();
  assert.deepEqual(
    (await runs(src.id)).map((r) => r.status),
    ['success'],
  );
});

test('polling: two workers sync each new commit once, and a quiet poll records no run', async () => {
  const repo = new TestRepo(root, 'polled');
  const first = repo.commit({ 'a.txt': 'a\n' }, 'one');
  const src = await source({ repo_url: repo.fileUrl, poll_interval: 60, mappings: [{ namespace: 'polled', repo_path: '' }] });
  // The create's queued run is served by exactly one of the two.
  const [w1, w2] = [worker('instance-1'), worker('instance-2')];
  const both = async () => {
    const [a, b] = await Promise.all([w1.tick(), w2.tick()]);
    return [...a.synced, ...b.synced].filter((x) => x.sourceId === src.id);
  };
  assert.equal((await both()).length, 1);
  assert.deepEqual(
    (await runs(src.id)).map((r) => [r.trigger, r.status, r.sha]),
    [['manual', 'success', first]],
  );
  // Not due again before poll_interval.
  assert.equal((await both()).length, 0);

  // Due, nothing new: one of them looks, no run is recorded, last_sync_at moves.
  clock = new Date(clock.getTime() + 61_000);
  const quiet = await both();
  assert.deepEqual(
    quiet.map((x) => x.status),
    ['unchanged'],
  );
  assert.equal((await runs(src.id)).length, 1);
  assert.equal((await getGitSource({ db, now: () => clock }, src.id)).lastSyncAt!.getTime(), clock.getTime());

  // A new commit, many concurrent ticks: one poll run.
  const second = repo.commit({ 'a.txt': 'a2\n' }, 'two');
  clock = new Date(clock.getTime() + 61_000);
  const rounds = await Promise.all([both(), both(), both()]);
  assert.equal(rounds.flat().length, 1);
  assert.deepEqual(
    (await runs(src.id)).map((r) => [r.trigger, r.status, r.sha]),
    [
      ['manual', 'success', first],
      ['poll', 'success', second],
    ],
  );
});

test('a run left running by a stopped instance is failed by the next holder', async () => {
  const repo = new TestRepo(root, 'abandoned');
  repo.commit({ 'a.txt': 'a\n' }, 'one');
  const src = await source({ repo_url: repo.fileUrl, mappings: [{ namespace: 'abandoned', repo_path: '' }] });
  // A worker claimed the queued run and died: its run is `running`, its lease expired.
  await db.pool.query(`UPDATE git_sync_runs SET status = 'running' WHERE git_source_id = $1`, [src.id]);
  await inTransaction(db.pool, (c) => requestGitSync(c, { sourceId: src.id, runId: newId(), trigger: 'manual', requestedBy: 'x', now: clock }));
  await worker('w-a').tick();
  const r = await runs(src.id);
  assert.deepEqual(
    r.map((x) => x.status),
    ['failed', 'success'],
  );
  assert.match(r[0].error, /stopped/);
});

test('a missing credential secret fails the run and names the key only', async () => {
  const repo = new TestRepo(root, 'nocred');
  repo.commit({ 'a.txt': 'a\n' }, 'one');
  const src = await source({
    repo_url: 'https://127.0.0.1:1/nocred.git',
    auth_type: 'token',
    credential_secret_key: 'NO_SUCH_SECRET',
    mappings: [{ namespace: 'nocred', repo_path: '' }],
  });
  await worker('w-n').tick();
  const [r] = await runs(src.id);
  assert.equal(r.status, 'failed');
  assert.match(r.error, /NO_SUCH_SECRET/);
});

test('credentials reach git through files of a private scratch directory, removed on close, and never through arguments', () => {
  const key = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----';
  const ssh = openAuth({ authType: 'ssh', credential: key, knownHosts: '[127.0.0.1]:2222 ssh-ed25519 AAAAC3Nza' });
  assert.equal(fs.statSync(ssh.dir).mode & 0o777, 0o700);
  const keyFile = path.join(ssh.dir, 'id_key');
  assert.equal(fs.statSync(keyFile).mode & 0o777, 0o600);
  assert.equal(fs.readFileSync(keyFile, 'utf8'), `${key}\n`);
  assert.match(ssh.env.GIT_SSH_COMMAND!, /-o StrictHostKeyChecking=yes/);
  assert.match(ssh.env.GIT_SSH_COMMAND!, /-o UserKnownHostsFile='[^']+known_hosts'/);
  assert.match(ssh.env.GIT_SSH_COMMAND!, /-o GlobalKnownHostsFile=\/dev\/null/);
  assert.match(ssh.env.GIT_SSH_COMMAND!, /-o BatchMode=yes/);
  assert.ok(!ssh.env.GIT_SSH_COMMAND!.includes('b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ'));
  assert.equal(ssh.redactor.redact('key b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ leaked'), 'key *** leaked');
  ssh.close();
  assert.equal(fs.existsSync(ssh.dir), false);

  const token = openAuth({ authType: 'token', credential: 'tok-123456789', knownHosts: '' });
  assert.equal(token.env.SVC_GIT_PASSWORD, 'tok-123456789');
  assert.equal(token.env.SVC_GIT_USERNAME, 'x-access-token');
  assert.ok(!fs.readFileSync(token.env.GIT_ASKPASS!, 'utf8').includes('tok-123456789'), 'the script reads the token from its environment');
  assert.equal(token.redactor.redact('fatal: https://x-access-token:tok-123456789@h/x.git'), 'fatal: https://***@h/x.git');
  token.close();
  assert.equal(fs.existsSync(token.dir), false);
});

test('settings: transports, branches and repo paths', () => {
  assert.equal(transportOf('ext::sh -c touch% /tmp/pwned').ok, false);
  assert.equal(transportOf('-uhelp').ok, false);
  assert.equal(transportOf('https://u:p@example.com/x.git').ok, false);
  assert.deepEqual(transportOf('git@github.com:org/repo.git'), { ok: true, transport: 'ssh' });
  assert.deepEqual(transportOf('https://example.com/x.git'), { ok: true, transport: 'https' });
  assert.equal(branchProblem('feature/x'), null);
  assert.notEqual(branchProblem('a..b'), null);
  assert.notEqual(branchProblem('-x'), null);
  assert.deepEqual(normalizeRepoPath('/flows/team/'), { ok: true, path: 'flows/team' });
  assert.equal(normalizeRepoPath('a/../b').ok, false);
});
