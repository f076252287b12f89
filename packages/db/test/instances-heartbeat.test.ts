import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { heartbeatInstance, listInstances, markInstanceStopped, registerInstance } from '../src/sql/instances.js';
import { createTestDatabase, type TestDatabase } from '../src/testing.js';

let tdb: TestDatabase;
let pool: pg.Pool;
const t0 = new Date('2026-01-01T00:00:00Z');
const at = (ms: number) => new Date(t0.getTime() + ms);
const reg = { id: 'i1', kind: 'dispatcher' as const, hostname: 'h', version: '1.2.3', pools: ['default', 'gpu'], executors: ['inline', 'process'] };

before(async () => {
  tdb = await createTestDatabase();
  pool = new pg.Pool({ connectionString: tdb.url, max: 4 });
  pool.on('error', () => undefined);
});
after(async () => {
  await pool.end();
  await tdb.drop();
});

test('an instance is Online while its heartbeat is at most 60 s old', async () => {
  await registerInstance(pool, reg, t0);
  let [row] = await listInstances(pool, at(60_000));
  assert.equal(row?.online, true);
  assert.deepEqual(row?.pools, ['default', 'gpu']);
  assert.deepEqual(row?.executors, ['inline', 'process']);
  assert.equal(row?.version, '1.2.3');
  [row] = await listInstances(pool, at(60_001));
  assert.equal(row?.online, false);
  assert.equal(await heartbeatInstance(pool, 'i1', at(70_000)), true);
  [row] = await listInstances(pool, at(100_000));
  assert.equal(row?.online, true);
});

test('a stopped instance is Offline at once; a heartbeat for a removed row asks to register again', async () => {
  await markInstanceStopped(pool, 'i1', at(80_000));
  const [row] = await listInstances(pool, at(80_001));
  assert.equal(row?.online, false);
  await pool.query(`DELETE FROM instances`);
  assert.equal(await heartbeatInstance(pool, 'i1', at(90_000)), false);
});
