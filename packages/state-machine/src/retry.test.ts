import assert from 'node:assert/strict';
import { test } from 'node:test';
import { retryDelayMs, shouldRetry } from './retry.js';

const S = 1000;

test('fixed backoff waits the initial delay after every attempt', () => {
  const policy = { backoff: 'fixed', initialMs: 10 * S, maxMs: 600 * S } as const;
  assert.deepEqual(
    [1, 2, 3, 19].map((a) => retryDelayMs(policy, a)),
    [10 * S, 10 * S, 10 * S, 10 * S],
  );
});

test('exponential backoff doubles per attempt from the initial delay and stops at the maximum', () => {
  const policy = { backoff: 'exponential', initialMs: 10 * S, maxMs: 600 * S } as const;
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6, 7, 8].map((a) => retryDelayMs(policy, a)),
    [10 * S, 20 * S, 40 * S, 80 * S, 160 * S, 320 * S, 600 * S, 600 * S],
  );
});

test('exponential backoff stays a number for huge attempts and a zero initial delay', () => {
  assert.equal(retryDelayMs({ backoff: 'exponential', initialMs: 0, maxMs: 600 * S }, 5000), 0);
  assert.equal(retryDelayMs({ backoff: 'exponential', initialMs: 1, maxMs: 600 * S }, 5000), 600 * S);
});

test('a task is retried while its attempts are fewer than max_attempts', () => {
  assert.equal(shouldRetry({ maxAttempts: 1 }, 1), false);
  assert.equal(shouldRetry({ maxAttempts: 3 }, 1), true);
  assert.equal(shouldRetry({ maxAttempts: 3 }, 2), true);
  assert.equal(shouldRetry({ maxAttempts: 3 }, 3), false);
});

test('attempts are 1-based integers', () => {
  assert.throws(() => retryDelayMs({ backoff: 'fixed', initialMs: 1, maxMs: 1 }, 0), RangeError);
  assert.throws(() => shouldRetry({ maxAttempts: 3 }, 1.5), RangeError);
});
