import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeCursor, encodeCursor, tryDecodeCursor } from './cursor.js';
import { HttpError } from './errors.js';

test('a cursor round-trips and is URL-safe', () => {
  const key = { created_at: '2026-11-21T10:00:00.123Z', id: '01JD/+x?' };
  const c = encodeCursor(key);
  assert.match(c, /^[A-Za-z0-9_-]+$/);
  assert.deepEqual(decodeCursor(c), key);
});

test('anything that is not a cursor we made is 422 on field cursor', () => {
  for (const bad of [
    '',
    'has space',
    'bm90IGpzb24',
    encodeCursor({}).replace(/./, '%'),
    Buffer.from('"str"').toString('base64url'),
    Buffer.from('null').toString('base64url'),
    'A'.repeat(5000),
  ]) {
    assert.equal(tryDecodeCursor(bad), undefined, bad);
    assert.throws(
      () => decodeCursor(bad),
      (err: unknown) => err instanceof HttpError && err.status === 422 && err.details?.[0]?.field === 'cursor',
    );
  }
});
