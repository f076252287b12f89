import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decideFire } from './catch-up.js';
import { FireTimes, ZoneClock } from './fire-times.js';

const every10 = new FireTimes('*/10 * * * *', new ZoneClock('UTC'));
const d = (iso: string) => new Date(iso);
const show = (x: ReturnType<typeof decideFire>) => ({ fire: x.fireTime?.toISOString().slice(11, 19) ?? null, dropped: x.dropped, next: x.next.toISOString().slice(11, 19) });

test('on time: both modes fire the due time', () => {
  for (const mode of ['none', 'last'] as const) {
    assert.deepEqual(show(decideFire(every10, d('2030-01-01T10:00:00Z'), d('2030-01-01T10:00:01Z'), mode)), { fire: '10:00:00', dropped: false, next: '10:10:00' });
  }
});

test('last: after a long outage only the latest missed time fires', () => {
  assert.deepEqual(show(decideFire(every10, d('2030-01-01T10:00:00Z'), d('2030-01-01T13:37:00Z'), 'last')), { fire: '13:30:00', dropped: true, next: '13:40:00' });
});

test('none: a missed time more than the on-time window late fires nothing; within the window it fires', () => {
  assert.deepEqual(show(decideFire(every10, d('2030-01-01T10:00:00Z'), d('2030-01-01T13:37:00Z'), 'none')), { fire: null, dropped: true, next: '13:40:00' });
  assert.deepEqual(show(decideFire(every10, d('2030-01-01T10:00:00Z'), d('2030-01-01T13:31:00Z'), 'none')), { fire: '13:30:00', dropped: true, next: '13:40:00' });
  assert.deepEqual(show(decideFire(every10, d('2030-01-01T13:30:00Z'), d('2030-01-01T13:31:00.001Z'), 'none')), { fire: null, dropped: true, next: '13:40:00' });
  assert.deepEqual(show(decideFire(every10, d('2030-01-01T13:30:00Z'), d('2030-01-01T13:30:20Z'), 'none', 10_000)), { fire: null, dropped: true, next: '13:40:00' });
});

test('a schedule that is not due is a programming error', () => {
  assert.throws(() => decideFire(every10, d('2030-01-01T10:00:00Z'), d('2030-01-01T09:59:59Z'), 'last'), /not due/);
});
