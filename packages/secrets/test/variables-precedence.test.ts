import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '@svc/db/testing';
import { VariableStore } from '../src/variable-store.js';

let tdb: TestDatabase;
let pool: pg.Pool;

before(async () => {
  tdb = await createTestDatabase();
  pool = new pg.Pool({ connectionString: tdb.url, max: 2 });
  pool.on('error', () => undefined);
});
after(async () => {
  await pool.end();
  await tdb.drop();
});

test('put, list, delete per scope', async () => {
  const vars = new VariableStore(pool);
  const t = new Date('2026-04-01T00:00:00Z');
  assert.equal((await vars.put('team', 'region', 'eu', { by: 'u1', now: t })).created, true);
  const again = await vars.put('team', 'region', 'us', { now: new Date('2026-04-02T00:00:00Z') });
  assert.equal(again.created, false);
  assert.equal(again.variable.value, 'us');
  assert.deepEqual(again.variable.createdAt, t);
  await vars.put('team', 'a', '1');
  await vars.put('', 'region', 'global');
  assert.deepEqual(
    (await vars.list('team', { limit: 50 })).map((v) => [v.key, v.value]),
    [
      ['a', '1'],
      ['region', 'us'],
    ],
  );
  assert.deepEqual(
    (await vars.list('', { limit: 50 })).map((v) => [v.key, v.value]),
    [['region', 'global']],
  );
  assert.equal(await vars.delete('team', 'a'), true);
  assert.equal(await vars.delete('team', 'a'), false);
  await pool.query('DELETE FROM variables');
});

test('vars precedence: flow variables, then the namespace, each parent, then global', async () => {
  const vars = new VariableStore(pool);
  await vars.put('', 'level', 'global');
  await vars.put('', 'only_global', 'g');
  await vars.put('a', 'level', 'a');
  await vars.put('a', 'from_a', 'a');
  await vars.put('a.b', 'level', 'a.b');
  await vars.put('a.b', 'from_ab', 'ab');
  await vars.put('a.b.c', 'level', 'a.b.c');
  await vars.put('a.bx', 'level', 'sibling');
  await vars.put('x', 'level', 'unrelated');

  assert.deepEqual(await vars.resolveVars('a.b.c'), { level: 'a.b.c', only_global: 'g', from_a: 'a', from_ab: 'ab' });
  assert.deepEqual(await vars.resolveVars('a.b'), { level: 'a.b', only_global: 'g', from_a: 'a', from_ab: 'ab' });
  assert.deepEqual(await vars.resolveVars('a.b.c', { level: 'flow', extra: 'e' }), { level: 'flow', only_global: 'g', from_a: 'a', from_ab: 'ab', extra: 'e' });
  assert.deepEqual(await vars.resolveVars('none'), { level: 'global', only_global: 'g' });
  assert.deepEqual(await vars.resolveVars(''), { level: 'global', only_global: 'g' });

  await vars.put('a', '__proto__', 'plain');
  const withProto = await vars.resolveVars('a');
  assert.equal(Object.getOwnPropertyDescriptor(withProto, '__proto__')?.value, 'plain');
  assert.equal(Object.getPrototypeOf(withProto), Object.prototype);
});
