import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InvalidObjectKeyError } from './errors.js';
import { isValidObjectKey, validateListPrefix, validateObjectKey } from './keys.js';

describe('validateObjectKey', () => {
  const valid = ['a', 'files/ab/cdef', 'bundles/x.tar.gz', 'logs/e=1/t-2_3.log', '.hidden', 'a/..b', '...', `${'abcd/'.repeat(204)}abcd`, 'y'.repeat(245)];
  for (const key of valid) {
    it(`accepts ${JSON.stringify(key.slice(0, 40))}`, () => assert.doesNotThrow(() => validateObjectKey(key)));
  }

  const invalid: Array<[string, RegExp]> = [
    ['', /empty key/],
    ['../x', /".." segment/],
    ['a/../b', /".." segment/],
    ['..', /".." segment/],
    ['a/./b', /"\." segment/],
    ['.', /"\." segment/],
    ['/abs', /absolute/],
    ['a//b', /empty segment/],
    ['a/', /empty segment/],
    ['a\0b', /only letters/],
    ['a b', /only letters/],
    ['a\\b', /only letters/],
    ['a\nb', /only letters/],
    ['caf\u00e9', /only letters/],
    ['.tmp/x', /reserved/],
    ['.tmp', /reserved/],
    ['x'.repeat(1025), /longer than 1024/],
    [`a/${'y'.repeat(246)}`, /segment longer than 245/],
  ];
  for (const [key, reason] of invalid) {
    it(`rejects ${JSON.stringify(key.slice(0, 40))}`, () => {
      assert.throws(
        () => validateObjectKey(key),
        (err: unknown) => err instanceof InvalidObjectKeyError && err.key === key && reason.test(err.reason),
      );
      assert.equal(isValidObjectKey(key), false);
    });
  }

  it('escapes control characters in the message', () => {
    assert.throws(() => validateObjectKey('a\0b'), { message: /"a\\u0000b"/ });
  });
});

describe('validateListPrefix', () => {
  for (const prefix of ['', 'a', 'a/', 'a/b', 'files/ab', 'a/.', 'a/..', '.tmp/']) {
    it(`accepts ${JSON.stringify(prefix)}`, () => assert.doesNotThrow(() => validateListPrefix(prefix)));
  }
  for (const prefix of ['/', '/a', '../', 'a/../b', './', 'a//', 'a b', 'a\0', 'x'.repeat(1025)]) {
    it(`rejects ${JSON.stringify(prefix.slice(0, 40))}`, () => assert.throws(() => validateListPrefix(prefix), InvalidObjectKeyError));
  }
});
