// A repository that holds symbolic links (to a file outside, to a directory
// above the repository, to the root) syncs none of them: the sync reads git
// objects, not a checkout, skips links with a reason, and no namespace file
// ever holds what a link points at.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { createDb, newId, type Db } from '@svc/db';
import { createTestDatabase, type TestDatabase } from '@svc/db/testing';
import { generateMasterKey, PlatformSecretStore } from '@svc/secrets';
import { FileObjectStore } from '@svc/storage';
import { createGitSource, GitSyncWorker, parseGitSourceInput } from '../src/index.js';
import { TestRepo, tempRoot } from '../src/testing.js';

let tdb: TestDatabase;
let db: Db;
let root: string;
let storage: FileObjectStore;
const canaryDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hostile-git-canary-'));
const canary = path.join(canaryDir, 'secret.txt');
const CANARY_TEXT = `GIT-CANARY-${process.pid}`;

before(async () => {
  fs.writeFileSync(canary, CANARY_TEXT, { mode: 0o600 });
  tdb = await createTestDatabase();
  db = createDb({ url: tdb.url, poolSize: 4 });
  root = tempRoot();
  storage = await FileObjectStore.open(path.join(root, 'objects'));
});
after(async () => {
  await db.close();
  await tdb.drop();
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(canaryDir, { recursive: true, force: true });
});

test('symbolic links in a repository are skipped by the sync and nothing they point at is read', async () => {
  const repo = new TestRepo(root, 'links');
  const work = path.join(root, '.work-links');
  fs.mkdirSync(path.join(work, 'team'), { recursive: true });
  fs.symlinkSync(canary, path.join(work, 'team/leak.txt'));
  fs.symlinkSync('../../../../../../../../', path.join(work, 'team/up'));
  fs.symlinkSync('/', path.join(work, 'team/root'));
  repo.commit({ 'team/ok.flow.yaml': JSON.stringify({ id: 'ok', tasks: [{ id: 't', type: 'command', command: ['true'] }] }) }, 'links');
  const parsed = parseGitSourceInput({ name: `src-${newId()}`, repo_url: repo.fileUrl, mappings: [{ namespace: 'git.links', repo_path: 'team' }] });
  assert.ok(parsed.ok, JSON.stringify(parsed));
  const now = () => new Date();
  await createGitSource({ db, now }, parsed.settings, 'admin@example.test');
  const log = { info: () => undefined, warn: () => undefined };
  const w = new GitSyncWorker({
    db,
    pool: db.pool,
    storage,
    now,
    maxFileBytes: 1 << 20,
    maxBundleBytes: 10 << 20,
    credentials: new PlatformSecretStore({ db: db.pool, keys: [generateMasterKey('k1')] }),
    log,
    holderId: 'w',
  });
  const t = await w.tick();
  assert.deepEqual(
    t.synced.map((s) => s.status),
    ['success'],
  );
  const files = (
    await db.pool.query(
      `SELECT f.path FROM namespaces n JOIN namespace_versions v ON v.id = n.head_version_id JOIN snapshot_files f ON f.snapshot_id = v.snapshot_id WHERE n.name = 'git.links' ORDER BY f.path`,
    )
  ).rows.map((r) => r.path);
  assert.deepEqual(files, ['ok.flow.yaml']);
  const run = (await db.pool.query(`SELECT details FROM git_sync_runs ORDER BY started_at DESC LIMIT 1`)).rows[0];
  assert.deepEqual(run.details.skipped.map((x: any) => [x.path, x.reason]).sort(), [
    ['leak.txt', 'symbolic link'],
    ['root', 'symbolic link'],
    ['up', 'symbolic link'],
  ]);
  // No stored object holds the canary.
  const walk = (d: string): string[] => fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]));
  for (const f of walk(path.join(root, 'objects'))) assert.ok(!fs.readFileSync(f).includes(CANARY_TEXT), f);
  assert.deepEqual(fs.readdirSync(canaryDir), ['secret.txt']);
});
