// Master key rotation across gateway restarts on one database: sealed with A;
// restarted with B,A (old values still open, new ones sealed with B, /readyz
// ok); restarted with B alone (/readyz 503 master_key_missing) until
// rewrapSecrets moves the old rows to B.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { components } from '@svc/api-spec';
import { formatMasterKeys, generateMasterKey, PlatformSecretStore, ProviderStore, rewrapSecrets, SecretStore } from '@svc/secrets';
import { startVaultStandIn, type VaultStandIn } from '@svc/secrets/testing';
import { startTestGateway, type TestGateway } from './helpers.js';
import { login, makeToken, makeUser } from './identity-helpers.js';
import { assertNoLeak, createRecorder } from './secrets-helpers.js';

const A = generateMasterKey('keyA');
const B = generateMasterKey('keyB');
const P = {
  platform: 'PLANTED-rotation-platform-Qw19',
  old: 'PLANTED-rotation-old-Jk15',
  global: 'PLANTED-rotation-global-Lz16',
  fresh: 'PLANTED-rotation-new-Xc17',
  token: 'PLANTED-rotation-token-Vb18',
};

const { call, seen } = createRecorder();
const gateways: TestGateway[] = [];
let vault: VaultStandIn;
let gwA: TestGateway;
let admin = '';

async function start(keys: Parameters<typeof formatMasterKeys>[0], shareWith?: TestGateway) {
  const gw = await startTestGateway({ env: { SVC_MASTER_KEYS: formatMasterKeys(keys) }, ...(shareWith ? { shareWith } : {}) });
  gateways.push(gw);
  return gw;
}

async function readyz(gw: TestGateway) {
  const r = await fetch(`${gw.url}/readyz`);
  const body = (await r.json()) as { status: string; checks: Record<string, string>; failed?: string[] };
  seen.push(JSON.stringify(body));
  return { status: r.status, body };
}

before(async () => {
  vault = await startVaultStandIn({ token: P.token });
  vault.put('secret', 'app', { value: 'v' });
  gwA = await start([A]);
  await gwA.db.pool.query(`INSERT INTO namespaces (name) VALUES ('team')`);
  await makeUser(gwA, 'admin@example.com', 'admin');
  admin = await makeToken(gwA, await login(gwA, 'admin@example.com'), 'admin');
});
after(async () => {
  await vault.close();
  // The first gateway owns the database: close it last.
  for (const gw of gateways.reverse()) await gw.close();
});

test('a rotated master key: old values keep resolving, new ones use the new key, the old key retires after rewrap', async () => {
  assert.equal((await call(gwA, admin, 'PUT', '/api/v1/namespaces/team/secrets/OLD', { value: P.old })).json<{ key_id: string }>().key_id, 'keyA');
  assert.equal((await call(gwA, admin, 'PUT', '/api/v1/secrets/GLOBAL', { value: P.global })).status, 200);
  // A platform secret rotates with the rest.
  assert.equal((await call(gwA, admin, 'PUT', '/api/v1/platform-secrets/GIT_TOKEN', { value: P.platform })).json<{ key_id: string }>().key_id, 'keyA');
  assert.equal(
    (await call(gwA, admin, 'POST', '/api/v1/secret-providers', { name: 'vault', type: 'vault', config: { address: vault.address }, credentials: { token: P.token } })).status,
    201,
  );
  assert.equal((await readyz(gwA)).status, 200);

  // Restart with B first and A still listed.
  const gwBA = await start([B, A], gwA);
  const ready = await readyz(gwBA);
  assert.equal(ready.status, 200, JSON.stringify(ready.body));
  assert.equal(ready.body.checks.master_keys, 'ok');
  const oldCheck = await call(gwBA, admin, 'POST', '/api/v1/namespaces/team/secrets/OLD/check');
  assert.deepEqual(oldCheck.json(), { ok: true, key: 'OLD', scope: 'namespace', namespace: 'team' });
  assert.equal((await new SecretStore({ db: gwBA.db.pool, keys: [B, A] }).resolve('team', 'OLD')).value, P.old, 'the old value still opens');
  const fresh = await call(gwBA, admin, 'PUT', '/api/v1/namespaces/team/secrets/NEW', { value: P.fresh });
  assert.equal(fresh.json<{ key_id: string }>().key_id, 'keyB', 'new puts use the first key');
  const listed = await call(gwBA, admin, 'GET', '/api/v1/namespaces/team/secrets');
  assert.deepEqual(
    listed.json<{ items: { key: string; key_id: string }[] }>().items.map((i) => [i.key, i.key_id]),
    [
      ['NEW', 'keyB'],
      ['OLD', 'keyA'],
    ],
  );
  assert.deepEqual((await call(gwBA, admin, 'POST', '/api/v1/secret-providers/vault/check')).json(), { ok: true, message: `Vault at ${vault.address} accepts the token` });

  // Restart with B alone: the rows sealed with A cannot open.
  const gwB = await start([B], gwA);
  const failing = await readyz(gwB);
  assert.equal(failing.status, 503);
  assert.deepEqual(failing.body.failed, ['master_keys']);
  assert.match(failing.body.checks.master_keys!, /master_key_missing/);
  assert.match(failing.body.checks.master_keys!, /keyA/);
  const lost = (await call(gwB, admin, 'POST', '/api/v1/namespaces/team/secrets/OLD/check')).json<Record<string, unknown>>();
  assert.deepEqual([lost.ok, lost.error], [false, 'master_key_missing']);
  assert.deepEqual((await call(gwB, admin, 'POST', '/api/v1/namespaces/team/secrets/NEW/check')).json<{ ok: boolean }>().ok, true);
  const providerCheck = (await call(gwB, admin, 'POST', '/api/v1/secret-providers/vault/check')).json<components['schemas']['SecretProviderCheck']>();
  assert.equal(providerCheck.ok, false);
  assert.match(providerCheck.message, /master_key_missing/);

  // The operator rewraps with both keys listed, then A can go for good.
  const report = await rewrapSecrets(gwB.db.pool, [B, A]);
  assert.deepEqual(report, { secrets: 2, providers: 1, platformSecrets: 1, skipped: [] });
  assert.equal(await new PlatformSecretStore({ db: gwB.db.pool, keys: [B] }).read('GIT_TOKEN'), P.platform);
  assert.deepEqual(
    (await call(gwB, admin, 'GET', '/api/v1/platform-secrets')).json<{ items: components['schemas']['PlatformSecret'][] }>().items.map((i) => [i.name, i.key_id]),
    [['GIT_TOKEN', 'keyB']],
  );
  const healed = await readyz(gwB);
  assert.equal(healed.status, 200, JSON.stringify(healed.body));
  assert.deepEqual((await call(gwB, admin, 'POST', '/api/v1/namespaces/team/secrets/OLD/check')).json<{ ok: boolean }>().ok, true);
  assert.equal((await new SecretStore({ db: gwB.db.pool, keys: [B] }).resolve('team.sub', 'GLOBAL')).value, P.global);
  assert.equal((await new ProviderStore({ db: gwB.db.pool, keys: [B] }).get('vault'))?.credentialsKeyId, 'keyB');
  assert.equal((await call(gwB, admin, 'POST', '/api/v1/secret-providers/vault/check')).json<{ ok: boolean }>().ok, true);

  const logs = gateways.flatMap((g) => g.logs()).map((l) => JSON.stringify(l));
  assertNoLeak(Object.values(P), [...seen, ...logs]);
});
