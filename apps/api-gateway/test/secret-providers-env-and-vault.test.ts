// Secret providers over real HTTP: an env provider, and a Vault KV v2
// provider against a local stand-in of Vault's HTTP API. Credentials are
// write-only and stored sealed.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { components } from '@svc/api-spec';
import { formatMasterKeys, generateMasterKey } from '@svc/secrets';
import { startVaultStandIn, type VaultStandIn } from '@svc/secrets/testing';
import { startTestGateway, type TestGateway } from './helpers.js';
import { login, makeToken, makeUser } from './identity-helpers.js';
import { assertConforms, assertNoLeak, createRecorder } from './secrets-helpers.js';

const P = { token: 'PLANTED-provider-token-Nm19', value: 'PLANTED-provider-value-Qw20', wrong: 'PLANTED-provider-wrong-Er21', env: 'PLANTED-provider-env-Ty22' };
const ENV_PREFIX = 'SVC_TEST_PROVIDERS_';
const { call, seen } = createRecorder();
let gw: TestGateway;
let vault: VaultStandIn;
let admin = '';
let editor = '';

before(async () => {
  process.env[`${ENV_PREFIX}DB`] = P.env;
  vault = await startVaultStandIn({ token: P.token, namespace: 'eng' });
  vault.put('kv', 'team/db', { password: P.value, user: 'svc' });
  gw = await startTestGateway({ env: { SVC_MASTER_KEYS: formatMasterKeys([generateMasterKey('p1')]) } });
  await gw.db.pool.query(`INSERT INTO namespaces (name) VALUES ('team')`);
  await makeUser(gw, 'admin@example.com', 'admin');
  const cookie = await login(gw, 'admin@example.com');
  admin = await makeToken(gw, cookie, 'admin');
  editor = await makeToken(gw, cookie, 'editor');
});
after(async () => {
  delete process.env[`${ENV_PREFIX}DB`];
  await vault.close();
  await gw.close();
});

const check = async (ref: string) => (await call(gw, editor, 'POST', `/api/v1/namespaces/team/secrets/${encodeURIComponent(ref)}/check`)).json<Record<string, unknown>>();

test('an env provider serves env:<NAME> from <prefix><NAME>', async () => {
  const r = await call(gw, admin, 'POST', '/api/v1/secret-providers', { name: 'env', type: 'env', config: { prefix: ENV_PREFIX }, namespaces: ['team'] });
  assert.equal(r.status, 201, r.body);
  assertConforms('createSecretProvider', 201, r.json());
  assert.deepEqual(r.json<Record<string, unknown>>().config, { prefix: ENV_PREFIX });
  assert.deepEqual(await check('env:DB'), { ok: true, key: 'env:DB', scope: 'provider', provider: 'env' });
  assert.equal((await check('env:MISSING')).error, 'secret_not_found');
  const c = await call(gw, admin, 'POST', '/api/v1/secret-providers/env/check');
  assertConforms('checkSecretProvider', 200, c.json());
  assert.deepEqual(c.json(), { ok: true, message: `1 environment variable(s) start with ${ENV_PREFIX}` });
  assert.equal((await call(gw, admin, 'POST', '/api/v1/secret-providers', { name: 'rawenv', type: 'env', namespaces: ['team'] })).status, 201);
  const own = await check('rawenv:SVC_MASTER_KEYS');
  assert.deepEqual([own.ok, own.error], [false, 'provider_error'], 'the service own settings are never served');
  assert.equal((await call(gw, admin, 'DELETE', '/api/v1/secret-providers/rawenv')).status, 204);
});

test('a Vault provider: token sealed at rest and never shown; vault:<path>#<field> resolves over HTTP', async () => {
  const r = await call(gw, admin, 'POST', '/api/v1/secret-providers', {
    name: 'vault',
    type: 'vault',
    config: { address: vault.address, mount: 'kv', namespace: 'eng' },
    credentials: { token: P.token },
    namespaces: ['team'],
  });
  assert.equal(r.status, 201, r.body);
  const body = r.json<Record<string, unknown>>();
  assertConforms('createSecretProvider', 201, body);
  assert.deepEqual([body.has_credentials, body.credentials_key_id, body.config], [true, 'p1', { address: vault.address, mount: 'kv', namespace: 'eng' }]);
  const row = (await gw.db.pool.query(`SELECT * FROM secret_providers WHERE name = 'vault'`)).rows[0] as { credentials_ciphertext: Buffer };
  assert.equal(JSON.stringify(row).includes(P.token), false);
  assert.equal(row.credentials_ciphertext.includes(Buffer.from(P.token)), false, 'the DB row does not contain the token text');

  const list = await call(gw, editor, 'GET', '/api/v1/secret-providers');
  assertConforms('listSecretProviders', 200, list.json());
  assert.deepEqual(
    list.json<{ items: { name: string }[] }>().items.map((i) => i.name),
    ['env', 'vault'],
  );

  vault.requests.length = 0;
  assert.deepEqual(await check('vault:team/db#password'), { ok: true, key: 'vault:team/db#password', scope: 'provider', provider: 'vault' });
  assert.deepEqual(vault.requests, [{ method: 'GET', path: '/v1/kv/data/team/db', token: P.token, namespace: 'eng' }]);
  assert.equal((await check('vault:team/nothing#password')).error, 'secret_not_found');
  const ambiguous = await check('vault:team/db');
  assert.deepEqual([ambiguous.ok, ambiguous.error], [false, 'provider_error']);
  assert.match(String(ambiguous.message), /password, user/);
  assert.deepEqual((await call(gw, admin, 'POST', '/api/v1/secret-providers/vault/check')).json(), { ok: true, message: `Vault at ${vault.address} accepts the token` });
  assert.equal((await check('ghost:x')).error, 'provider_not_found');
});

