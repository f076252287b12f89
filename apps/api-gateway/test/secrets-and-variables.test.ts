// Secrets and variables over real HTTP with real users and tokens: scopes,
// resolution order, roles, the missing-key refusal, and a leak check over
// every response and log line of this file.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { operations } from '@svc/api-spec';
import { formatMasterKeys, generateMasterKey, VariableStore } from '@svc/secrets';
import { startVaultStandIn, type VaultStandIn } from '@svc/secrets/testing';
import { startTestGateway, type TestGateway } from './helpers.js';
import { login, makeToken, makeUser } from './identity-helpers.js';
import { assertConforms, assertNoLeak, createRecorder } from './secrets-helpers.js';

const KEY = generateMasterKey('k1');
// Distinctive values: none may ever appear in a response, a header or a log line.
const P = {
  teamDb: 'PLANTED-team-db-Zq81',
  teamDbNew: 'PLANTED-team-db-rotated-Lm22',
  globalDb: 'PLANTED-global-db-Kx93',
  dataOwn: 'PLANTED-data-own-Wv04',
  apiKey: 'PLANTED-global-api-Hy55',
  tooLong: 'PLANTED-too-long-Qe66',
  noNamespace: 'PLANTED-no-namespace-Rt77',
  forbidden: 'PLANTED-forbidden-Yu88',
  noKeys: 'PLANTED-no-keys-Io99',
  vaultToken: 'PLANTED-vault-token-Pa10',
  vaultValue: 'PLANTED-vault-value-As11',
  vaultToken2: 'PLANTED-vault-token-two-Sd12',
  envValue: 'PLANTED-env-value-Df13',
  noKeysToken: 'PLANTED-no-keys-token-Gh14',
  platform: 'PLANTED-platform-credential-Jk15',
};
const planted = Object.values(P);
const ENV_PREFIX = 'SVC_TEST_SECRETS_AND_VARIABLES_';

const rec = createRecorder();
const { call } = rec;
let gw: TestGateway;
let noKeys: TestGateway;
let vault: VaultStandIn;
const t: Record<'viewer' | 'operator' | 'editor' | 'admin', string> = { viewer: '', operator: '', editor: '', admin: '' };

before(async () => {
  process.env[`${ENV_PREFIX}DB_PASSWORD`] = P.envValue;
  gw = await startTestGateway({ env: { SVC_MASTER_KEYS: formatMasterKeys([KEY]) } });
  noKeys = await startTestGateway({ shareWith: gw });
  vault = await startVaultStandIn({ token: P.vaultToken });
  vault.put('secret', 'team/db', { password: P.vaultValue, user: 'svc' });
  await gw.db.pool.query(`INSERT INTO namespaces (name) VALUES ('team'), ('team.data'), ('team.data.raw'), ('other')`);
  await makeUser(gw, 'admin@example.com', 'admin');
  const cookie = await login(gw, 'admin@example.com');
  for (const role of ['viewer', 'operator', 'editor', 'admin'] as const) t[role] = await makeToken(gw, cookie, role);
});
after(async () => {
  delete process.env[`${ENV_PREFIX}DB_PASSWORD`];
  await vault.close();
  await noKeys.close();
  await gw.close();
});

const ns = (n: string, rest = '') => `/api/v1/namespaces/${n}/secrets${rest}`;

