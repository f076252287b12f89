import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '@svc/db/testing';
import { generateMasterKey } from '../src/crypto.js';
import { BuiltinProviderDisabledError, ProviderConfigError, ProviderError, ProviderExistsError, ProviderNotFoundError, SecretNotFoundError } from '../src/errors.js';
import { ProviderScopeError } from '../src/provider-scope.js';
import { ProviderStore } from '../src/provider-store.js';
import { SecretStore } from '../src/secret-store.js';
import { startVaultStandIn, type VaultStandIn } from '../src/testing.js';

let tdb: TestDatabase;
let pool: pg.Pool;
let vault: VaultStandIn;
const A = generateMasterKey('A');
const TOKEN = 'hvs.token-planted-7Qx';
const env = { APP_SECRET_DB: 'env-db-value' };

before(async () => {
  tdb = await createTestDatabase();
  pool = new pg.Pool({ connectionString: tdb.url, max: 4 });
  pool.on('error', () => undefined);
  vault = await startVaultStandIn({ token: TOKEN });
  vault.put('secret', 'team/db', { password: 'vault-db-password', user: 'svc' });
  vault.put('secret', 'single', { api_key: 'only-field' });
  vault.put('kv', 'team/db', { value: 'other-mount' });
});
after(async () => {
  await vault.close();
  await pool.end();
  await tdb.drop();
});
beforeEach(async () => {
  await pool.query('DELETE FROM secret_providers');
});

function stores(keys = [A]) {
  const providers = new ProviderStore({ db: pool, keys, providerDeps: { env } });
  return { providers, secrets: new SecretStore({ db: pool, keys, providers }) };
}

test('vault credentials are sealed at rest and never shown', async () => {
  const { providers } = stores();
  const info = await providers.create({ name: 'vault', type: 'vault', config: { address: vault.address }, credentials: { token: TOKEN } });
  assert.deepEqual(info.config, { address: vault.address, mount: 'secret' });
  assert.equal(info.hasCredentials, true);
  assert.equal(info.credentialsKeyId, 'A');
  assert.equal(JSON.stringify(info).includes(TOKEN), false);
  const row = (await pool.query(`SELECT * FROM secret_providers WHERE name = 'vault'`)).rows[0] as Record<string, unknown>;
  assert.equal(JSON.stringify(row).includes(TOKEN), false);
  assert.equal((row.credentials_ciphertext as Buffer).includes(Buffer.from(TOKEN)), false);
  assert.equal((row.credentials_ciphertext as Buffer).includes(Buffer.from(TOKEN.slice(4))), false);
});

test('vault:<path>#<field> resolves over HTTP with the token; missing paths are secret_not_found', async () => {
  const { providers, secrets } = stores();
  await providers.create({ name: 'vault', type: 'vault', config: { address: vault.address }, credentials: { token: TOKEN }, namespaces: ['team'] });
  await providers.create({ name: 'kv', type: 'vault', config: { address: vault.address, mount: 'kv' }, credentials: { token: TOKEN } });
  vault.requests.length = 0;
  assert.deepEqual(await secrets.resolve('team', 'vault:team/db#password'), { value: 'vault-db-password', scope: { type: 'provider', provider: 'vault' } });
  // Scoped to `team`: its children too, never a sibling or a look-alike; '' is the service's own settings, unscoped.
  assert.equal((await secrets.resolve('team.etl', 'vault:team/db#password')).value, 'vault-db-password');
  for (const other of ['teams', 'other'])
    await assert.rejects(
      secrets.resolve(other, 'vault:team/db#password'),
      (err: unknown) => err instanceof ProviderScopeError && err.provider === 'vault' && err.namespace === other && !err.message.includes('vault-db-password'),
    );
  await assert.rejects(secrets.resolve('other', 'kv:team/db'), ProviderScopeError, 'a provider with no namespaces serves none');
  const asked = { method: 'GET', path: '/v1/secret/data/team/db', token: TOKEN, namespace: undefined };
  assert.deepEqual(vault.requests, [asked, asked], 'the refused references never reached Vault');
  assert.equal((await secrets.resolve('', 'vault:single')).value, 'only-field', 'the only field is the default');
  assert.equal((await secrets.resolve('', 'kv:team/db')).value, 'other-mount', 'the field `value` is the default');
  await assert.rejects(secrets.resolve('', 'vault:team/db'), (err: unknown) => err instanceof ProviderError && /password, user/.test(err.message));
  await assert.rejects(secrets.resolve('', 'vault:team/none#x'), (err: unknown) => err instanceof SecretNotFoundError && err.reason === 'secret_not_found');
  await assert.rejects(secrets.resolve('', 'vault:team/db#nope'), SecretNotFoundError);
  await assert.rejects(secrets.resolve('', 'ghost:x'), ProviderNotFoundError);
  assert.deepEqual(await secrets.check('', 'vault:team/db#user'), { ok: true, scope: { type: 'provider', provider: 'vault' } });
  assert.deepEqual(await providers.check('vault'), { ok: true, message: `Vault at ${vault.address} accepts the token` });
});

