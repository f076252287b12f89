// The process executor's start removes the per-instance directories that
// dead dispatchers left in a shared work directory, and keeps those of the
// dispatchers that are online, including one that starts beside it: it
// registers its instance just after this one read the online instances and
// makes its directories before this one lists them (two dispatchers of a
// test stack starting at once lost theirs so, and their tasks failed with
// ENOENT). On a real database: instances registered, stopped and never
// registered.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { createDb, listInstances, markInstanceStopped, newId, registerInstance, type Db } from '@svc/db';
import { createTestDatabase, type TestDatabase } from '@svc/db/testing';
import { removeDeadInstanceDirs } from '../src/executors/dead-instance-dirs.js';

let tdb: TestDatabase;
let db: Db;
let work: string;
before(async () => {
  tdb = await createTestDatabase();
  db = createDb({ url: tdb.url, poolSize: 2 });
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-dead-dirs-'));
});
after(async () => {
  await db.close();
  await tdb.drop();
  fs.rmSync(work, { recursive: true, force: true });
});

const register = (id: string) => registerInstance(db.pool, { id, kind: 'dispatcher', hostname: 'h', version: 'v', pools: ['default'], executors: ['process'] });

test('dead dispatchers lose their directories; online ones, this one and one starting beside it keep theirs', async () => {
  const parents = ['.bundle-cache', '.workdirs', '.runner-io'].map((p) => path.join(work, p));
  const [self, online, stopped, unknown, beside] = [newId(), newId(), newId(), newId(), newId()];
  await register(self);
  await register(online);
  await register(stopped);
  await markInstanceStopped(db.pool, stopped);
  const makeDirs = (id: string) => parents.forEach((p) => fs.mkdirSync(path.join(p, id, 'entry'), { recursive: true }));
  for (const id of [self, online, stopped, unknown]) makeDirs(id);

  const removed = await removeDeadInstanceDirs(parents, self, async () => {
    const ids = (await listInstances(db.pool)).filter((i) => i.online).map((i) => i.id);
    // A dispatcher starting now: registered after the read above, its directories made before this call goes on.
    await register(beside);
    makeDirs(beside);
    return ids;
  });

  const left = (p: string) => fs.readdirSync(p).sort();
  for (const p of parents) assert.deepEqual(left(p), [self, online, beside].sort(), p);
  assert.deepEqual(removed.sort(), parents.flatMap((p) => [path.join(p, stopped), path.join(p, unknown)]).sort());
});

test('a work directory with no directories yet is left as it is', async () => {
  const parents = [path.join(work, 'none-yet')];
  assert.deepEqual(await removeDeadInstanceDirs(parents, newId(), () => Promise.resolve([])), []);
  assert.equal(fs.existsSync(parents[0]!), false);
});