test('namespace secrets: put answers metadata, list shows keys only, delete removes', async () => {
  const put = await call(gw, t.editor, 'PUT', ns('team', '/DB_PASSWORD'), { value: P.teamDb });
  assert.equal(put.status, 200, put.body);
  const body = put.json<Record<string, unknown>>();
  assertConforms('putNamespaceSecret', 200, body);
  assert.deepEqual([body.key, body.namespace, body.provider, body.key_id], ['DB_PASSWORD', 'team', 'builtin', 'k1']);
  assert.equal(Object.hasOwn(body, 'value'), false);
  assert.equal((await call(gw, t.editor, 'PUT', ns('team', '/API'), { value: 'x' })).status, 200);

  const list = await call(gw, t.viewer, 'GET', ns('team'));
  assert.equal(list.status, 200);
  assertConforms('listNamespaceSecrets', 200, list.json());
  assert.deepEqual(
    list.json<{ items: { key: string }[] }>().items.map((i) => i.key),
    ['API', 'DB_PASSWORD'],
  );
  const page1 = await call(gw, t.viewer, 'GET', ns('team', '?limit=1'));
  const { items, next_cursor } = page1.json<{ items: { key: string }[]; next_cursor: string }>();
  assert.deepEqual(
    items.map((i) => i.key),
    ['API'],
  );
  const page2 = (await call(gw, t.viewer, 'GET', ns('team', `?limit=1&cursor=${next_cursor}`))).json<{ items: { key: string }[]; next_cursor?: string }>();
  assert.deepEqual([page2.items.map((i) => i.key), page2.next_cursor], [['DB_PASSWORD'], undefined]);

  const stored = await gw.db.pool.query(`SELECT ciphertext FROM secrets WHERE namespace = 'team' AND key = 'DB_PASSWORD'`);
  assert.equal((stored.rows[0].ciphertext as Buffer).includes(Buffer.from(P.teamDb)), false, 'stored sealed');

  assert.equal((await call(gw, t.editor, 'DELETE', ns('team', '/API'))).status, 204);
  const again = await call(gw, t.editor, 'DELETE', ns('team', '/API'));
  assert.equal(again.status, 404);
  assert.equal(again.json().error.code, 'not_found');
});

test('a namespace that does not exist is 404 for secrets and variables alike', async () => {
  for (const [method, path, body] of [
    ['GET', ns('nope'), undefined],
    ['PUT', ns('nope', '/K'), { value: P.noNamespace }],
    ['DELETE', ns('nope', '/K'), undefined],
    ['POST', ns('nope', '/K/check'), undefined],
    ['GET', '/api/v1/namespaces/nope/variables', undefined],
    ['PUT', '/api/v1/namespaces/nope/variables/K', { value: 'v' }],
    ['DELETE', '/api/v1/namespaces/nope/variables/K', undefined],
  ] as const) {
    const r = await call(gw, t.admin, method, path, body);
    assert.equal(r.status, 404, `${method} ${path}`);
    assert.equal(r.json().error.code, 'not_found');
  }
  assert.equal((await gw.db.pool.query(`SELECT 1 FROM secrets WHERE namespace = 'nope'`)).rowCount, 0);
});

test('global secrets are written by admins and listed by anyone', async () => {
  const put = await call(gw, t.admin, 'PUT', '/api/v1/secrets/DB_PASSWORD', { value: P.globalDb });
  assert.equal(put.status, 200);
  assertConforms('putGlobalSecret', 200, put.json());
  assert.equal(put.json<{ namespace: null }>().namespace, null);
  assert.equal((await call(gw, t.admin, 'PUT', '/api/v1/secrets/API_KEY', { value: P.apiKey })).status, 200);
  const list = await call(gw, t.viewer, 'GET', '/api/v1/secrets');
  assertConforms('listGlobalSecrets', 200, list.json());
  assert.deepEqual(
    list.json<{ items: { key: string }[] }>().items.map((i) => i.key),
    ['API_KEY', 'DB_PASSWORD'],
  );
  const teamList = await call(gw, t.viewer, 'GET', ns('team'));
  assert.deepEqual(
    teamList.json<{ items: { key: string }[] }>().items.map((i) => i.key),
    ['DB_PASSWORD'],
    'scopes do not mix in lists',
  );
});