test('update replaces settings, keeps the token unless given, and each change is audited without it', async () => {
  const put = (body: unknown) => call(gw, admin, 'PUT', '/api/v1/secret-providers/vault', body);
  const moved = await put({ config: { address: 'http://127.0.0.1:1', mount: 'kv', namespace: 'eng' } });
  assert.equal(moved.status, 200, moved.body);
  assertConforms('updateSecretProvider', 200, moved.json());
  assert.equal(moved.json<{ has_credentials: boolean }>().has_credentials, true);
  const down = (await call(gw, admin, 'POST', '/api/v1/secret-providers/vault/check')).json<components['schemas']['SecretProviderCheck']>();
  assert.equal(down.ok, false);
  assert.match(down.message, /cannot reach Vault/);
  assert.equal((await put({ config: { address: vault.address, mount: 'kv', namespace: 'eng' } })).status, 200);
  assert.equal((await check('vault:team/db#user')).ok, true, 'the kept token still works');

  assert.equal((await put({ credentials: { token: P.wrong } })).status, 200);
  const refused = (await call(gw, admin, 'POST', '/api/v1/secret-providers/vault/check')).json<components['schemas']['SecretProviderCheck']>();
  assert.deepEqual(refused, { ok: false, message: `Vault at ${vault.address} refused the token (403)` });
  assert.equal((await check('vault:team/db#user')).error, 'provider_error');
  assert.equal((await put({ credentials: { token: P.token } })).status, 200);

  const noToken = await put({ credentials: null });
  assert.equal(noToken.status, 422);
  assert.deepEqual(noToken.json().error.details, [{ field: 'credentials.token', message: 'is required' }]);
  assert.equal((await put({ enabled: false })).json<{ enabled: boolean }>().enabled, false);
  assert.equal((await check('vault:team/db#user')).error, 'provider_not_found');
  assert.equal((await put({ enabled: true })).status, 200);

  const audit = await call(gw, admin, 'GET', '/api/v1/audit?action=secret_provider.update');
  const events = audit.json<{ items: { target: string; payload: Record<string, unknown> }[] }>().items;
  // Newest first; the refused update (credentials: null) left no event.
  assert.deepEqual(
    events.map((e) => [e.payload.enabled, e.payload.credentials_changed]),
    [
      [true, false],
      [false, false],
      [true, true],
      [true, true],
      [true, false],
      [true, false],
    ],
  );
  assert.ok(events.every((e) => e.target === 'secret_provider:vault'));
});

test('validation: names, types, settings, duplicates, unknown providers', async () => {
  const create = (body: unknown) => call(gw, admin, 'POST', '/api/v1/secret-providers', body);
  const badName = await create({ name: 'Bad Name', type: 'env' });
  assert.equal(badName.status, 422);
  assert.equal(badName.json().error.details![0]!.field, 'name');
  assert.equal((await create({ name: 'x', type: 'aws' })).json().error.details![0]!.field, 'type');
  const badConfig = await create({ name: 'x', type: 'vault', config: { address: 'ftp://h', other: 1 }, credentials: { token: P.wrong } });
  assert.equal(badConfig.status, 422);
  assert.deepEqual(
    badConfig.json().error.details!.map((d) => d.field),
    ['config.address', 'config.other'],
  );
  const dup = await create({ name: 'env', type: 'env' });
  assert.equal(dup.status, 409);
  assert.equal(dup.json().error.code, 'conflict');
  for (const [method, path] of [
    ['PUT', '/api/v1/secret-providers/ghost'],
    ['DELETE', '/api/v1/secret-providers/ghost'],
    ['POST', '/api/v1/secret-providers/ghost/check'],
  ] as const) {
    const r = await call(gw, admin, method, path, method === 'PUT' ? {} : undefined);
    assert.equal(r.status, 404, `${method} ${path}`);
  }
});

test('delete removes a provider and is audited; nothing ever showed a credential', async () => {
  assert.equal((await call(gw, admin, 'DELETE', '/api/v1/secret-providers/vault')).status, 204);
  assert.equal((await call(gw, admin, 'DELETE', '/api/v1/secret-providers/vault')).status, 404);
  const audit = await call(gw, admin, 'GET', '/api/v1/audit?action=secret_provider.delete');
  assert.deepEqual(
    audit.json<{ items: { target: string }[] }>().items.map((e) => e.target),
    ['secret_provider:vault', 'secret_provider:rawenv'],
  );
  const auditRows = (await gw.db.pool.query(`SELECT * FROM audit_events`)).rows.map((r) => JSON.stringify(r));
  assert.ok(auditRows.some((a) => a.includes('secret_provider.create')));
  assertNoLeak(Object.values(P), [...seen, ...gw.logs().map((l) => JSON.stringify(l)), ...auditRows]);
  assert.ok(
    vault.requests.some((r) => r.token === P.wrong),
    'the wrong token was really sent to the stand-in',
  );
});
