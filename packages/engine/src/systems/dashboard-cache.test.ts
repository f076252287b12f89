import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DashboardHoursCache, type KeptHour } from './dashboard-cache.js';

const H = 3_600_000;
const hour = (version: string, n: number): KeptHour => ({ version, success: n, failed: 0, timed_out: 0, cancelled: 0, skipped: 0, durations: new Float64Array(n) });
const at = (h: number) => new Date(h * H);

test('a request replaces the hours of its window: hours that lost their mark go, others stay; old hours are forgotten', () => {
  const c = new DashboardHoursCache();
  c.update(
    'a',
    at(10),
    at(20),
    new Map([
      [10 * H, hour('1', 1)],
      [11 * H, hour('2', 1)],
      [15 * H, hour('3', 1)],
    ]),
    at(0),
  );
  // A narrower window where hour 11 lost its mark and 12 got one.
  c.update('a', at(11), at(13), new Map([[12 * H, hour('4', 1)]]), at(0));
  assert.deepEqual(
    [...c.kept('a', at(0), at(30))].map(([h, e]) => [h / H, e.version]),
    [
      [10, '1'],
      [15, '3'],
      [12, '4'],
    ],
  );
  assert.deepEqual([...c.kept('a', at(11), at(13)).keys()], [12 * H], 'only the asked window');
  assert.equal(c.kept(null, at(0), at(30)).size, 0, 'filters are apart');
  c.update('a', at(20), at(21), new Map(), at(12));
  assert.deepEqual(
    [...c.kept('a', at(0), at(30)).keys()].map((h) => h / H),
    [15, 12],
  );
});

test('past its bound, the least recently used filters are dropped first, never the one just written', () => {
  const c = new DashboardHoursCache(10);
  c.update('a', at(0), at(5), new Map([[0, hour('1', 4)]]), at(0));
  c.update('b', at(0), at(5), new Map([[0, hour('1', 4)]]), at(0));
  c.update('a', at(0), at(5), new Map([[0, hour('1', 4)]]), at(0)); // a used again: b is now the oldest
  c.update('c', at(0), at(5), new Map([[0, hour('1', 4)]]), at(0));
  assert.deepEqual(
    ['a', 'b', 'c'].map((f) => c.kept(f, at(0), at(5)).size),
    [1, 0, 1],
  );
  c.update('d', at(0), at(5), new Map([[0, hour('1', 20)]]), at(0));
  assert.deepEqual(
    ['a', 'c', 'd'].map((f) => c.kept(f, at(0), at(5)).size),
    [0, 0, 1],
  );
});
