import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { serializeError, toPlain } from './serialize.js';

class QuotaError extends Error {
  override readonly name = 'QuotaError';
  constructor(readonly limit: number) {
    super(`over ${limit}`);
  }
}

describe('serializeError', () => {
  it('keeps name, message, stack and structured fields', () => {
    const out = serializeError(new QuotaError(5));
    assert.equal(out.name, 'QuotaError');
    assert.equal(out.message, 'over 5');
    assert.equal(out.limit, 5);
    assert.match(String(out.stack), /over 5/);
  });

  it('follows causes and aggregated errors', () => {
    const out = serializeError(new AggregateError([new Error('a'), 'b'], 'many', { cause: 'why' }));
    assert.equal(out.cause, 'why');
    assert.deepEqual(
      (out.errors as unknown[]).map((e) => (typeof e === 'string' ? e : (e as { message: string }).message)),
      ['a', 'b'],
    );
  });

  it('stops at a cause cycle', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    a.cause = b;
    const out = serializeError(a);
    assert.equal((out.cause as { cause: unknown }).cause, '[Circular]');
  });
});

describe('toPlain', () => {
  it('converts what JSON cannot hold', () => {
    const date = new Date('2026-01-01T00:00:00Z');
    assert.deepEqual(toPlain({ d: date, m: new Map([['k', 1]]), s: new Set([1, 2]), f: function named() {}, u: undefined }), {
      d: '2026-01-01T00:00:00.000Z',
      m: { k: 1 },
      s: [1, 2],
      f: '[Function named]',
      u: undefined,
    });
  });

  it('prints a shared object twice when it is not a cycle', () => {
    const shared = { x: 1 };
    assert.deepEqual(toPlain({ a: shared, b: shared }), { a: { x: 1 }, b: { x: 1 } });
  });
});
