import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseMasterKeys } from '@svc/config';
import { formatMasterKeys, generateMasterKey, open, openText, providerCredentialsAad, seal, secretAad } from './crypto.js';
import { BuiltinProviderDisabledError, MasterKeyMissingError, SecretDecryptError } from './errors.js';

const A = generateMasterKey('A');
const B = generateMasterKey('B');
const aad = secretAad('team', 'DB_PASSWORD');

describe('seal and open', () => {
  it('round-trips text and bytes, with a fresh nonce every time', () => {
    const s1 = seal('hunter2 ✓', [A], aad);
    const s2 = seal('hunter2 ✓', [A], aad);
    assert.equal(openText(s1, [A], aad), 'hunter2 ✓');
    assert.equal(s1.keyId, 'A');
    assert.equal(s1.nonce.length, 12);
    assert.notDeepEqual(s1.nonce, s2.nonce);
    assert.notDeepEqual(s1.ciphertext, s2.ciphertext);
    const bytes = Buffer.from([0, 1, 2, 255]);
    assert.deepEqual(open(seal(bytes, [A], aad), [A], aad), bytes);
    assert.equal(openText(seal('', [A], aad), [A], aad), '');
  });

  it('the ciphertext does not contain the plaintext', () => {
    const s = seal('plain-text-marker', [A], aad);
    assert.equal(s.ciphertext.includes(Buffer.from('plain-text-marker')), false);
  });

  it('seals with the first key and opens with the key whose id is stored (rotation)', () => {
    const old = seal('v', [A], aad);
    const rotated = [B, A];
    assert.equal(openText(old, rotated, aad), 'v', 'a value sealed with A still opens after B is added in front');
    const fresh = seal('w', rotated, aad);
    assert.equal(fresh.keyId, 'B');
    assert.equal(openText(fresh, [B], aad), 'w', 'only B is needed for new seals');
  });

  it('a key id that is not listed is MasterKeyMissingError naming the id', () => {
    const s = seal('v', [A], aad);
    assert.throws(
      () => open(s, [B], aad),
      (err: unknown) => {
        assert.ok(err instanceof MasterKeyMissingError);
        assert.equal(err.keyId, 'A');
        assert.equal(err.reason, 'master_key_missing');
        assert.match(err.message, /master_key_missing/);
        return true;
      },
    );
  });

  it('refuses to seal without keys (builtin_provider_disabled)', () => {
    assert.throws(() => seal('v', [], aad), BuiltinProviderDisabledError);
    assert.throws(() => seal('v', [], aad), /builtin_provider_disabled/);
  });

  it('detects a flipped bit anywhere: ciphertext, tag, nonce', () => {
    const s = seal('top secret value', [A], aad);
    for (const i of [0, 5, s.ciphertext.length - 1]) {
      const c = Buffer.from(s.ciphertext);
      c[i]! ^= 1;
      assert.throws(() => open({ ...s, ciphertext: c }, [A], aad), SecretDecryptError, `byte ${i}`);
    }
    const n = Buffer.from(s.nonce);
    n[0]! ^= 0x80;
    assert.throws(() => open({ ...s, nonce: n }, [A], aad), SecretDecryptError);
    assert.throws(() => open({ ...s, ciphertext: s.ciphertext.subarray(0, 10) }, [A], aad), SecretDecryptError, 'truncated');
  });

  it('binds the row: a ciphertext moved to another key, scope or provider does not open', () => {
    const s = seal('v', [A], secretAad('team', 'X'));
    assert.throws(() => open(s, [A], secretAad('team', 'Y')), SecretDecryptError);
    assert.throws(() => open(s, [A], secretAad('', 'X')), SecretDecryptError, 'copied to the global scope');
    assert.throws(() => open(s, [A], secretAad('team.data', 'X')), SecretDecryptError);
    assert.throws(() => open(s, [A], providerCredentialsAad('team')), SecretDecryptError);
    // The separator keeps ("a", "b.c") and ("a.b", "c")... distinct too.
    assert.notEqual(secretAad('a', 'bc'), secretAad('ab', 'c'));
  });

  it('a different key under the same id fails as undecryptable, not as missing', () => {
    const s = seal('v', [A], aad);
    const impostor = { id: 'A', key: generateMasterKey('x').key };
    assert.throws(
      () => open(s, [impostor], aad),
      (err: unknown) => err instanceof SecretDecryptError && err.reason === 'secret_undecryptable',
    );
  });

  it('error messages never carry the plaintext or key material', () => {
    const s = seal('plaintext-0xDEADBEEF', [A], aad);
    const errors: Error[] = [];
    for (const fn of [() => open(s, [B], aad), () => open(s, [A], secretAad('o', 'k')), () => seal('plaintext-0xDEADBEEF', [], aad)]) {
      try {
        fn();
      } catch (err) {
        errors.push(err as Error);
      }
    }
    assert.equal(errors.length, 3);
    for (const e of errors) {
      const text = `${e.message} ${e.stack} ${JSON.stringify(e)}`;
      assert.doesNotMatch(text, /plaintext-0xDEADBEEF/);
      assert.equal(text.includes(A.key.toString('base64')), false);
    }
  });

  it('formatMasterKeys writes what SVC_MASTER_KEYS parsing reads', () => {
    const parsed = parseMasterKeys(formatMasterKeys([B, A]));
    assert.deepEqual(
      parsed.map((k) => k.id),
      ['B', 'A'],
    );
    assert.ok(parsed[0]!.key.equals(B.key));
  });

  it('rejects a key of the wrong length instead of using it', () => {
    assert.throws(() => seal('v', [{ id: 'short', key: Buffer.alloc(16) }], aad), RangeError);
  });
});
