// Prisma and the hand-written SQL run on one pg.Pool: a process holds at most
// `poolSize` connections, and Prisma opens none of its own.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { createDb, prismaOf, type Db } from '../src/client.js';
import { createTestDatabase, type TestDatabase } from '../src/testing.js';

let tdb: TestDatabase;
let db: Db;
let observer: pg.Client;
const APP = 'svc-one-pool-test';

before(async () => {
  tdb = await createTestDatabase();
  db = createDb({ url: tdb.url, poolSize: 3, applicationName: APP });
  observer = new pg.Client({ connectionString: tdb.url, application_name: 'observer' });
  await observer.connect();
});
after(async () => {
  await observer.end();
  await db.close();
  await tdb.drop();
});

async function connectionsOfApp(): Promise<number> {
  const r = await observer.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1`, [APP]);
  return r.rows[0]!.n;
}

test('Prisma queries and transactions check connections out of the same pg.Pool', async () => {
  assert.equal(db.pool.totalCount, 0);
  assert.deepEqual(await db.prisma.$queryRaw`SELECT 1 AS one`, [{ one: 1 }]);
  // The pool grew for Prisma's query: it is Prisma's pool.
  assert.equal(db.pool.totalCount, 1);
  await db.pool.query('SELECT 1');
  assert.equal(db.pool.totalCount, 1, 'the raw query reuses the idle connection Prisma returned');

  // Busy on every side at once: six Prisma transactions and six raw queries,
  // each holding its connection for a moment, never exceed the pool's three.
  let most = 0;
  const watch = setInterval(() => void connectionsOfApp().then((n) => (most = Math.max(most, n))), 5);
  try {
    await Promise.all([
      ...Array.from({ length: 6 }, () => db.prisma.$transaction(async (tx) => tx.$queryRaw`SELECT pg_sleep(0.05)::text`)),
      ...Array.from({ length: 6 }, () => db.pool.query('SELECT pg_sleep(0.05)')),
    ]);
  } finally {
    clearInterval(watch);
  }
  most = Math.max(most, await connectionsOfApp());
  assert.ok(db.pool.totalCount <= 3, `pool has ${db.pool.totalCount} connections`);
  assert.ok(most >= 2 && most <= 3, `PostgreSQL saw ${most} connections of the app; one pool of 3 allows at most 3`);
});

test('prismaOf(pool) is the Prisma client of that pool; a checked-out client has none', async () => {
  assert.equal(prismaOf(db.pool), db.prisma);
  assert.equal(prismaOf(db.prisma), db.prisma);
  const c = await db.pool.connect();
  try {
    assert.throws(() => prismaOf(c as unknown as pg.Pool), TypeError);
  } finally {
    c.release();
  }
});