test('check says from which scope a key resolves: namespace, then each parent, then global', async () => {
  const check = async (namespace: string | undefined, key: string, role: keyof typeof t = 'editor') => {
    const path = namespace === undefined ? `/api/v1/secrets/${encodeURIComponent(key)}/check` : ns(namespace, `/${encodeURIComponent(key)}/check`);
    const r = await call(gw, t[role], 'POST', path);
    assert.equal(r.status, 200, r.body);
    assertConforms(namespace === undefined ? 'checkGlobalSecret' : 'checkNamespaceSecret', 200, r.json());
    return r.json<Record<string, unknown>>();
  };
  assert.deepEqual(await check('team', 'DB_PASSWORD'), { ok: true, key: 'DB_PASSWORD', scope: 'namespace', namespace: 'team' });
  assert.deepEqual(await check('team.data.raw', 'DB_PASSWORD'), { ok: true, key: 'DB_PASSWORD', scope: 'namespace', namespace: 'team' }, 'from a grandparent');
  assert.deepEqual(await check('other', 'DB_PASSWORD'), { ok: true, key: 'DB_PASSWORD', scope: 'global' });
  assert.deepEqual(await check('team.data', 'API_KEY'), { ok: true, key: 'API_KEY', scope: 'global' });
  await call(gw, t.editor, 'PUT', ns('team.data', '/DB_PASSWORD'), { value: P.dataOwn });
  assert.deepEqual(await check('team.data.raw', 'DB_PASSWORD'), { ok: true, key: 'DB_PASSWORD', scope: 'namespace', namespace: 'team.data' }, 'the nearer parent wins');
  assert.deepEqual(await check(undefined, 'DB_PASSWORD', 'admin'), { ok: true, key: 'DB_PASSWORD', scope: 'global' });

  const missing = await check('team.data', 'NOWHERE');
  assert.equal(missing.ok, false);
  assert.equal(missing.error, 'secret_not_found');
  assert.match(String(missing.message), /team\.data, team, global/);
  assert.equal((await check(undefined, 'NOWHERE', 'admin')).error, 'secret_not_found');
  // A namespace secret is not global.
  await call(gw, t.editor, 'PUT', ns('team', '/ONLY_TEAM'), { value: 'x' });
  assert.equal((await check(undefined, 'ONLY_TEAM', 'admin')).error, 'secret_not_found');

  const bad = await call(gw, t.editor, 'POST', ns('team', `/${encodeURIComponent('vault:../sys')}/check`));
  assert.equal(bad.status, 422);
  assert.equal(bad.json().error.details![0]!.field, 'key');
});

test('roles follow the catalog: viewers list, editors write namespace secrets, admins global ones', async () => {
  const expect = async (role: keyof typeof t, method: string, path: string, status: number, body?: unknown) => {
    const r = await call(gw, t[role], method, path, body);
    assert.equal(r.status, status, `${role} ${method} ${path}: ${r.body}`);
  };
  const v = { value: P.forbidden };
  await expect('viewer', 'GET', ns('team'), 200);
  await expect('viewer', 'GET', '/api/v1/secrets', 200);
  await expect('viewer', 'PUT', ns('team', '/R'), 403, v);
  await expect('operator', 'PUT', ns('team', '/R'), 403, v);
  await expect('operator', 'DELETE', ns('team', '/DB_PASSWORD'), 403);
  await expect('viewer', 'POST', ns('team', '/DB_PASSWORD/check'), 403);
  await expect('editor', 'PUT', '/api/v1/secrets/R', 403, v);
  await expect('editor', 'DELETE', '/api/v1/secrets/DB_PASSWORD', 403);
  await expect('editor', 'POST', '/api/v1/secrets/DB_PASSWORD/check', 403);
  await expect('editor', 'PUT', '/api/v1/variables/R', 403, { value: 'x' });
  await expect('viewer', 'PUT', '/api/v1/namespaces/team/variables/R', 403, { value: 'x' });
  await expect('viewer', 'GET', '/api/v1/variables', 200);
  await expect('viewer', 'GET', '/api/v1/secret-providers', 200);
  await expect('editor', 'POST', '/api/v1/secret-providers', 403, { name: 'x', type: 'env' });
  const rows = await gw.db.pool.query(`SELECT key FROM secrets WHERE key = 'R'`);
  assert.equal(rows.rowCount, 0);
});

test('secret writes and deletes are audited without the value', async () => {
  await call(gw, t.editor, 'PUT', ns('team', '/AUDITED'), { value: P.teamDbNew });
  await call(gw, t.editor, 'DELETE', ns('team', '/AUDITED'));
  const r = await call(gw, t.admin, 'GET', '/api/v1/audit?action=secret.put&limit=200');
  const events = r.json<{ items: { target: string; payload: Record<string, unknown> }[] }>().items;
  const put = events.find((e) => e.target === 'secret:team/AUDITED');
  assert.deepEqual(put?.payload, { namespace: 'team', key: 'AUDITED', created: true, key_id: 'k1' });
  assert.ok(
    events.some((e) => e.target === 'secret:DB_PASSWORD' && e.payload.namespace === null),
    'global puts too',
  );
  const del = await call(gw, t.admin, 'GET', '/api/v1/audit?action=secret.delete');
  assert.ok(del.json<{ items: { target: string }[] }>().items.some((e) => e.target === 'secret:team/AUDITED'));
});

