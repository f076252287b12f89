// The platform store on a real database: values sealed under
// their own context, listed by name only; never resolved by SecretStore (so
// never by `secret()`); a row the upgrade copied from a global secret opens,
// and rewrap seals it as a platform secret; rotation and /readyz count its
// key ids; what a setting may name.
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '@svc/db/testing';
import { generateMasterKey } from '../src/crypto.js';
import { MasterKeyMissingError, PlatformSecretNotFoundError, SecretDecryptError, SecretNotFoundError } from '../src/errors.js';
import { missingMasterKeyIds, rewrapSecrets } from '../src/maintenance.js';
import { PlatformSecretStore } from '../src/platform-store.js';
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
  await pool.query('DELETE FROM secrets; DELETE FROM platform_secrets');
});

test('put, read, list (names and a global copy flag, never values), head and delete', async () => {
  const store = new PlatformSecretStore({ db: pool, keys: [A] });
  const t = new Date('2026-12-06T00:00:00Z');
  const first = await store.put('GIT_TOKEN', 'tok-1', { by: 'u1', now: t });
  assert.equal(first.created, true);
  assert.deepEqual(first.secret, { name: 'GIT_TOKEN', keyId: 'A', sealedAs: 'platform', createdAt: t, updatedAt: t, updatedBy: 'u1' });
  assert.equal((await store.put('GIT_TOKEN', 'tok-2', { by: 'u2' })).created, false);
  assert.equal(await store.read('GIT_TOKEN'), 'tok-2');
  const raw = (await pool.query<{ ciphertext: Buffer }>(`SELECT ciphertext FROM platform_secrets`)).rows[0];
  assert.ok(!raw.ciphertext.toString('latin1').includes('tok-2'), 'only ciphertext is stored');

  await new SecretStore({ db: pool, keys: [A] }).put('', 'SSO', 'global-sso');
  await store.put('SSO', 'platform-sso');
  const listed = await store.list({ limit: 10 });
  assert.deepEqual(
    listed.map((p) => [p.name, p.globalCopy]),
    [
      ['GIT_TOKEN', false],
      ['SSO', true],
    ],
  );
  assert.ok(!JSON.stringify(listed).includes('tok-2'));
  assert.equal((await store.list({ limit: 1 })).length, 2, 'one more than the page tells another follows');
  assert.deepEqual(
    (await store.list({ limit: 10, afterName: 'GIT_TOKEN' })).map((p) => p.name),
    ['SSO'],
  );
  assert.equal((await store.head('SSO'))?.globalCopy, true);
  assert.equal(await store.head('NONE'), undefined);
  assert.equal(await store.delete('SSO'), true);
  assert.equal(await store.delete('SSO'), false);
  await assert.rejects(store.read('SSO'), PlatformSecretNotFoundError);
  await assert.rejects(store.put('bad name', 'x'), RangeError);
});

test('secret() never reaches a platform secret, and a platform ciphertext moved into secrets does not open there', async () => {
  const platform = new PlatformSecretStore({ db: pool, keys: [A] });
  await platform.put('GIT_TOKEN', 'platform-only');
  const secrets = new SecretStore({ db: pool, keys: [A] });
  for (const ns of ['', 'team', 'team.sub']) await assert.rejects(secrets.resolve(ns, 'GIT_TOKEN'), SecretNotFoundError);
  const check = await secrets.check('team', 'GIT_TOKEN');
  assert.equal(!check.ok && check.reason, 'secret_not_found');
  // Someone copies the row into the global scope: it does not open as a secret.
  await pool.query(`INSERT INTO secrets (namespace, key, ciphertext, nonce, key_id) SELECT '', name, ciphertext, nonce, key_id FROM platform_secrets WHERE name = 'GIT_TOKEN'`);
  await assert.rejects(secrets.resolve('team', 'GIT_TOKEN'), SecretDecryptError);
});

test('a row the upgrade copied from a global secret opens; rewrap seals it as a platform secret; rotation counts platform key ids', async () => {
  const globalA = new SecretStore({ db: pool, keys: [A] });
  await globalA.put('', 'OLD_TOKEN', 'old-value');
  // What migration 20261206110000 does for a setting naming OLD_TOKEN.
  await pool.query(
    `INSERT INTO platform_secrets (name, ciphertext, nonce, key_id, sealed_as) SELECT key, ciphertext, nonce, key_id, 'global_secret' FROM secrets WHERE namespace = '' AND key = 'OLD_TOKEN'`,
  );
  const platformA = new PlatformSecretStore({ db: pool, keys: [A] });
  assert.equal(await platformA.read('OLD_TOKEN'), 'old-value');
  assert.equal((await platformA.head('OLD_TOKEN'))?.sealedAs, 'global_secret');
  await platformA.put('NEW_TOKEN', 'new-value');

  assert.deepEqual(await missingMasterKeyIds(pool, [B]), ['A']);
  await pool.query(`DELETE FROM secrets`);
  assert.deepEqual(await missingMasterKeyIds(pool, [B]), ['A'], 'platform rows alone keep key A needed');
  await assert.rejects(new PlatformSecretStore({ db: pool, keys: [B] }).read('NEW_TOKEN'), MasterKeyMissingError);

  const report = await rewrapSecrets(pool, [B, A], { batchSize: 1 });
  assert.deepEqual(report, { secrets: 0, providers: 0, platformSecrets: 2, skipped: [] });
  assert.deepEqual(await missingMasterKeyIds(pool, [B]), []);
  const onlyB = new PlatformSecretStore({ db: pool, keys: [B] });
  assert.equal(await onlyB.read('OLD_TOKEN'), 'old-value');
  assert.equal(await onlyB.read('NEW_TOKEN'), 'new-value');
  assert.equal((await onlyB.head('OLD_TOKEN'))?.sealedAs, 'platform');
  assert.deepEqual(await rewrapSecrets(pool, [B]), { secrets: 0, providers: 0, platformSecrets: 0, skipped: [] }, 'nothing left to move');

  // An upgraded row already sealed with the first key is still sealed again as a platform secret.
  await new SecretStore({ db: pool, keys: [B] }).put('', 'LATE', 'late-value');
  await pool.query(
    `INSERT INTO platform_secrets (name, ciphertext, nonce, key_id, sealed_as) SELECT key, ciphertext, nonce, key_id, 'global_secret' FROM secrets WHERE key = 'LATE'`,
  );
  assert.equal((await rewrapSecrets(pool, [B])).platformSecrets, 1);
  assert.equal((await onlyB.head('LATE'))?.sealedAs, 'platform');
  assert.equal(await onlyB.read('LATE'), 'late-value');
});

test('what a setting may name: a platform secret; a global or namespace secret is flow-readable; nothing is named as missing', async () => {
  const platform = new PlatformSecretStore({ db: pool, keys: [A] });
  const secrets = new SecretStore({ db: pool, keys: [A] });
  await platform.put('GIT_TOKEN', 'x');
  await secrets.put('', 'GLOBAL_ONE', 'y');
  await secrets.put('team', 'TEAM_ONE', 'z');
  assert.equal(await platform.settingProblem('GIT_TOKEN'), null);
  assert.match((await platform.settingProblem('GLOBAL_ONE'))!, /^GLOBAL_ONE is a global secret, which flows can read: store the credential as a platform secret/);
  assert.match((await platform.settingProblem('TEAM_ONE'))!, /^TEAM_ONE is a secret of namespace team, which flows can read/);
  assert.match((await platform.settingProblem('NOWHERE'))!, /^no platform secret NOWHERE: set it first/);
  assert.match((await platform.settingProblem('vault:a#b'))!, /is not a platform secret name/);
});
