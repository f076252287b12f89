// A connection lost while it is checked out of the pool (a database restart
// in the middle of a transaction) must not crash the process: pg emits
// 'error' on the client, which the pool listens for only while it is idle.
// The transaction fails, the broken client is dropped on release, and the
// pool serves the next query. (Found by e2e/test/faults-postgres-restart:
// both dispatchers died of it.)
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { createDb, type Db } from '../src/client.js';
import { inTransaction } from '../src/transaction.js';
import { createTestDatabase, type TestDatabase } from '../src/testing.js';

let tdb: TestDatabase;
let db: Db;
let admin: pg.Client;
const APP = 'svc-lost-connection-test';

before(async () => {
  tdb = await createTestDatabase();
  db = createDb({ url: tdb.url, poolSize: 2, applicationName: APP });
  admin = new pg.Client({ connectionString: tdb.url });
  await admin.connect();
});
after(async () => {
  await admin.end();
  await db.close();
  await tdb.drop();
});

test('a backend terminated under a checked-out client fails its transaction, not the process; the pool recovers', async () => {
  const uncaught: unknown[] = [];
  const onUncaught = (err: unknown) => uncaught.push(err);
  process.on('uncaughtException', onUncaught);
  try {
    const tx = inTransaction(db.pool, async (c) => {
      await c.query('SELECT 1');
      // Between two statements, idle in the transaction: the backend goes away.
      await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()`, [APP]);
      await new Promise((r) => setTimeout(r, 300));
      await c.query('SELECT 2');
    });
    await assert.rejects(tx, 'the transaction fails');
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(uncaught, [], 'no uncaught error');
    const r = await db.pool.query<{ n: number }>('SELECT 42 AS n');
    assert.equal(r.rows[0]!.n, 42, 'the pool serves the next query on a new connection');
  } finally {
    process.off('uncaughtException', onUncaught);
  }
});