test('with no master key, secret writes are 409 builtin_provider_disabled; reads and deletes still work', async () => {
  const put = await call(noKeys, t.editor, 'PUT', ns('team', '/NEW'), { value: P.noKeys });
  assert.equal(put.status, 409);
  assert.equal(put.json().error.code, 'builtin_provider_disabled');
  const g = await call(noKeys, t.admin, 'PUT', '/api/v1/secrets/NEW', { value: P.noKeys });
  assert.equal(g.json().error.code, 'builtin_provider_disabled');
  const provider = await call(noKeys, t.admin, 'POST', '/api/v1/secret-providers', {
    name: 'nokeys',
    type: 'vault',
    config: { address: vault.address },
    credentials: { token: P.noKeysToken },
  });
  assert.equal(provider.status, 409);
  assert.equal(provider.json().error.code, 'builtin_provider_disabled');
  assert.equal((await call(noKeys, t.viewer, 'GET', ns('team'))).status, 200);
  assert.equal((await call(noKeys, t.admin, 'PUT', '/api/v1/variables/PLAIN', { value: 'fine' })).status, 200, 'variables need no key');
  assert.equal((await call(noKeys, t.admin, 'DELETE', '/api/v1/variables/PLAIN')).status, 204);
  assert.equal((await noKeys.db.pool.query(`SELECT 1 FROM secrets WHERE key = 'NEW'`)).rowCount, 0);
});

test('variables: put, list, delete in both scopes; vars precedence flow > namespace > parents > global', async () => {
  const put = async (path: string, value: string, role: keyof typeof t = 'admin') => {
    const r = await call(gw, t[role], 'PUT', path, { value });
    assert.equal(r.status, 200, r.body);
    return r.json<Record<string, unknown>>();
  };
  const body = await put('/api/v1/namespaces/team/variables/region', 'team-region', 'editor');
  assertConforms('putNamespaceVariable', 200, body);
  assert.deepEqual([body.key, body.value, body.namespace], ['region', 'team-region', 'team']);
  assertConforms('putGlobalVariable', 200, await put('/api/v1/variables/region', 'global-region'));
  await put('/api/v1/variables/only_global', 'g');
  await put('/api/v1/namespaces/team.data/variables/region', 'data-region', 'editor');
  await put('/api/v1/namespaces/team/variables/team_only', 't', 'editor');

  const list = await call(gw, t.viewer, 'GET', '/api/v1/namespaces/team/variables');
  assertConforms('listNamespaceVariables', 200, list.json());
  assert.deepEqual(
    list.json<{ items: { key: string; value: string }[] }>().items.map((i) => [i.key, i.value]),
    [
      ['region', 'team-region'],
      ['team_only', 't'],
    ],
  );
  const globals = await call(gw, t.viewer, 'GET', '/api/v1/variables');
  assertConforms('listGlobalVariables', 200, globals.json());
  assert.deepEqual(
    globals.json<{ items: { key: string }[] }>().items.map((i) => i.key),
    ['only_global', 'region'],
  );

  const vars = new VariableStore(gw.db.pool);
  assert.deepEqual(await vars.resolveVars('team.data.raw'), { region: 'data-region', only_global: 'g', team_only: 't' });
  assert.deepEqual(await vars.resolveVars('team.data.raw', { region: 'flow-region' }), { region: 'flow-region', only_global: 'g', team_only: 't' });
  assert.deepEqual(await vars.resolveVars('other'), { region: 'global-region', only_global: 'g' });

  assert.equal((await call(gw, t.editor, 'DELETE', '/api/v1/namespaces/team.data/variables/region')).status, 204);
  assert.equal((await vars.resolveVars('team.data.raw')).region, 'team-region');
  assert.equal((await call(gw, t.editor, 'DELETE', '/api/v1/namespaces/team.data/variables/region')).status, 404);
  assert.equal((await call(gw, t.admin, 'DELETE', '/api/v1/variables/only_global')).status, 204);
  assert.equal((await call(gw, t.admin, 'DELETE', '/api/v1/variables/only_global')).status, 404);
  const audit = await call(gw, t.admin, 'GET', '/api/v1/audit?action=variable.put');
  assert.ok(audit.json<{ items: { target: string }[] }>().items.some((e) => e.target === 'variable:team/region'));
});

