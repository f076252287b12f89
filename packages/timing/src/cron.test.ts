import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cronProblem, parseCron } from './cron.js';
import { isValidTimeZone } from './timezone.js';

describe('parseCron', () => {
  const valid = ['* * * * *', '0 9 * * 1-5', '*/15 * * * *', '0 0 1 jan,jul *', '30 2 * * sun', '0 0 1-7 * 1', '@hourly', '@daily', '@weekly', '@monthly', ' 5  4 * * * '];
  for (const e of valid) it(`accepts ${JSON.stringify(e)}`, () => assert.equal(cronProblem(e), null));

  const invalid: [string, RegExp][] = [
    ['* * * *', /five fields.*got 4/],
    ['0 * * * * *', /five fields.*got 6/],
    ['61 * * * *', /61 is outside the range 0-59/],
    ['0 25 * * *', /25 is outside the range 0-23/],
    ['0 0 32 * *', /32 is outside the range 1-31/],
    ['0 0 * 13 *', /13 is outside the range 1-12/],
    ['0 0 * * 8', /8 is outside the range 0-7/],
    ['@yearly', /unknown macro @yearly/],
    ['@every 5m', /unknown macro/],
    ['', /five fields.*got 0/],
  ];
  for (const [e, re] of invalid) it(`rejects ${JSON.stringify(e)}`, () => assert.match(cronProblem(e) ?? 'accepted', re));

  it('computes fire times in a time zone', () => {
    const c = parseCron('0 9 * * *');
    const [a, b] = c.nextTimes(new Date('2026-06-01T00:00:00Z'), 2, 'Europe/Paris');
    assert.equal(a!.toISOString(), '2026-06-01T07:00:00.000Z'); // 09:00 CEST
    assert.equal(b!.toISOString(), '2026-06-02T07:00:00.000Z');
    assert.equal(c.next(new Date('2026-06-01T07:00:00Z'), 'Europe/Paris').toISOString(), '2026-06-02T07:00:00.000Z', 'strictly after');
    assert.equal(parseCron('@daily').next(new Date('2026-01-01T12:00:00Z')).toISOString(), '2026-01-02T00:00:00.000Z');
  });

  it('refuses an unknown time zone when evaluating', () => {
    assert.throws(() => parseCron('@hourly').next(new Date(), 'Mars/Olympus'), /unknown time zone/);
  });
});

describe('isValidTimeZone', () => {
  for (const z of ['UTC', 'Europe/Paris', 'America/New_York', 'Asia/Kolkata', 'US/Eastern']) it(`knows ${z}`, () => assert.equal(isValidTimeZone(z), true));
  for (const z of ['', 'Mars/Olympus', 'Europe/Pariss', 'GMT+25']) it(`does not know ${JSON.stringify(z)}`, () => assert.equal(isValidTimeZone(z), false));
});
