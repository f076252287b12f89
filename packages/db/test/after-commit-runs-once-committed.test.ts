// afterCommit(): what a transaction's work asks to run once its writes are
// committed runs after inTransaction's COMMIT, when the rows are visible to
// another connection; never when the transaction rolls back, whether by an
// error or because a failed statement aborted it (PostgreSQL then answers
// COMMIT with ROLLBACK); at once on a pool.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { afterCommit, afterCommitMark, dropAfterCommitSince, inTransaction } from '../src/index.js';
import { createTestDatabase, type TestDatabase } from '../src/testing.js';

let tdb: TestDatabase;
let pool: pg.Pool;

before(async () => {
  tdb = await createTestDatabase();
  pool = new pg.Pool({ connectionString: tdb.url, max: 3 });
  await pool.query(`CREATE TABLE commit_t (id int PRIMARY KEY)`);
});
after(async () => {
  await pool.end();
  await tdb.drop();
});

const visible = async (id: number) => (await pool.query(`SELECT 1 FROM commit_t WHERE id = $1`, [id])).rowCount === 1;

test('runs after the COMMIT, when another connection sees the row, and not before', async () => {
  const seen: boolean[] = [];
  let ranInside = false;
  await inTransaction(pool, async (c) => {
    await c.query(`INSERT INTO commit_t VALUES (1)`);
    afterCommit(c, () => void seen.push(true));
    ranInside = seen.length > 0;
  });
  assert.equal(ranInside, false, 'not run inside the transaction');
  assert.deepEqual(seen, [true]);
  assert.equal(await visible(1), true);
});

test('never runs when the transaction rolls back on an error', async () => {
  let ran = 0;
  await assert.rejects(
    inTransaction(pool, async (c) => {
      await c.query(`INSERT INTO commit_t VALUES (2)`);
      afterCommit(c, () => void ran++);
      throw new Error('after the write');
    }),
    /after the write/,
  );
  assert.equal(ran, 0);
  assert.equal(await visible(2), false);
});

test('never runs when a failed statement aborted the transaction and COMMIT is answered ROLLBACK', async () => {
  let ran = 0;
  await inTransaction(pool, async (c) => {
    await c.query(`INSERT INTO commit_t VALUES (3)`);
    afterCommit(c, () => void ran++);
    await c.query(`INSERT INTO commit_t VALUES (3)`).catch(() => undefined); // duplicate key: the transaction is aborted
  });
  assert.equal(ran, 0);
  assert.equal(await visible(3), false);
});

test('a rolled back savepoint drops what it asked; what came before it still runs', async () => {
  const ran: string[] = [];
  await inTransaction(pool, async (c) => {
    afterCommit(c, () => void ran.push('before'));
    await c.query('SAVEPOINT sp');
    const mark = afterCommitMark(c);
    afterCommit(c, () => void ran.push('inside'));
    await c.query('ROLLBACK TO SAVEPOINT sp');
    dropAfterCommitSince(c, mark);
    afterCommit(c, () => void ran.push('after'));
  });
  assert.deepEqual(ran, ['before', 'after']);
});

test('on a pool, or a client in no transaction of inTransaction, it runs at once; a throwing one is dropped', async () => {
  let ran = 0;
  afterCommit(pool, () => void ran++);
  assert.equal(ran, 1);
  const c = await pool.connect();
  try {
    afterCommit(c, () => void ran++);
    assert.equal(ran, 2);
  } finally {
    c.release();
  }
  await inTransaction(pool, async (c2) => {
    afterCommit(c2, () => {
      throw new Error('a listener failed');
    });
    afterCommit(c2, () => void ran++);
  });
  assert.equal(ran, 3, 'the next one still runs');
});