test('leak check: every route, success and error, with planted values; no response, header, log line or audit row holds one', async () => {
  const enc = encodeURIComponent;
  const exercise: [string, string, string, unknown?][] = [
    // secrets, every operation, plus refusals carrying planted values in the body
    [t.editor, 'PUT', ns('team', '/DB_PASSWORD'), { value: P.teamDbNew }],
    [t.editor, 'PUT', ns('team', '/BAD%20KEY'), { value: P.teamDbNew }],
    [t.editor, 'PUT', ns('team', '/LONG'), { value: P.tooLong + 'x'.repeat(70_000) }],
    [t.editor, 'PUT', ns('team', '/NUM'), { value: 12345, note: P.tooLong }],
    [t.editor, 'PUT', ns('team', '/BROKEN'), `{"value": "${P.tooLong}"`],
    [t.operator, 'PUT', ns('team', '/DB_PASSWORD'), { value: P.forbidden }],
    [t.viewer, 'GET', ns('team')],
    [t.editor, 'POST', ns('team', '/DB_PASSWORD/check')],
    [t.editor, 'POST', ns('team', '/MISSING/check')],
    [t.editor, 'DELETE', ns('team', '/ONLY_TEAM')],
    [t.admin, 'PUT', '/api/v1/secrets/API_KEY', { value: P.apiKey }],
    [t.admin, 'GET', '/api/v1/secrets'],
    [t.admin, 'POST', '/api/v1/secrets/API_KEY/check'],
    [t.admin, 'DELETE', '/api/v1/secrets/API_KEY'],
    [t.admin, 'DELETE', '/api/v1/secrets/API_KEY'],
    // variables
    [t.editor, 'PUT', '/api/v1/namespaces/team/variables/v1', { value: 'plain' }],
    [t.viewer, 'GET', '/api/v1/namespaces/team/variables'],
    [t.editor, 'DELETE', '/api/v1/namespaces/team/variables/v1'],
    [t.admin, 'PUT', '/api/v1/variables/v1', { value: 'plain' }],
    [t.viewer, 'GET', '/api/v1/variables'],
    [t.admin, 'DELETE', '/api/v1/variables/v1'],
    // providers: env and vault, with credentials in every shape
    [t.admin, 'POST', '/api/v1/secret-providers', { name: 'env', type: 'env', config: { prefix: ENV_PREFIX }, namespaces: ['team'] }],
    [t.admin, 'POST', '/api/v1/secret-providers', { name: 'vault', type: 'vault', config: { address: vault.address }, credentials: { token: P.vaultToken }, namespaces: ['team'] }],
    [t.admin, 'POST', '/api/v1/secret-providers', { name: 'vault', type: 'vault', config: { address: vault.address }, credentials: { token: P.vaultToken }, namespaces: ['team'] }],
    [t.admin, 'POST', '/api/v1/secret-providers', { name: 'bad', type: 'vault', config: { address: 'ftp://x' }, credentials: { token: P.vaultToken, extra: P.vaultToken2 } }],
    [t.admin, 'POST', '/api/v1/secret-providers', { name: 'wrong', type: 'vault', config: { address: vault.address }, credentials: { token: P.vaultToken2 } }],
    [t.viewer, 'GET', '/api/v1/secret-providers'],
    [t.admin, 'POST', '/api/v1/secret-providers/vault/check'],
    [t.admin, 'POST', '/api/v1/secret-providers/wrong/check'],
    [t.admin, 'POST', '/api/v1/secret-providers/env/check'],
    [t.editor, 'POST', ns('team', `/${enc('vault:team/db#password')}/check`)],
    [t.editor, 'POST', ns('team', `/${enc('vault:team/db')}/check`)],
    [t.editor, 'POST', ns('team', `/${enc('wrong:team/db#password')}/check`)],
    [t.editor, 'POST', ns('team', `/${enc('env:DB_PASSWORD')}/check`)],
    [t.admin, 'POST', `/api/v1/secrets/${enc('vault:team/db#password')}/check`],
    [t.admin, 'PUT', '/api/v1/secret-providers/vault', { config: { address: vault.address, mount: 'secret' } }],
    [t.admin, 'PUT', '/api/v1/secret-providers/wrong', { credentials: { token: P.vaultToken } }],
    [t.admin, 'PUT', '/api/v1/secret-providers/vault', { credentials: { nope: P.vaultToken2 } }],
    [t.admin, 'DELETE', '/api/v1/secret-providers/wrong'],
    [t.admin, 'DELETE', '/api/v1/secret-providers/wrong'],
    [t.admin, 'POST', '/api/v1/secret-providers/wrong/check'],
    // platform secrets: admin only, never resolved for a namespace
    [t.admin, 'PUT', '/api/v1/platform-secrets/GIT_TOKEN', { value: P.platform }],
    [t.editor, 'PUT', '/api/v1/platform-secrets/GIT_TOKEN', { value: P.forbidden }],
    [t.admin, 'GET', '/api/v1/platform-secrets'],
    [t.editor, 'POST', ns('team', '/GIT_TOKEN/check')],
    [t.admin, 'DELETE', '/api/v1/platform-secrets/GIT_TOKEN'],
    [t.admin, 'DELETE', '/api/v1/platform-secrets/GIT_TOKEN'],
  ];
  const statuses: number[] = [];
  const answers: Awaited<ReturnType<typeof call>>[] = [];
  for (const [cred, method, path, body] of exercise) {
    const r = await call(gw, cred, method, path, body);
    statuses.push(r.status);
    answers.push(r);
  }
  // A flow's namespace does not see the platform secret of the same name (it is not a secret of any scope).
  const platformSeen = answers[exercise.findIndex(([, m, p]) => m === 'POST' && p === ns('team', '/GIT_TOKEN/check'))]!;
  assert.equal(platformSeen.json<{ ok: boolean }>().ok, false, platformSeen.body);
  assert.deepEqual(
    statuses,
    [
      200, 422, 422, 422, 422, 403, 200, 200, 200, 204, 200, 200, 200, 204, 404, 200, 200, 204, 200, 200, 204, 201, 201, 409, 422, 201, 200, 200, 200, 200, 200, 200, 200, 200, 200,
      200, 200, 422, 204, 404, 404, 200, 403, 200, 200, 204, 404,
    ],
  );
  // Every operation of the three route groups was called at least once in this file.
  const groups = operations.filter((o) => ['secrets', 'variables', 'secret-providers'].includes(o.tag));
  assert.equal(groups.length, 22);
  const uncalled = groups.filter((o) => {
    const re = new RegExp(`^${o.method.toUpperCase()} ${o.path.replace(/\{[^}]+\}/g, '[^/?]+')}(\\?\\S*)? `);
    return !rec.seen.some((s) => re.test(s));
  });
  assert.deepEqual(
    uncalled.map((o) => o.operationId),
    [],
  );

  // The answers say something useful all the same.
  const providerCheck = await call(gw, t.editor, 'POST', ns('team', `/${enc('vault:team/db#password')}/check`));
  assert.deepEqual(providerCheck.json(), { ok: true, key: 'vault:team/db#password', scope: 'provider', provider: 'vault' });
  const envCheck = await call(gw, t.editor, 'POST', ns('team', `/${enc('env:DB_PASSWORD')}/check`));
  assert.deepEqual(envCheck.json(), { ok: true, key: 'env:DB_PASSWORD', scope: 'provider', provider: 'env' });

  const logs = [...gw.logs(), ...noKeys.logs()].map((l) => JSON.stringify(l));
  assert.ok(logs.length > 50, 'the request log was captured');
  const audit = (await gw.db.pool.query(`SELECT * FROM audit_events`)).rows.map((r) => JSON.stringify(r));
  assert.ok(audit.some((a) => a.includes('secret_provider.create')));
  const providerRows = (await gw.db.pool.query(`SELECT * FROM secret_providers`)).rows.map((r) => JSON.stringify(r));
  assert.ok(audit.some((a) => a.includes('platform_secret.set')));
  assertNoLeak(planted, [...rec.seen, ...logs, ...audit, ...providerRows]);
  // The values were really in play: the stand-in got the planted token.
  assert.ok(vault.requests.some((r) => r.token === P.vaultToken));
});
