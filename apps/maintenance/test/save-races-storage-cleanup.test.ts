// A save and the storage cleanup at the same time, many times, with the real
// clock (so a save's fresh uploads are young, as in production), and contents
// chosen to hit each interleaving of a save with the cleanup:
//
// - fresh content: uploaded by the save, no row until its transaction commits;
// - content whose row is there but old and unreferenced (a file of a deleted
//   snapshot): the save skips the upload, the cleanup may delete the row;
// - content whose object is there but old and without a row (an orphan): the
//   save uploads it again while the cleanup may be deleting it.
//
// Afterwards every file of every saved version must be readable, and the head
// must still bundle.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import { createNamespace, ensureBundle, loadManifest, saveChanges, type SaveDeps } from '@svc/namespaces';
import { cleanupStorage, type CleanupTally } from '../src/index.js';
import { DAY, HOUR, putObject, setupEnv, type TestEnv } from './support.js';

let env: TestEnv;
before(async () => {
  env = await setupEnv();
});
after(() => env.close());

const ROUNDS = 40;
const sha = (s: string) => crypto.createHash('sha256').update(s).digest('hex');
const fileKey = (h: string) => `files/${h.slice(0, 2)}/${h}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test(`a save racing the storage cleanup loses no file (${ROUNDS} rounds)`, async () => {
  const now = () => new Date();
  const deps: SaveDeps = { pool: env.db.pool, storage: env.storage, now, maxFileBytes: 1 << 20, maxBundleBytes: 10 << 20 };
  await createNamespace(env.db.pool, { name: 'race', createdBy: 't', now: now() });
  const stats = { saved: 0, staleRowsDeleted: 0, orphansDeleted: 0, restored: 0 };
  const tallies: CleanupTally[] = [];

  for (let round = 0; round < ROUNDS; round++) {
    const twoHoursAgo = new Date(Date.now() - 2 * HOUR);
    const stale = `stale row ${round}`;
    const orphan = `orphan object ${round}`;
    await env.db.pool.query(`INSERT INTO file_objects (hash, size, created_at, last_used_at) VALUES ($1, $2, $3, $3)`, [sha(stale), stale.length, twoHoursAgo]);
    await putObject(env, fileKey(sha(stale)), stale, twoHoursAgo);
    await putObject(env, fileKey(sha(orphan)), orphan, twoHoursAgo);
    // Work of its own for the cleanup: an orphan no save wants.
    await putObject(env, fileKey(sha(`unwanted ${round}`)), `unwanted ${round}`, twoHoursAgo);

    // Vary who starts first and by how much, so the runs interleave
    // differently: a save started up to 400 ms after the cleanup meets its
    // later steps (the settle pause, the row deletes).
    const saveFirst = round % 3 === 0;
    const offset = saveFirst ? (round % 5) * 3 : (round % 10) * 40 + (round % 7);
    const save = (async () => {
      if (!saveFirst) await sleep(offset);
      return saveChanges(deps, {
        namespace: 'race',
        message: `round ${round}`,
        author: 't',
        changes: [
          { op: 'put', path: `r${round}/fresh.txt`, content: `fresh content ${round}` },
          { op: 'put', path: `r${round}/stale.txt`, content: stale },
          { op: 'put', path: `r${round}/orphan.txt`, content: orphan },
          // Rewrites one earlier file each round, so versions differ in more than additions.
          { op: 'put', path: 'changing.txt', content: `changing ${round}` },
        ],
      });
    })();
    const cleanup = (async () => {
      if (saveFirst) await sleep(offset);
      return cleanupStorage({ db: env.db, storage: env.storage, log: env.log, settleMs: 300, batchSize: 50 }, now());
    })();
    const [v, tally] = await Promise.all([save, cleanup]);
    tallies.push(tally);
    stats.saved += 1;
    stats.staleRowsDeleted += tally.rows.file_objects;
    stats.orphansDeleted += tally.objects.files.objects;
    stats.restored += tally.kept.restored_files;
    // The version just saved reads whole.
    for (const [p, e] of await loadManifest(env.db.pool, v.id)) {
      assert.equal((await env.storage.getBuffer(fileKey(e.hash))).length, e.size, `round ${round}: ${p}`);
    }
  }

  // Every file of every version, then once more after a cleanup that finds
  // everything old: nothing a snapshot refers to is ever deleted.
  const checkAll = async (when: string) => {
    const versions = (await env.db.pool.query<{ id: string; version: number }>(`SELECT id, version FROM namespace_versions WHERE namespace = 'race' ORDER BY version`)).rows;
    assert.equal(versions.length, ROUNDS);
    let files = 0;
    for (const v of versions) {
      for (const [p, e] of await loadManifest(env.db.pool, v.id)) {
        const body = await env.storage.getBuffer(fileKey(e.hash)).catch(() => null);
        assert.ok(body, `${when}: version ${v.version} ${p} is missing its object`);
        assert.equal(sha(body.toString()), e.hash, `${when}: version ${v.version} ${p}`);
        files += 1;
      }
    }
    return files;
  };
  const files = await checkAll('after the races');
  assert.ok(files > ROUNDS * 3);
  await cleanupStorage({ db: env.db, storage: env.storage, log: env.log, settleMs: 0 }, new Date(Date.now() + 2 * DAY));
  await checkAll('after a later cleanup');
  const head = (
    await env.db.pool.query<{ snapshot_id: string }>(`SELECT v.snapshot_id FROM namespaces n JOIN namespace_versions v ON v.id = n.head_version_id WHERE n.name = 'race'`)
  ).rows[0]!;
  assert.ok((await ensureBundle(env.db.pool, env.storage, head.snapshot_id, new Date())).size > 0);
  // The cleanup did work during the races: each round's unwanted orphan was
  // deleted, or put back with its batch because a save was writing rows.
  assert.ok(stats.orphansDeleted + stats.restored >= ROUNDS, JSON.stringify(stats));
  console.log(`# race stats: ${JSON.stringify(stats)}`);
});
