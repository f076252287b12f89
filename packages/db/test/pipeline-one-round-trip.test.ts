// pipeline(): several statements in one round trip, answered in order, with
// the client's type parsers; named statements prepared once per connection,
// including when a pipeline and ordinary queries share their names; the
// first error ends it, and the connection stays usable.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { pipeline } from '../src/pipeline.js';
import { createTestDatabase, type TestDatabase } from '../src/testing.js';

let tdb: TestDatabase;
let pool: pg.Pool;

before(async () => {
  tdb = await createTestDatabase();
  pool = new pg.Pool({ connectionString: tdb.url, max: 2 });
  await pool.query(`CREATE TABLE pipe_t (id int PRIMARY KEY, at timestamptz NOT NULL, doc jsonb, tags text[])`);
});
after(async () => {
  await pool.end();
  await tdb.drop();
});

const insert = (id: number): pg.QueryConfig => ({
  name: 'pipe-insert',
  text: `INSERT INTO pipe_t (id, at, doc, tags) VALUES ($1, $2, $3, $4) RETURNING id, at, doc, tags`,
  values: [id, new Date('2030-01-02T03:04:05.678Z'), { k: [id] }, ['a', 'b"c']],
});
const count = (): pg.QueryConfig => ({ name: 'pipe-count', text: `SELECT count(*)::int AS n FROM pipe_t` });

test('statements run in order in one transaction of their own, answered with parsed rows', async () => {
  const c = await pool.connect();
  try {
    const [begin, ins, cnt] = await pipeline(c, [{ text: 'BEGIN' }, insert(1), count()]);
    assert.equal(begin!.command, 'BEGIN');
    assert.deepEqual(ins!.rows, [{ id: 1, at: new Date('2030-01-02T03:04:05.678Z'), doc: { k: [1] }, tags: ['a', 'b"c'] }]);
    assert.equal(cnt!.rows[0]!.n, 1, 'the count sees the insert before it');
    // The transaction goes on after the pipeline: the other connection does not see the row yet.
    assert.equal((await pool.query(`SELECT count(*)::int AS n FROM pipe_t`)).rows[0].n, 0);
    await c.query('COMMIT');
    assert.equal((await pool.query(`SELECT count(*)::int AS n FROM pipe_t`)).rows[0].n, 1);
    // Named statements were prepared once: again in a pipeline, and as ordinary queries of the same names.
    const [again] = await pipeline(c, [insert(2)]);
    assert.equal(again!.rows[0]!.id, 2);
    assert.equal((await c.query(insert(3))).rows[0].id, 3);
    assert.equal((await c.query(count())).rows[0].n, 3);
    const prepared = (await c.query(`SELECT name FROM pg_prepared_statements ORDER BY name`)).rows.map((r) => r.name);
    assert.deepEqual(prepared, ['pipe-count', 'pipe-insert']);
  } finally {
    c.release();
  }
});

test('the first error rejects, skips the rest, and leaves the connection and its statement names usable', async () => {
  const c = await pool.connect();
  try {
    await c.query('DELETE FROM pipe_t');
    const later: pg.QueryConfig = { name: 'pipe-never-parsed', text: `SELECT 41 + $1::int AS v`, values: [1] };
    await assert.rejects(pipeline(c, [{ text: 'BEGIN' }, insert(7), insert(7), later]), (err: Error & { code?: string }) => err.code === '23505');
    await c.query('ROLLBACK');
    assert.equal((await c.query(`SELECT count(*)::int AS n FROM pipe_t`)).rows[0].n, 0, 'the first insert was rolled back with the transaction');
    // The statement after the error was skipped, so it is not prepared: an ordinary query of that name parses it.
    assert.equal((await c.query(later)).rows[0].v, 42);
    const [ok] = await pipeline(c, [later]);
    assert.equal(ok!.rows[0]!.v, 42);
  } finally {
    c.release();
  }
});

test('one round trip: one Sync, so one ReadyForQuery, for all the statements', async () => {
  const c = await pool.connect();
  try {
    const conn = (c as unknown as { connection: { on(e: string, f: () => void): void; off(e: string, f: () => void): void } }).connection;
    let turns = 0;
    const onReady = () => turns++;
    conn.on('readyForQuery', onReady);
    const r = await pipeline(c, [{ text: 'BEGIN' }, count(), { text: `SELECT 1 AS one` }, { text: 'COMMIT' }]);
    assert.deepEqual(
      r.map((x) => x.command),
      ['BEGIN', 'SELECT', 'SELECT', 'COMMIT'],
    );
    assert.equal(turns, 1);
    await c.query('SELECT 1');
    await c.query('SELECT 2');
    assert.equal(turns, 3, 'an ordinary query is one turn each');
    conn.off('readyForQuery', onReady);
  } finally {
    c.release();
  }
});
