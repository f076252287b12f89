// The storage cleanup, one rule at a time, against a real database and a real
// file object store, with an injected clock (object ages are set on the files).
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { newId } from '@svc/db';
import { createNamespace, deleteNamespace, ensureBundle, saveChanges, type SaveDeps } from '@svc/namespaces';
import { cleanupStorage, readCleanupRecord, runStorageCleanupIfDue, type CleanupDeps } from '../src/index.js';
import { count, DAY, HOUR, keysUnder, putObject, seedExecution, seedSnapshot, setModified, setupEnv, testClock, type TestEnv } from './support.js';

let env: TestEnv;
let deps: CleanupDeps;
before(async () => {
  env = await setupEnv();
  deps = { db: env.db, storage: env.storage, log: env.log, metrics: env.metrics, batchSize: 2, settleMs: 0 };
});
after(() => env.close());

const sha = (s: string) => crypto.createHash('sha256').update(s).digest('hex');
const fileKey = (h: string) => `files/${h.slice(0, 2)}/${h}`;
const saveDeps = (now: () => Date): SaveDeps => ({ pool: env.db.pool, storage: env.storage, now, maxFileBytes: 1 << 20, maxBundleBytes: 10 << 20 });

test('objects without a row are deleted once older than 1 hour; young ones, objects with rows and foreign prefixes stay', async () => {
  const t0 = testClock().now();
  const old = new Date(t0.getTime() - 2 * HOUR);
  const young = new Date(t0.getTime() - 50 * 60_000);
  const snap = await seedSnapshot(env.db, { createdAt: old });
  const ex = await seedExecution(env.db, { snapshotId: snap, createdAt: old, endedAt: old });
  const tr = newId();
  await env.db.pool.query(`INSERT INTO task_runs (id, execution_id, task_key, task_type, executor_type, state) VALUES ($1, $2, 't', 'command', 'process', 'SUCCESS')`, [tr, ex]);
  const keptArtifact = `artifacts/${ex}/${tr}/kept.txt`;
  await putObject(env, keptArtifact, 'kept', old);
  await env.db.pool.query(`INSERT INTO artifacts (id, execution_id, task_run_id, name, object_key, size, sha256) VALUES ($1, $2, $3, 'kept.txt', $4, 4, 'x')`, [
    newId(),
    ex,
    tr,
    keptArtifact,
  ]);
  const keptLog = `logs/${ex}.log.gz`;
  await putObject(env, keptLog, 'gz', old);
  await env.db.pool.query(`INSERT INTO log_archives (execution_id, object_key, size, line_count) VALUES ($1, $2, 2, 1)`, [ex, keptLog]);

  const gone = [
    fileKey(sha('orphan content')),
    'files/zz/not-a-content-address',
    `bundles/${newId()}.tar.gz`,
    `artifacts/${newId()}/${newId()}/of-a-deleted-execution.txt`,
    `artifacts/${ex}/${tr}/no-row.txt`,
    `logs/${newId()}.log.gz`,
    'health/instance-1/probe',
  ];
  const stay = [
    fileKey(sha('young orphan')),
    `bundles/${newId()}.tar.gz`,
    `artifacts/${newId()}/${newId()}/young.txt`,
    'health/instance-2/probe',
    keptArtifact,
    keptLog,
    'operator/notes.txt',
  ];
  for (const k of gone) await putObject(env, k, gone.indexOf(k) === 0 ? 'orphan content' : 'x', old);
  for (const k of stay.slice(0, 4)) await putObject(env, k, k.startsWith('files/') ? 'young orphan' : 'x', young);
  await putObject(env, 'operator/notes.txt', 'mine', new Date(t0.getTime() - 300 * DAY));

  const tally = await cleanupStorage(deps, t0);
  const left = await keysUnder(env);
  for (const k of gone) assert.ok(!left.includes(k), `${k} deleted`);
  for (const k of stay) assert.ok(left.includes(k), `${k} kept`);
  assert.equal(tally.objects.files.objects, 2);
  assert.equal(tally.objects.files.bytes, 'orphan content'.length + 1);
  assert.equal(tally.objects.bundles.objects, 1);
  assert.equal(tally.objects.artifacts.objects, 2);
  assert.equal(tally.objects.logs.objects, 1);
  assert.equal(tally.objects.other.objects, 1, 'the health probe');
  assert.ok(tally.kept.young_objects >= 4);
  for (const k of stay.slice(0, 4)) await env.storage.delete(k);
});

