import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '@svc/db/testing';
import { generateMasterKey } from '../src/crypto.js';
import { MasterKeyMissingError, SecretDecryptError, SecretNotFoundError } from '../src/errors.js';
import { deleteNamespaceSecretsAndVariables, missingMasterKeyIds, rewrapSecrets } from '../src/maintenance.js';
import { ProviderStore } from '../src/provider-store.js';
import { SecretStore } from '../src/secret-store.js';

let tdb: TestDatabase;
let pool: pg.Pool;
const A = generateMasterKey('A');
const B = generateMasterKey('B');

before(async () => {
  tdb = await createTestDatabase();
  pool = new pg.Pool({ connectionString: tdb.url, max: 4 });
  pool.on('error', () => undefined);
});
after(async () => {
  await pool.end();
  await tdb.drop();
});
beforeEach(async () => {
  await pool.query('DELETE FROM secrets; DELETE FROM secret_providers; DELETE FROM variables');
});

test('put stores only ciphertext; list gives metadata by key; delete removes', async () => {
  const store = new SecretStore({ db: pool, keys: [A] });
  const t = new Date('2026-03-01T00:00:00Z');
  const first = await store.put('team', 'DB', 'value-of-db-1', { by: 'u1', now: t });
  assert.equal(first.created, true);
  assert.deepEqual(first.secret, { namespace: 'team', key: 'DB', keyId: 'A', createdAt: t, updatedAt: t, updatedBy: 'u1' });
  const later = new Date('2026-03-02T00:00:00Z');
  const second = await store.put('team', 'DB', 'value-of-db-2', { by: 'u2', now: later });
  assert.equal(second.created, false);
  assert.deepEqual([second.secret.createdAt, second.secret.updatedAt, second.secret.updatedBy], [t, later, 'u2']);
  await store.put('team', 'API', 'x');
  await store.put('', 'API', 'y');

  const raw = await pool.query(`SELECT * FROM secrets`);
  assert.equal(JSON.stringify(raw.rows).includes('value-of-db'), false);
  assert.equal(
    raw.rows.some((r: { ciphertext: Buffer }) => r.ciphertext.includes(Buffer.from('value-of-db'))),
    false,
  );

  assert.deepEqual(
    (await store.list('team', { limit: 10 })).map((s) => s.key),
    ['API', 'DB'],
  );
  assert.deepEqual(
    (await store.list('team', { limit: 1 })).map((s) => s.key),
    ['API', 'DB'],
    'one extra row marks a next page',
  );
  assert.deepEqual(
    (await store.list('team', { limit: 10, afterKey: 'API' })).map((s) => s.key),
    ['DB'],
  );
  assert.deepEqual(
    (await store.list('', { limit: 10 })).map((s) => [s.namespace, s.key]),
    [['', 'API']],
  );
  assert.equal(Object.hasOwn((await store.list('team', { limit: 10 }))[0]!, 'value'), false);

  assert.equal(await store.delete('team', 'DB'), true);
  assert.equal(await store.delete('team', 'DB'), false);
  assert.equal(await store.head('team', 'DB'), undefined);
});

test('resolve walks the namespace, each parent, then global; the most specific wins', async () => {
  const store = new SecretStore({ db: pool, keys: [A] });
  await store.put('', 'K', 'global-k');
  await store.put('a', 'K', 'a-k');
  await store.put('a.b.c', 'K', 'abc-k');
  await store.put('', 'G', 'global-g');
  await store.put('a.b', 'P', 'ab-p');
  await store.put('a.bx', 'P', 'sibling-p');

  assert.deepEqual(await store.resolve('a.b.c', 'K'), { value: 'abc-k', scope: { type: 'namespace', namespace: 'a.b.c' } });
  assert.deepEqual(await store.resolve('a.b', 'K'), { value: 'a-k', scope: { type: 'namespace', namespace: 'a' } });
  assert.deepEqual(await store.resolve('z', 'K'), { value: 'global-k', scope: { type: 'global' } });
  assert.deepEqual(await store.resolve('a.b.c', 'G'), { value: 'global-g', scope: { type: 'global' } });
  assert.deepEqual(await store.resolve('a.b.c', 'P'), { value: 'ab-p', scope: { type: 'namespace', namespace: 'a.b' } });
  await assert.rejects(store.resolve('a', 'P'), (err: unknown) => {
    assert.ok(err instanceof SecretNotFoundError);
    assert.equal(err.reason, 'secret_not_found');
    assert.deepEqual(err.searched, ['a', '']);
    return true;
  });
  await assert.rejects(store.resolve('a.bx.y', 'NONE'), /secret_not_found: no secret NONE in a\.bx\.y, a\.bx, a, global/);
  assert.deepEqual(await store.check('a.b.c', 'P'), { ok: true, scope: { type: 'namespace', namespace: 'a.b' } });
  const miss = await store.check('a', 'P');
  assert.equal(miss.ok, false);
  assert.equal(!miss.ok && miss.reason, 'secret_not_found');
});

