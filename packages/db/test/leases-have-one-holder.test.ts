import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { acquireLease, readLease, releaseLease, renewLease } from '../src/sql/leases.js';
import { createTestDatabase, type TestDatabase } from '../src/testing.js';

let tdb: TestDatabase;
let pool: pg.Pool;
const t0 = new Date('2026-01-01T00:00:00Z');
const at = (ms: number) => new Date(t0.getTime() + ms);

before(async () => {
  tdb = await createTestDatabase();
  pool = new pg.Pool({ connectionString: tdb.url, max: 20 });
  pool.on('error', () => undefined);
});
after(async () => {
  await pool.end();
  await tdb.drop();
});

test('of many concurrent contenders exactly one takes a free lease', async () => {
  const wins = await Promise.all(Array.from({ length: 20 }, (_, i) => acquireLease(pool, 'race', `h${i}`, 30_000, t0)));
  assert.equal(wins.filter(Boolean).length, 1);
  const holder = `h${wins.indexOf(true)}`;
  assert.equal((await readLease(pool, 'race'))?.holderId, holder);
});

test('a held lease is refused to others until it expires, then taken over', async () => {
  assert.equal(await acquireLease(pool, 'm', 'a', 30_000, t0), true);
  assert.equal(await acquireLease(pool, 'm', 'b', 30_000, at(10_000)), false);
  assert.equal(await renewLease(pool, 'm', 'a', 30_000, at(20_000)), true); // now expires at 50 s
  assert.equal(await acquireLease(pool, 'm', 'b', 30_000, at(45_000)), false);
  assert.equal(await acquireLease(pool, 'm', 'b', 30_000, at(50_000)), true);
  assert.equal(await renewLease(pool, 'm', 'a', 30_000, at(51_000)), false, 'the old holder learns it lost the lease');
  const l = await readLease(pool, 'm');
  assert.equal(l?.holderId, 'b');
  assert.equal(l?.acquiredAt.getTime(), at(50_000).getTime());
});

test('re-acquiring our own lease keeps its acquired time; release frees it at once', async () => {
  assert.equal(await acquireLease(pool, 'r', 'a', 30_000, t0), true);
  assert.equal(await acquireLease(pool, 'r', 'a', 30_000, at(5_000)), true);
  assert.equal((await readLease(pool, 'r'))?.acquiredAt.getTime(), t0.getTime());
  await releaseLease(pool, 'r', 'b'); // not b's: no effect
  assert.equal((await readLease(pool, 'r'))?.holderId, 'a');
  await releaseLease(pool, 'r', 'a');
  assert.equal(await readLease(pool, 'r'), null);
  assert.equal(await acquireLease(pool, 'r', 'b', 30_000, at(6_000)), true);
});
