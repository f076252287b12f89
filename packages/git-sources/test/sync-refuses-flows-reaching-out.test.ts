// A git sync and what a flow names outside its namespace: a
// commit whose flow has a subflow into a namespace that does not allow the
// mapped one fails the sync like an invalid file, naming the namespace and
// the field, and changes nothing in any mapping; once the target lists the
// mapped namespace in its allowed callers, the same commit syncs.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { createDb, type Db } from '@svc/db';
import { createTestDatabase, type TestDatabase } from '@svc/db/testing';
import { createNamespace, setAllowedCallers } from '@svc/namespaces';
import { generateMasterKey, PlatformSecretStore, SecretStore } from '@svc/secrets';
import { FileObjectStore } from '@svc/storage';
import { createGitSource, GitSyncWorker, parseGitSourceInput, requestSync } from '../src/index.js';
import { TestRepo, tempRoot } from '../src/testing.js';

let tdb: TestDatabase;
let db: Db;
let storage: FileObjectStore;
let root: string;
const clock = new Date('2026-12-06T10:00:00Z');

before(async () => {
  tdb = await createTestDatabase();
  db = createDb({ url: tdb.url, poolSize: 4 });
  root = tempRoot();
  storage = await FileObjectStore.open(path.join(root, 'objects'));
});
after(async () => {
  await db.close();
  await tdb.drop();
  fs.rmSync(root, { recursive: true, force: true });
});

async function flowsOf(namespace: string): Promise<string[]> {
  return (await db.pool.query<{ flow_id: string }>(`SELECT flow_id FROM flows WHERE namespace = $1 AND deleted_at IS NULL ORDER BY flow_id`, [namespace])).rows.map(
    (r) => r.flow_id,
  );
}

test('a commit whose flow reaches another namespace fails the sync and changes nothing, until the target allows it', async () => {
  await createNamespace(db.pool, { name: 'team-b', createdBy: 'test', now: clock });
  const repo = new TestRepo(root, 'flows');
  repo.commit(
    {
      'a/ok.flow.yaml': JSON.stringify({ id: 'ok', tasks: [{ id: 't', type: 'command', command: ['true'] }] }),
      'a/cross.flow.yaml': JSON.stringify({ id: 'cross', tasks: [{ id: 'c', type: 'subflow', flow: 'team-b/target' }] }),
      'other/fine.flow.yaml': JSON.stringify({ id: 'fine', tasks: [{ id: 't', type: 'command', command: ['true'] }] }),
    },
    'A flow that calls team-b',
  );
  const parsed = parseGitSourceInput({
    name: 'flows',
    repo_url: repo.fileUrl,
    mappings: [
      { namespace: 'git.other', repo_path: 'other' },
      { namespace: 'git.a', repo_path: 'a' },
    ],
  });
  assert.ok(parsed.ok, JSON.stringify(parsed));
  const src = await createGitSource({ db, now: () => clock }, parsed.settings, 'admin@example.test');
  const keys = [generateMasterKey('k1')];
  // Both stores: the worker reads the one its build names (the source has no credential).
  const deps = {
    db,
    pool: db.pool,
    storage,
    now: () => clock,
    maxFileBytes: 1 << 20,
    maxBundleBytes: 10 << 20,
    secrets: new SecretStore({ db: db.pool, keys }),
    credentials: new PlatformSecretStore({ db: db.pool, keys }),
    log: { info: () => undefined, warn: () => undefined },
    holderId: 'w1',
  };
  const w = new GitSyncWorker(deps);

  const refused = await w.tick();
  assert.deepEqual(
    refused.synced.map((s) => s.status),
    ['failed'],
  );
  const run = (await db.pool.query(`SELECT status, error, details FROM git_sync_runs WHERE git_source_id = $1 ORDER BY started_at DESC, id DESC LIMIT 1`, [src.id])).rows[0];
  assert.equal(run.status, 'failed');
  assert.match(run.error, /git\.a cross\.flow\.yaml:\/tasks\/0\/flow: task "c": a subflow of namespace git\.a may not start a flow of namespace team-b/);
  assert.deepEqual(
    run.details.problems.map((p: { namespace: string; field: string }) => [p.namespace, p.field]),
    [['git.a', 'cross.flow.yaml:/tasks/0/flow']],
  );
  assert.deepEqual(await flowsOf('git.a'), [], 'nothing written to the namespace at fault');
  assert.deepEqual(await flowsOf('git.other'), [], 'nor to any other mapping');

  // Allowed by team-b (git covers git.a): the same commit syncs.
  await setAllowedCallers(db.pool, 'team-b', ['git'], clock);
  await requestSync(db.pool, { sourceId: src.id, trigger: 'manual', requestedBy: 'x', now: clock });
  const synced = await w.tick();
  assert.deepEqual(
    synced.synced.map((s) => s.status),
    ['success'],
  );
  assert.deepEqual(await flowsOf('git.a'), ['cross', 'ok']);
  assert.deepEqual(await flowsOf('git.other'), ['fine']);
});
