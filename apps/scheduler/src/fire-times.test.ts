// Fire times on daylight-saving days (2026) in Europe/Berlin (29 March 02:00
// → 03:00, 25 October 03:00 → 02:00) and America/New_York (8 March 02:00 →
// 03:00, 1 November 02:00 → 01:00), and the latest missed time.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCron } from '@svc/timing';
import { FireTimes, FireTimesCache, ZoneClock } from './fire-times.js';

const cache = new FireTimesCache();

/** `count` fire times after `after`, each as `UTC instant = local wall time`. */
function seq(cron: string, tz: string, after: string, count: number): string[] {
  const f = cache.get(cron, tz);
  const clock = new ZoneClock(tz);
  const out: string[] = [];
  let t = new Date(after);
  for (let i = 0; i < count; i++) {
    t = f.next(t);
    out.push(`${t.toISOString().slice(0, 16)}=${new Date(clock.wallOf(t.getTime())).toISOString().slice(11, 16)}`);
  }
  return out;
}

test('what cron-parser does on its own (kept as the reason for fire-times.ts): a skipped 02:30 moves to 03:30, a repeated half-hour fires twice', () => {
  // If a cron-parser upgrade changes this, fire-times.ts may be simplified.
  const berlinSpring = parseCron('30 2 * * *').nextTimes(new Date('2026-03-28T12:00:00Z'), 1, 'Europe/Berlin');
  assert.equal(berlinSpring[0]!.toISOString(), '2026-03-29T01:30:00.000Z'); // 03:30 CEST
  const berlinFall = parseCron('*/30 * * * *')
    .nextTimes(new Date('2026-10-24T23:30:00Z'), 4, 'Europe/Berlin')
    .map((d) => d.toISOString());
  assert.deepEqual(berlinFall, ['2026-10-25T00:00:00.000Z', '2026-10-25T00:30:00.000Z', '2026-10-25T01:00:00.000Z', '2026-10-25T01:30:00.000Z']);
});

test('Europe/Berlin spring forward: a daily 02:30 fires once, at 03:00 (the next valid minute)', () => {
  assert.deepEqual(seq('30 2 * * *', 'Europe/Berlin', '2026-03-27T12:00:00Z', 4), [
    '2026-03-28T01:30=02:30',
    '2026-03-29T01:00=03:00',
    '2026-03-30T00:30=02:30',
    '2026-03-31T00:30=02:30',
  ]);
});

test('Europe/Berlin spring forward: every 30 minutes skips 02:00 and 02:30 and fires 03:00 once', () => {
  assert.deepEqual(seq('*/30 * * * *', 'Europe/Berlin', '2026-03-28T23:45:00Z', 4), [
    '2026-03-29T00:00=01:00',
    '2026-03-29T00:30=01:30',
    '2026-03-29T01:00=03:00',
    '2026-03-29T01:30=03:30',
  ]);
});

test('Europe/Berlin fall back: a daily 02:30 fires once, and every 30 minutes fires the repeated hour once', () => {
  assert.deepEqual(seq('30 2 * * *', 'Europe/Berlin', '2026-10-23T12:00:00Z', 3), ['2026-10-24T00:30=02:30', '2026-10-25T00:30=02:30', '2026-10-26T01:30=02:30']);
  assert.deepEqual(seq('*/30 * * * *', 'Europe/Berlin', '2026-10-24T23:15:00Z', 5), [
    '2026-10-24T23:30=01:30',
    '2026-10-25T00:00=02:00',
    '2026-10-25T00:30=02:30',
    // 02:00 and 02:30 CET (01:00Z, 01:30Z) are repeats: skipped.
    '2026-10-25T02:00=03:00',
    '2026-10-25T02:30=03:30',
  ]);
});

test('Europe/Berlin fall back: asked from inside the repeated hour, the next time is after it', () => {
  // 01:10Z is 02:10 CET, the second pass; 02:30 already fired at 00:30Z.
  assert.equal(cache.get('30 2 * * *', 'Europe/Berlin').next(new Date('2026-10-25T01:10:00Z')).toISOString(), '2026-10-26T01:30:00.000Z');
  assert.equal(cache.get('*/30 * * * *', 'Europe/Berlin').next(new Date('2026-10-25T01:10:00Z')).toISOString(), '2026-10-25T02:00:00.000Z');
});

