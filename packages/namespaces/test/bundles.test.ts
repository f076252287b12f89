// Bundles: built once per snapshot, deterministic, executable bits kept; the
// archive extracts with the system tar to exactly the snapshot's files.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { createDb, type Db } from '@svc/db';
import { createTestDatabase, type TestDatabase } from '@svc/db/testing';
import { FileObjectStore } from '@svc/storage';
import { createNamespace, ensureBundle, saveChanges, type SaveDeps } from '../src/index.js';

let tdb: TestDatabase;
let db: Db;
let dir: string;
let deps: SaveDeps;

before(async () => {
  tdb = await createTestDatabase();
  db = createDb({ url: tdb.url, poolSize: 4 });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bundle-'));
  const storage = await FileObjectStore.open(path.join(dir, 'objects'));
  deps = { pool: db.pool, storage, now: () => new Date(), maxFileBytes: 1 << 20, maxBundleBytes: 10 << 20 };
  await createNamespace(db.pool, { name: 'ns', createdBy: 't', now: new Date() });
});
after(async () => {
  await db.close();
  await tdb.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a bundle holds the snapshot files with their modes, is built once, and is deterministic', async () => {
  const v = await saveChanges(deps, {
    namespace: 'ns',
    message: 'm',
    author: 'a',
    changes: [
      { op: 'put', path: 'run.sh', content: '#!/bin/sh\necho ok\n', executable: true },
      { op: 'put', path: 'lib/deep/data.json', content: '{"a":1}' },
      { op: 'put', path: 'bin.dat', content_base64: Buffer.from([0, 255, 1, 2]).toString('base64') },
    ],
  });
  const first = await ensureBundle(db.pool, deps.storage, v.snapshot_id, new Date());
  assert.equal(first.built, true);
  assert.match(first.hash, /^[0-9a-f]{64}$/);
  const second = await ensureBundle(db.pool, deps.storage, v.snapshot_id, new Date());
  assert.deepEqual({ ...second, built: true }, first, 'cached: same key, size and hash');
  assert.equal(second.built, false);

  const bytes = await deps.storage.getBuffer(first.key);
  assert.equal(bytes.length, first.size);
  const out = fs.mkdtempSync(path.join(dir, 'x-'));
  fs.writeFileSync(path.join(out, 'b.tar.gz'), bytes);
  execFileSync('tar', ['-xzf', 'b.tar.gz', '-C', out, '--no-same-owner'], { cwd: out });
  assert.equal(fs.readFileSync(path.join(out, 'run.sh'), 'utf8'), '#!/bin/sh\necho ok\n');
  assert.equal(fs.statSync(path.join(out, 'run.sh')).mode & 0o111, 0o111, 'executable bit kept');
  assert.equal(fs.statSync(path.join(out, 'lib/deep/data.json')).mode & 0o111, 0);
  assert.deepEqual([...fs.readFileSync(path.join(out, 'bin.dat'))], [0, 255, 1, 2]);
  assert.deepEqual(
    execFileSync('tar', ['-tzf', path.join(out, 'b.tar.gz')], { encoding: 'utf8' })
      .trim()
      .split('\n'),
    ['bin.dat', 'lib/', 'lib/deep/', 'lib/deep/data.json', 'run.sh'],
  );

  // Rebuilding from scratch (cache lost) gives the same bytes.
  await deps.storage.delete(first.key);
  const rebuilt = await ensureBundle(db.pool, deps.storage, v.snapshot_id, new Date());
  assert.equal(rebuilt.built, true);
  assert.equal(rebuilt.hash, first.hash);
});

test('concurrent builds of one snapshot agree', async () => {
  const v = await saveChanges(deps, { namespace: 'ns', message: 'm', author: 'a', changes: [{ op: 'put', path: 'more.txt', content: 'more' }] });
  const results = await Promise.all([1, 2, 3].map(() => ensureBundle(db.pool, deps.storage, v.snapshot_id, new Date())));
  assert.equal(new Set(results.map((r) => r.hash)).size, 1);
  const row = (await db.pool.query(`SELECT bundle_hash FROM snapshots WHERE id = $1`, [v.snapshot_id])).rows[0];
  assert.equal(row.bundle_hash, results[0]!.hash);
});

test('a file object changed in the store fails the build with a clear error, and no bundle is stored', async () => {
  const v = await saveChanges(deps, {
    namespace: 'ns',
    message: 'm',
    author: 'a',
    changes: [
      { op: 'put', path: 'a-first.txt', content: 'untouched' },
      { op: 'put', path: 'run.sh', content: '#!/bin/sh\necho genuine\n', executable: true },
    ],
  });
  const hash = crypto.createHash('sha256').update('#!/bin/sh\necho genuine\n').digest('hex');
  // Someone with access to the object store overwrites the file object (same key, other bytes).
  await deps.storage.put(`files/${hash.slice(0, 2)}/${hash}`, Buffer.from('#!/bin/sh\necho tampered\n'));
  await assert.rejects(ensureBundle(db.pool, deps.storage, v.snapshot_id, new Date()), (err: Error) => {
    assert.equal(err.name, 'FileObjectHashMismatchError');
    assert.match(err.message, /file "run\.sh" of snapshot .* does not match its sha256 in the object store/);
    assert.ok(err.message.includes(`expected ${hash}`), err.message);
    assert.ok(!err.message.includes('tampered'), 'the content is not in the message');
    return true;
  });
  assert.equal(await deps.storage.exists(`bundles/${v.snapshot_id}.tar.gz`), false, 'no bundle under the key');
  const row = (await db.pool.query(`SELECT bundle_key, bundle_hash FROM snapshots WHERE id = $1`, [v.snapshot_id])).rows[0];
  assert.deepEqual(row, { bundle_key: null, bundle_hash: null });

  // The object put back as it was: the bundle builds.
  await deps.storage.put(`files/${hash.slice(0, 2)}/${hash}`, Buffer.from('#!/bin/sh\necho genuine\n'));
  const built = await ensureBundle(db.pool, deps.storage, v.snapshot_id, new Date());
  assert.equal(built.built, true);
});