test('a wrong token, an unreachable server and a disabled provider fail with messages that name no secret', async () => {
  const { providers, secrets } = stores();
  await providers.create({ name: 'bad', type: 'vault', config: { address: vault.address }, credentials: { token: 'wrong-token-xyz' } });
  await assert.rejects(
    secrets.resolve('', 'bad:team/db#password'),
    (err: unknown) => err instanceof ProviderError && err.status === 403 && !err.message.includes('wrong-token-xyz'),
  );
  const c = await providers.check('bad');
  assert.equal(c.ok, false);
  assert.match(c.message, /refused the token/);
  assert.doesNotMatch(c.message, /wrong-token-xyz/);

  await providers.create({ name: 'down', type: 'vault', config: { address: 'http://127.0.0.1:1' }, credentials: { token: TOKEN } });
  const down = await providers.check('down');
  assert.equal(down.ok, false);
  assert.match(down.message, /cannot reach Vault/);
  const chk = await secrets.check('', 'down:x');
  assert.equal(!chk.ok && chk.reason, 'provider_error');

  await providers.update('bad', { enabled: false });
  await assert.rejects(secrets.resolve('', 'bad:team/db'), (err: unknown) => err instanceof ProviderNotFoundError && err.disabled);
  await assert.rejects(providers.check('ghost'), ProviderNotFoundError);
});

test('env:<NAME> reads the configured prefix', async () => {
  const { providers, secrets } = stores();
  await providers.create({ name: 'env', type: 'env', config: { prefix: 'APP_SECRET_' }, namespaces: ['*'] });
  assert.deepEqual(await secrets.resolve('any', 'env:DB'), { value: 'env-db-value', scope: { type: 'provider', provider: 'env' } });
  await assert.rejects(secrets.resolve('any', 'env:NOPE'), SecretNotFoundError);
  assert.equal((await providers.check('env')).ok, true);
});

test('create and update validate settings; update keeps credentials unless replaced', async () => {
  const { providers, secrets } = stores();
  await assert.rejects(providers.create({ name: 'Bad Name', type: 'env' }), (err: unknown) => err instanceof ProviderConfigError && err.problems[0]!.field === 'name');
  await assert.rejects(
    providers.create({ name: 'v', type: 'vault', config: { address: vault.address } }),
    (err: unknown) => err instanceof ProviderConfigError && err.problems[0]!.field === 'credentials.token',
  );
  await providers.create({ name: 'v', type: 'vault', config: { address: 'http://127.0.0.1:1' }, credentials: { token: TOKEN } });
  await assert.rejects(providers.create({ name: 'v', type: 'env' }), ProviderExistsError);

  const moved = await providers.update('v', { config: { address: vault.address } });
  assert.equal(moved.hasCredentials, true, 'the token is kept');
  assert.equal((await secrets.resolve('', 'v:team/db#user')).value, 'svc');
  await assert.rejects(providers.update('v', { credentials: null }), ProviderConfigError, 'vault needs a token');
  const asEnv = await providers.update('v', { type: 'env' });
  assert.deepEqual([asEnv.type, asEnv.config, asEnv.hasCredentials, asEnv.credentialsKeyId], ['env', { prefix: '' }, false, null]);
  await assert.rejects(providers.update('ghost', {}), ProviderNotFoundError);
  assert.equal(await providers.delete('v'), true);
  assert.equal(await providers.delete('v'), false);
});

test('credentials cannot be stored without a master key; an env provider needs none', async () => {
  const { providers } = stores([]);
  await assert.rejects(providers.create({ name: 'v', type: 'vault', config: { address: vault.address }, credentials: { token: TOKEN } }), BuiltinProviderDisabledError);
  assert.equal((await providers.create({ name: 'env', type: 'env' })).hasCredentials, false);
  assert.equal((await providers.list({ limit: 10 })).length, 1);
});
