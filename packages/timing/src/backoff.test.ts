import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backoffCeiling, backoffDelay, retryAfterMs } from './backoff.js';

const policy = { firstMs: 200, maxMs: 5_000 };

describe('backoff', () => {
  it('doubles the ceiling per attempt up to the cap, and survives huge attempt numbers', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6, 7].map((n) => backoffCeiling(n, policy)),
      [200, 400, 800, 1600, 3200, 5000, 5000],
    );
    assert.equal(backoffCeiling(1e9, policy), 5000);
    assert.equal(backoffCeiling(0, policy), 200);
  });

  it('draws a full-jitter pause anywhere in [0, ceiling], half jitter in its upper half', () => {
    assert.equal(
      backoffDelay(3, policy, undefined, () => 0),
      0,
    );
    assert.equal(
      backoffDelay(3, policy, undefined, () => 0.5),
      400,
    );
    assert.equal(
      backoffDelay(3, policy, undefined, () => 0.999999),
      800,
    );
    assert.equal(
      backoffDelay(3, { ...policy, jitter: 0.5 }, undefined, () => 0),
      400,
    );
    assert.equal(
      backoffDelay(3, { ...policy, jitter: 0 }, undefined, () => 0.3),
      800,
    );
  });

  it('waits at least what Retry-After asks, with jitter on top so clients told the same do not return together', () => {
    assert.equal(
      backoffDelay(1, policy, 3_000, () => 0),
      3_000,
    );
    assert.equal(
      backoffDelay(1, policy, 3_000, () => 0.5),
      3_100,
    );
    const many = Array.from({ length: 200 }, () => backoffDelay(4, policy, 1_000));
    assert.ok(
      many.every((d) => d >= 1_000 && d <= 2_600),
      'within Retry-After and its ceiling',
    );
    assert.ok(new Set(many.map((d) => Math.floor(d / 100))).size >= 10, 'spread over the window');
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2026-12-06T12:00:00Z');
    assert.equal(retryAfterMs('7', now), 7_000);
    assert.equal(retryAfterMs(' 0 ', now), 0);
    assert.equal(retryAfterMs('Sun, 06 Dec 2026 12:00:05 GMT', now), 5_000);
    assert.equal(retryAfterMs('Sun, 06 Dec 2026 11:00:00 GMT', now), 0);
    assert.equal(retryAfterMs('soon', now), undefined);
    assert.equal(retryAfterMs(null, now), undefined);
    assert.equal(retryAfterMs('-3', now), undefined);
  });
});