test('an upload object stays while its upload row or a file input points at it; one without either goes', async () => {
  const t0 = testClock().now();
  const old = new Date(t0.getTime() - 2 * HOUR);
  const snap = await seedSnapshot(env.db, { createdAt: old });
  const ex = await seedExecution(env.db, { snapshotId: snap, createdAt: old, endedAt: old });
  const waiting = `uploads/team-a/${newId()}`;
  const used = `uploads/team-a/${newId()}`;
  const orphan = `uploads/team-a/${newId()}`;
  for (const k of [waiting, used, orphan]) await putObject(env, k, 'a,b\n', old);
  await env.db.pool.query(`INSERT INTO uploads (id, namespace, name, object_key, size, sha256, expires_at) VALUES ($1, 'team-a', 'w.csv', $2, 4, 'x', now() + interval '1 day')`, [
    waiting.split('/')[2],
    waiting,
  ]);
  // Its upload expired and went; the execution's file input still points at the object.
  await env.db.pool.query(
    `INSERT INTO artifacts (id, execution_id, task_run_id, name, object_key, size, sha256, kind) VALUES ($1, $2, NULL, 'report/u.csv', $3, 4, 'x', 'input')`,
    [newId(), ex, used],
  );
  await cleanupStorage(deps, t0);
  const left = await keysUnder(env, 'uploads/');
  assert.ok(left.includes(waiting), 'the waiting upload stays');
  assert.ok(left.includes(used), 'the object of a file input stays');
  assert.ok(!left.includes(orphan), 'an object without a row goes');
});

test('a bundle unused for 7 days is deleted and forgotten; one used, built or pinned by a live or recent execution stays', async () => {
  const clock = testClock();
  const t0 = clock.now();
  const days = (n: number) => new Date(t0.getTime() - n * DAY);
  // A real bundle of a saved version, built and last fetched 8 days ago.
  await createNamespace(env.db.pool, { name: 'bund', createdBy: 't', now: days(9) });
  const v = await saveChanges(
    saveDeps(() => days(9)),
    { namespace: 'bund', message: 'm', author: 'a', changes: [{ op: 'put', path: 'run.sh', content: 'echo hi' }] },
  );
  const built = await ensureBundle(env.db.pool, env.storage, v.snapshot_id, days(8));
  setModified(env, built.key, days(8));
  // Bundles of snapshots pinned by executions (which keep the snapshots themselves).
  const withBundle = async (lastUsed: Date) => {
    const id = newId();
    await seedSnapshot(env.db, { id, createdAt: days(30), lastUsedAt: lastUsed, bundleKey: `bundles/${id}.tar.gz`, bundleBuiltAt: days(30) });
    await putObject(env, `bundles/${id}.tar.gz`, 'tgz', days(30));
    return id;
  };
  const usedRecently = await withBundle(days(6));
  await seedExecution(env.db, { snapshotId: usedRecently, createdAt: days(40), endedAt: days(40) });
  const live = await withBundle(days(20));
  await seedExecution(env.db, { snapshotId: live, createdAt: days(20) });
  const endedRecently = await withBundle(days(20));
  await seedExecution(env.db, { snapshotId: endedRecently, createdAt: days(20), endedAt: days(2) });
  const unused = await withBundle(days(8));
  await seedExecution(env.db, { snapshotId: unused, createdAt: days(40), endedAt: days(40) });

  const tally = await cleanupStorage(deps, t0);
  assert.equal(tally.rows.bundles_released, 2);
  const bundles = await keysUnder(env, 'bundles/');
  assert.ok(!bundles.includes(built.key) && !bundles.includes(`bundles/${unused}.tar.gz`), 'unused bundles deleted');
  for (const id of [usedRecently, live, endedRecently]) assert.ok(bundles.includes(`bundles/${id}.tar.gz`), `bundle of ${id} kept`);
  const cols = (await env.db.pool.query(`SELECT id, bundle_key FROM snapshots WHERE id = ANY($1)`, [[v.snapshot_id, unused, live]])).rows;
  assert.deepEqual(Object.fromEntries(cols.map((c) => [c.id, c.bundle_key])), { [v.snapshot_id]: null, [unused]: null, [live]: `bundles/${live}.tar.gz` });
  // The next fetch builds it again.
  const rebuilt = await ensureBundle(env.db.pool, env.storage, v.snapshot_id, t0);
  assert.equal(rebuilt.built, true);
  assert.equal(rebuilt.hash, built.hash);
});