test('a ciphertext copied to another row does not open there', async () => {
  const store = new SecretStore({ db: pool, keys: [A] });
  await store.put('team', 'REAL', 'real-value');
  await store.put('team', 'DECOY', 'decoy-value');
  await pool.query(`UPDATE secrets d SET ciphertext = r.ciphertext, nonce = r.nonce FROM secrets r WHERE d.key = 'DECOY' AND r.key = 'REAL'`);
  await assert.rejects(store.resolve('team', 'DECOY'), SecretDecryptError);
  const c = await store.check('team', 'DECOY');
  assert.equal(!c.ok && c.reason, 'secret_undecryptable');
});

test('rotation: old rows open with the old key listed second; rewrap moves them; then the old key can go', async () => {
  const before = new SecretStore({ db: pool, keys: [A] });
  await before.put('team', 'OLD1', 'old-1');
  await before.put('', 'OLD2', 'old-2');
  const providersA = new ProviderStore({ db: pool, keys: [A] });
  await providersA.create({ name: 'v', type: 'vault', config: { address: 'http://127.0.0.1:1' }, credentials: { token: 'tok-old' } });

  const rotated = new SecretStore({ db: pool, keys: [B, A] });
  assert.equal((await rotated.resolve('team', 'OLD1')).value, 'old-1');
  assert.equal((await rotated.put('team', 'NEW', 'new-1')).secret.keyId, 'B');
  assert.deepEqual(await missingMasterKeyIds(pool, [B]), ['A']);
  assert.deepEqual(await missingMasterKeyIds(pool, [B, A]), []);

  const onlyB = new SecretStore({ db: pool, keys: [B] });
  await assert.rejects(onlyB.resolve('team', 'OLD1'), (err: unknown) => err instanceof MasterKeyMissingError && err.keyId === 'A' && /master_key_missing/.test(err.message));

  const updatedBefore = (await pool.query(`SELECT updated_at FROM secrets WHERE key = 'OLD1'`)).rows[0].updated_at as Date;
  const report = await rewrapSecrets(pool, [B, A], { batchSize: 1 });
  assert.deepEqual(report, { secrets: 2, providers: 1, platformSecrets: 0, skipped: [] });
  assert.deepEqual((await pool.query(`SELECT DISTINCT key_id FROM secrets`)).rows, [{ key_id: 'B' }]);
  assert.deepEqual((await pool.query(`SELECT updated_at FROM secrets WHERE key = 'OLD1'`)).rows[0].updated_at, updatedBefore);
  assert.deepEqual(await missingMasterKeyIds(pool, [B]), []);

  assert.equal((await onlyB.resolve('team', 'OLD1')).value, 'old-1');
  assert.equal((await onlyB.resolve('x', 'OLD2')).value, 'old-2');
  const providersB = new ProviderStore({ db: pool, keys: [B] });
  assert.equal((await providersB.get('v'))?.credentialsKeyId, 'B');
  await providersB.open('v'); // credentials open with B alone

  assert.deepEqual(await rewrapSecrets(pool, [B]), { secrets: 0, providers: 0, platformSecrets: 0, skipped: [] }, 'nothing left to move');
});

test('rewrap reports rows it cannot open and leaves them as they are', async () => {
  await new SecretStore({ db: pool, keys: [A] }).put('team', 'LOST', 'lost');
  await new SecretStore({ db: pool, keys: [B] }).put('team', 'KEPT', 'kept');
  const C = generateMasterKey('C');
  const report = await rewrapSecrets(pool, [C, B]);
  assert.deepEqual(report, { secrets: 1, providers: 0, platformSecrets: 0, skipped: [{ table: 'secrets', id: 'team/LOST', keyId: 'A', reason: 'master_key_missing' }] });
  assert.equal((await pool.query(`SELECT key_id FROM secrets WHERE key = 'LOST'`)).rows[0].key_id, 'A');
});

test('deleting a namespace scope removes its secrets and variables only', async () => {
  const store = new SecretStore({ db: pool, keys: [A] });
  await store.put('team', 'A', '1');
  await store.put('team.data', 'A', '2');
  await store.put('', 'A', '3');
  await pool.query(`INSERT INTO variables (namespace, key, value) VALUES ('team', 'V', 'x'), ('team.data', 'V', 'y')`);
  assert.deepEqual(await deleteNamespaceSecretsAndVariables(pool, 'team'), { secrets: 1, variables: 1 });
  assert.deepEqual(
    (await pool.query(`SELECT namespace FROM secrets ORDER BY namespace`)).rows.map((r) => r.namespace),
    ['', 'team.data'],
  );
  await assert.rejects(deleteNamespaceSecretsAndVariables(pool, ''), RangeError);
});
