import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SecretReferenceError } from './errors.js';
import { formatSecretReference, parseSecretReference } from './reference.js';
import { scopeChain } from './scope.js';

describe('parseSecretReference', () => {
  it('a key without ":" is a builtin secret', () => {
    assert.deepEqual(parseSecretReference('DB_PASSWORD'), { kind: 'builtin', key: 'DB_PASSWORD' });
    assert.deepEqual(parseSecretReference('a.b-c_9'), { kind: 'builtin', key: 'a.b-c_9' });
  });

  it('<provider>:<path>[#field] names a provider path', () => {
    assert.deepEqual(parseSecretReference('vault:team/db#password'), { kind: 'provider', provider: 'vault', path: 'team/db', field: 'password' });
    assert.deepEqual(parseSecretReference('env:DB_PASSWORD'), { kind: 'provider', provider: 'env', path: 'DB_PASSWORD' });
    assert.deepEqual(parseSecretReference('prod-vault:a/b/c'), { kind: 'provider', provider: 'prod-vault', path: 'a/b/c' });
  });

  it('round-trips through formatSecretReference', () => {
    for (const ref of ['K', 'vault:team/db#password', 'env:X', 'v2:a.b/c@d']) assert.equal(formatSecretReference(parseSecretReference(ref)), ref);
  });

  it('refuses paths that climb, empty parts, and bad names', () => {
    for (const bad of [
      '',
      'has space',
      'vault:',
      'vault:../sys/raw',
      'vault:team/../../sys',
      'vault:team/./db',
      'vault:team//db',
      'vault:/abs',
      'vault:team/db#',
      'vault:team/db#a#b',
      'Vault:team/db',
      ':path',
      'vault:team/db?x=1',
      'vault:team%2Fdb',
    ]) {
      assert.throws(() => parseSecretReference(bad), SecretReferenceError, bad);
    }
  });
});

describe('scopeChain', () => {
  it('walks from the namespace through each parent to global', () => {
    assert.deepEqual(scopeChain('a.b.c'), ['a.b.c', 'a.b', 'a', '']);
    assert.deepEqual(scopeChain('team'), ['team', '']);
    assert.deepEqual(scopeChain(''), ['']);
  });
});