test('a bundle fetched just as it is released keeps its object for that fetch', async () => {
  const t0 = testClock().now();
  const id = newId();
  const key = `bundles/${id}.tar.gz`;
  await seedSnapshot(env.db, { id, createdAt: new Date(t0.getTime() - 30 * DAY), lastUsedAt: new Date(t0.getTime() - 8 * DAY), bundleKey: key });
  await seedExecution(env.db, { snapshotId: id, createdAt: new Date(t0.getTime() - 30 * DAY), endedAt: new Date(t0.getTime() - 30 * DAY) });
  await putObject(env, key, 'tgz', new Date(t0.getTime() - 8 * DAY));
  const running = cleanupStorage({ ...deps, settleMs: 1_000 }, t0);
  // A fetch that read the row before it was cleared touches last_used_at (ensureBundle), then streams the key.
  for (let i = 0; i < 200; i++) {
    if ((await env.db.pool.query(`SELECT 1 FROM snapshots WHERE id = $1 AND bundle_key IS NULL`, [id])).rowCount) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  await env.db.pool.query(`UPDATE snapshots SET last_used_at = $2 WHERE id = $1`, [id, t0]);
  const tally = await running;
  assert.equal(tally.rows.bundles_released, 1);
  assert.equal((await env.storage.getBuffer(key)).toString(), 'tgz', 'the fetch can still stream it');
  // Unreferenced now (its row no longer names it), it goes as an object without a row a day later.
  await cleanupStorage(deps, new Date(t0.getTime() + DAY));
  assert.equal(await env.storage.exists(key), false);
});

test('unreferenced snapshots go with their files and bundle; file rows no snapshot refers to go, and their objects at the next run', async () => {
  const clock = testClock();
  const t0 = clock.now();
  const ago = (ms: number) => new Date(t0.getTime() - ms);
  await createNamespace(env.db.pool, { name: 'gone', createdBy: 't', now: ago(3 * HOUR) });
  await createNamespace(env.db.pool, { name: 'keep', createdBy: 't', now: ago(3 * HOUR) });
  const goneV = await saveChanges(
    saveDeps(() => ago(3 * HOUR)),
    {
      namespace: 'gone',
      message: 'm',
      author: 'a',
      changes: [
        { op: 'put', path: 'only-here.txt', content: 'content only gone has' },
        { op: 'put', path: 'shared.txt', content: 'content both have' },
      ],
    },
  );
  await saveChanges(
    saveDeps(() => ago(3 * HOUR)),
    { namespace: 'keep', message: 'm', author: 'a', changes: [{ op: 'put', path: 'copy.txt', content: 'content both have' }] },
  );
  const bundle = await ensureBundle(env.db.pool, env.storage, goneV.snapshot_id, ago(3 * HOUR));
  await deleteNamespace(env.db.pool, 'gone');
  // An unreferenced snapshot used within the hour, and one only an execution pins.
  const fresh = await seedSnapshot(env.db, { createdAt: ago(2 * HOUR), lastUsedAt: ago(10 * 60_000) });
  const pinned = await seedSnapshot(env.db, { createdAt: ago(100 * DAY) });
  await seedExecution(env.db, { snapshotId: pinned, createdAt: ago(100 * DAY), endedAt: ago(99 * DAY) });
  // A file row nobody refers to yet, 30 minutes old (a save between its upload and its snapshot).
  const youngRow = sha('uploaded half an hour ago');
  await env.db.pool.query(`INSERT INTO file_objects (hash, size, created_at, last_used_at) VALUES ($1, 1, $2, $2)`, [youngRow, ago(30 * 60_000)]);

  const only = sha('content only gone has');
  const shared = sha('content both have');
  const tally = await cleanupStorage(deps, t0);
  assert.equal(await count(env.db, `SELECT 1 FROM snapshots WHERE id = $1`, [goneV.snapshot_id]), 0);
  assert.equal(await count(env.db, `SELECT 1 FROM snapshot_files WHERE snapshot_id = $1`, [goneV.snapshot_id]), 0);
  assert.equal(await count(env.db, `SELECT 1 FROM snapshots WHERE id = ANY($1)`, [[fresh, pinned]]), 2);
  assert.ok(!(await env.storage.exists(bundle.key)), 'the bundle of the deleted snapshot is deleted');
  assert.ok(tally.rows.snapshots >= 1);
  assert.equal(await count(env.db, `SELECT 1 FROM file_objects WHERE hash = $1`, [only]), 0, 'the row no snapshot refers to is deleted');
  assert.equal(await count(env.db, `SELECT 1 FROM file_objects WHERE hash = ANY($1)`, [[shared, youngRow]]), 2);
  assert.ok(await env.storage.exists(fileKey(only)), 'its object waits for the next run');

  clock.advance(DAY);
  await cleanupStorage(deps, clock.now());
  assert.ok(!(await env.storage.exists(fileKey(only))), 'deleted by the next run, as an object without a row');
  assert.ok(await env.storage.exists(fileKey(shared)));
});

test('a save that saw a row the cleanup then deletes still finds the object when it writes the row again', async () => {
  const clock = testClock();
  const t0 = clock.now();
  const content = 'a file of a deleted snapshot, saved again';
  const h = sha(content);
  const old = new Date(t0.getTime() - 3 * HOUR);
  await env.db.pool.query(`INSERT INTO file_objects (hash, size, created_at, last_used_at) VALUES ($1, $2, $3, $3)`, [h, content.length, old]);
  await putObject(env, fileKey(h), content, old);
  // The save's first phase (save.ts prepare): the row is there, so it uploads nothing.
  assert.equal((await env.db.pool.query(`SELECT hash FROM file_objects WHERE hash = $1`, [h])).rowCount, 1);
  const tally = await cleanupStorage(deps, t0);
  assert.ok(tally.rows.file_objects >= 1);
  assert.equal((await env.db.pool.query(`SELECT 1 FROM file_objects WHERE hash = $1`, [h])).rowCount, 0, 'the cleanup deleted the row');
  // The save's transaction (snapshotFor) writes the row again and refers to it.
  await env.db.pool.query(
    `INSERT INTO file_objects (hash, size, created_at, last_used_at) VALUES ($1, $2, $3, $3) ON CONFLICT (hash) DO UPDATE SET last_used_at = EXCLUDED.last_used_at`,
    [h, content.length, t0],
  );
  assert.equal((await env.storage.getBuffer(fileKey(h))).toString(), content, 'the object outlived its row');
  clock.advance(DAY);
  await cleanupStorage(deps, clock.now());
  assert.equal((await env.storage.getBuffer(fileKey(h))).toString(), content, 'and the next run keeps it: it has a row again');
  await env.db.pool.query(`DELETE FROM file_objects WHERE hash = $1`, [h]);
  await env.storage.delete(fileKey(h));
});

test('a file object deleted while a save writes its row is put back', async () => {
  const t0 = testClock().now();
  const content = 'uploaded again by a save';
  const h = sha(content);
  await putObject(env, fileKey(h), content, new Date(t0.getTime() - 2 * HOUR));
  const running = cleanupStorage({ ...deps, settleMs: 1_500 }, t0);
  // Once the cleanup has deleted it (inside its placeholder transaction), a
  // save's transaction writes the row: it waits for the cleanup.
  for (let i = 0; (await env.storage.exists(fileKey(h))) && i < 200; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(await env.storage.exists(fileKey(h)), false, 'the cleanup deleted the orphan');
  const save = new pg.Client({ connectionString: env.tdb.url });
  await save.connect();
  await save.query('BEGIN');
  const rowWritten = save.query(
    `INSERT INTO file_objects (hash, size, created_at, last_used_at) VALUES ($1, $2, now(), now()) ON CONFLICT (hash) DO UPDATE SET last_used_at = EXCLUDED.last_used_at`,
    [h, content.length],
  );
  const tally = await running;
  await rowWritten;
  await save.query('COMMIT');
  await save.end();
  assert.equal(tally.kept.restored_files, 1);
  assert.equal(tally.objects.files.objects, 0);
  assert.equal((await env.storage.getBuffer(fileKey(h))).toString(), content);
});

test('the cleanup runs at most once in 24 hours and records when and what it removed', async () => {
  const clock = testClock(new Date(Date.now() + 10 * DAY));
  const first = await runStorageCleanupIfDue({ ...deps, instanceId: 'inst-a' }, clock.now());
  assert.equal(first.ran, true);
  const rec = await readCleanupRecord(env.db.pool);
  assert.equal(rec?.outcome, 'ok');
  assert.equal(rec?.instance_id, 'inst-a');
  assert.equal(rec?.started_at, clock.now().toISOString());
  assert.ok(rec?.finished_at && rec.duration_ms !== null);
  assert.ok(rec && 'files' in rec.objects && 'snapshots' in rec.rows);

  clock.advance(23 * HOUR);
  const second = await runStorageCleanupIfDue({ ...deps, instanceId: 'inst-b' }, clock.now());
  assert.equal(second.ran, false);
  assert.equal(second.ran === false && second.last?.instance_id, 'inst-a');

  clock.advance(HOUR);
  // Two instances that both find it due: exactly one runs it.
  const both = await Promise.all(['inst-c', 'inst-d'].map((instanceId) => runStorageCleanupIfDue({ ...deps, instanceId }, clock.now())));
  assert.equal(both.filter((b) => b.ran).length, 1);
  assert.match((await readCleanupRecord(env.db.pool))?.instance_id ?? '', /^inst-[cd]$/);
});