test('America/New_York spring forward: a daily 02:15 fires at 03:00; hourly skips nothing but fires 03:00 once', () => {
  assert.deepEqual(seq('15 2 * * *', 'America/New_York', '2026-03-07T00:00:00Z', 3), ['2026-03-07T07:15=02:15', '2026-03-08T07:00=03:00', '2026-03-09T06:15=02:15']);
  assert.deepEqual(seq('0 * * * *', 'America/New_York', '2026-03-08T05:30:00Z', 3), ['2026-03-08T06:00=01:00', '2026-03-08T07:00=03:00', '2026-03-08T08:00=04:00']);
});

test('America/New_York fall back: hourly fires 01:00 once, a daily 01:30 fires once', () => {
  assert.deepEqual(seq('0 * * * *', 'America/New_York', '2026-11-01T03:30:00Z', 4), [
    '2026-11-01T04:00=00:00',
    '2026-11-01T05:00=01:00',
    // 06:00Z is 01:00 EST again: skipped.
    '2026-11-01T07:00=02:00',
    '2026-11-01T08:00=03:00',
  ]);
  assert.deepEqual(seq('30 1 * * *', 'America/New_York', '2026-10-31T12:00:00Z', 2), ['2026-11-01T05:30=01:30', '2026-11-02T06:30=01:30']);
});

test('the macros and UTC behave as plain cron', () => {
  assert.deepEqual(seq('@hourly', 'UTC', '2026-01-01T00:00:00Z', 2), ['2026-01-01T01:00=01:00', '2026-01-01T02:00=02:00']);
  assert.deepEqual(seq('@weekly', 'UTC', '2026-01-01T00:00:00Z', 1), ['2026-01-04T00:00=00:00']); // a Sunday
  assert.deepEqual(seq('@monthly', 'Europe/Berlin', '2026-01-15T00:00:00Z', 1), ['2026-01-31T23:00=00:00']);
});

test('latestAtOrBefore: the last fire time at or before an instant, across DST and long gaps', () => {
  const daily = cache.get('30 2 * * *', 'Europe/Berlin');
  assert.equal(daily.latestAtOrBefore(new Date('2026-03-29T12:00:00Z'))!.toISOString(), '2026-03-29T01:00:00.000Z');
  assert.equal(daily.latestAtOrBefore(new Date('2026-03-29T01:00:00Z'))!.toISOString(), '2026-03-29T01:00:00.000Z');
  assert.equal(daily.latestAtOrBefore(new Date('2026-03-29T00:59:59Z'))!.toISOString(), '2026-03-28T01:30:00.000Z');
  // Inside the repeated hour: 02:30 CEST already happened.
  const half = cache.get('*/30 * * * *', 'Europe/Berlin');
  assert.equal(half.latestAtOrBefore(new Date('2026-10-25T01:45:00Z'))!.toISOString(), '2026-10-25T00:30:00.000Z');
  const yearly = cache.get('0 0 1 1 *', 'UTC');
  assert.equal(yearly.latestAtOrBefore(new Date('2026-12-31T00:00:00Z'))!.toISOString(), '2026-01-01T00:00:00.000Z');
  const leap = cache.get('0 12 29 2 *', 'UTC');
  assert.equal(leap.latestAtOrBefore(new Date('2027-06-01T00:00:00Z'))!.toISOString(), '2024-02-29T12:00:00.000Z');
});

test('next is strictly after, and consistent with latestAtOrBefore over a whole DST year', () => {
  for (const [cron, tz] of [
    ['*/20 * * * *', 'Europe/Berlin'],
    ['0 2 * * *', 'America/New_York'],
    ['45 1 * * *', 'America/New_York'],
  ] as const) {
    const f = new FireTimes(cron, new ZoneClock(tz));
    let t = new Date('2026-01-01T00:00:00Z');
    let prev = -Infinity;
    for (let i = 0; i < 600; i++) {
      const n = f.next(t);
      assert.ok(n.getTime() > t.getTime() && n.getTime() > prev);
      assert.equal(f.latestAtOrBefore(new Date(n.getTime() + 1000))!.getTime(), n.getTime(), `${cron} ${tz} at ${n.toISOString()}`);
      prev = n.getTime();
      t = n;
      // Jump ahead now and then so the walk covers the year and both transitions.
      if (i % 50 === 49) t = new Date(t.getTime() + 30 * 86_400_000);
    }
  }
});
