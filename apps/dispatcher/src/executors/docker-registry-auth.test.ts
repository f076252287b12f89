import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseRegistryAuth } from '@svc/config';
import { pullCredentialNote, pullPlan, RegistryCredentialError } from './docker-registry-auth.js';

const entries = parseRegistryAuth('ghcr.io/acme-a=GHCR_A@team-a;docker.io=HUB;ghcr.io/acme-a/odd=ODD@team-a');
const VALUE = 'bot:s3cret-value-that-must-not-show';
/** Platform secrets by name; a missing one throws as the store does (reason platform_secret_not_found). */
const store = (values: Record<string, string>) => ({
  read: async (name: string) => {
    if (name in values) return values[name]!;
    throw Object.assign(new Error(`platform_secret_not_found: no platform secret ${name}`), { reason: 'platform_secret_not_found' });
  },
});

test('the served namespace gets the authconfig of its entry; Docker Hub credentials go to the address the engine expects', async () => {
  const plan = await pullPlan(entries, store({ GHCR_A: VALUE, HUB: 'u:p:with:colons' }), 'ghcr.io/acme-a/etl:1', 'team-a.x');
  assert.deepEqual(plan.authconfig, { username: 'bot', password: 's3cret-value-that-must-not-show', serveraddress: 'ghcr.io' });
  assert.equal(pullCredentialNote(plan, 'team-a.x'), 'with the credential of platform secret GHCR_A (SVC_DOCKER_REGISTRY_AUTH ghcr.io/acme-a=GHCR_A@team-a)');
  const hub = await pullPlan(entries, store({ HUB: 'u:p:with:colons' }), 'busybox', 'anyone');
  assert.deepEqual(hub.authconfig, { username: 'u', password: 'p:with:colons', serveraddress: 'https://index.docker.io/v1/' }, 'split at the first colon');
});

test('another namespace pulls anonymously and is told only that it is not served', async () => {
  const plan = await pullPlan(entries, store({ GHCR_A: VALUE }), 'ghcr.io/acme-a/etl:1', 'team-b');
  assert.equal(plan.authconfig, undefined);
  assert.equal(plan.unserved.length, 1);
  const note = pullCredentialNote(plan, 'team-b');
  assert.equal(note, 'anonymously (SVC_DOCKER_REGISTRY_AUTH serves the credential of this image to other namespaces, not to namespace team-b)');
  assert.equal(
    pullCredentialNote(await pullPlan(entries, undefined, 'quay.io/x/y', 'team-b'), 'team-b'),
    'anonymously (SVC_DOCKER_REGISTRY_AUTH has no credential for this image)',
  );
});

test('a missing, unopenable or malformed platform secret is a RegistryCredentialError naming it, never its value', async () => {
  await assert.rejects(pullPlan(entries, store({}), 'ghcr.io/acme-a/etl:1', 'team-a'), (err: Error) => {
    assert.ok(err instanceof RegistryCredentialError);
    assert.match(
      err.message,
      /^the platform secret GHCR_A that SVC_DOCKER_REGISTRY_AUTH names for ghcr.io\/acme-a=GHCR_A@team-a does not exist: set it \(svc platform-secret set GHCR_A/,
    );
    return true;
  });
  const broken = { read: async () => Promise.reject(Object.assign(new Error('x'), { reason: 'secret_undecryptable' })) };
  await assert.rejects(pullPlan(entries, broken, 'ghcr.io/acme-a/etl:1', 'team-a'), /cannot be opened \(secret_undecryptable\): check SVC_MASTER_KEYS/);
  const noColon = 'a-token-without-a-username';
  await assert.rejects(pullPlan(entries, store({ ODD: noColon }), 'ghcr.io/acme-a/odd/img', 'team-a'), (err: Error) => {
    assert.match(err.message, /platform secret ODD .* does not hold username:password$/, 'the longest prefix: ODD');
    assert.ok(!err.message.includes(noColon));
    return true;
  });
  await assert.rejects(pullPlan(entries, undefined, 'busybox', 'x'), /HUB .*cannot be read: this dispatcher has no platform secret store/);
});
