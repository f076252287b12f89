import assert from 'node:assert/strict';
import { test } from 'node:test';
import { wallClockCron } from './wall-clock.js';
import { CronError } from './cron.js';

const take = (g: Generator<Date>, n: number) => Array.from({ length: n }, () => g.next().value.toISOString());

test('wall-clock times strictly after a date, lazily; macros expand', () => {
  const c = wallClockCron('*/20 * * * *');
  assert.deepEqual(take(c.after(new Date('2026-03-29T01:40:00Z')), 3), ['2026-03-29T02:00:00.000Z', '2026-03-29T02:20:00.000Z', '2026-03-29T02:40:00.000Z']);
  assert.deepEqual(take(c.after(new Date('2026-03-29T02:00:00Z')), 1), ['2026-03-29T02:20:00.000Z'], 'a time on the expression is not included');
  assert.equal(wallClockCron('@daily').fields, '0 0 * * *');
});

test('a new sequence restarts from its own date', () => {
  const c = wallClockCron('0 12 * * 1');
  assert.deepEqual(take(c.after(new Date('2026-01-01T00:00:00Z')), 1), ['2026-01-05T12:00:00.000Z']);
  assert.deepEqual(take(c.after(new Date('2025-12-01T00:00:00Z')), 1), ['2025-12-01T12:00:00.000Z']);
});

test('an expression the spec refuses throws CronError', () => {
  assert.throws(() => wallClockCron('* * * *'), CronError);
  assert.throws(() => wallClockCron('@yearly'), CronError);
});
