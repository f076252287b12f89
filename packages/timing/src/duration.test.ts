import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { DurationError, formatDuration, parseDuration } from './duration.js';

describe('parseDuration', () => {
  const valid: [string, number][] = [
    ['30s', 30_000],
    ['10m', 600_000],
    ['2h', 7_200_000],
    ['1h30m', 5_400_000],
    ['1.5s', 1500],
    ['300ms', 300],
    ['168h', 604_800_000],
    ['1m30s', 90_000],
    ['1h1m1s1ms', 3_661_001],
    ['0s', 0],
    ['1us', 0.001],
    ['1µs', 0.001],
    ['1μs', 0.001],
    ['500ns', 0.0005],
    ['1.1s', 1100],
    ['1s1s', 2000],
  ];
  for (const [text, ms] of valid) {
    it(`reads ${text} as ${ms} ms`, () => assert.equal(parseDuration(text), ms));
  }

  const invalid = ['', '1', '10', '1.5', '1d', '1w', '-1s', '+1s', '1 s', ' 1s', '1s ', 's', 'h1', '1h 30m', '1S', '1H', 'ms', '1.2.3s', 'abc', '1e3s', '1,5s'];
  for (const text of invalid) {
    it(`refuses ${JSON.stringify(text)}`, () => {
      assert.throws(
        () => parseDuration(text),
        (err: unknown) => err instanceof DurationError && err.text === text,
      );
    });
  }
});

describe('formatDuration', () => {
  const cases: [number, string][] = [
    [0, '0s'],
    [300, '300ms'],
    [1500, '1.5s'],
    [60_000, '1m'],
    [5_400_000, '1h30m'],
    [604_800_000, '168h'],
    [3_661_001, '1h1m1.001s'],
    [0.5, '500µs'],
    [0.0005, '500ns'],
  ];
  for (const [ms, text] of cases) {
    it(`formats ${ms} ms as ${text}`, () => assert.equal(formatDuration(ms), text));
  }

  it('reads back what it writes', () => {
    for (const ms of [1, 999, 1000, 1001, 59_999, 61_000, 3_600_000, 86_400_000, 123_456_789, 0.25, 0.001]) {
      assert.equal(parseDuration(formatDuration(ms)), ms);
    }
  });

  it('refuses negative and non-finite input', () => {
    assert.throws(() => formatDuration(-1), RangeError);
    assert.throws(() => formatDuration(Number.NaN), RangeError);
    assert.throws(() => formatDuration(Number.POSITIVE_INFINITY), RangeError);
  });
});
