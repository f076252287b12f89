import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LogBatcher } from './log-batcher.js';
import type { LogLine } from './types.js';

test('numbers lines without gaps, keeps ts increasing, posts one batch at a time in order', async () => {
  const posts: LogLine[][] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let t = 100n;
  const b = new LogBatcher({
    batchLines: 3,
    batchMs: 5,
    clock: () => t, // a stuck clock: ts must still increase
    post: async (lines) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((r) => setTimeout(r, 2));
      posts.push(lines);
      inFlight--;
    },
  });
  for (let i = 0; i < 10; i++) b.add(i % 2 ? 'stderr' : 'stdout', `l${i}`);
  t = 50n; // the clock going back must not make ts go back
  b.add('stdout', 'last');
  await b.flush();
  const all = posts.flat();
  assert.deepEqual(
    all.map((l) => l.n),
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
  );
  assert.deepEqual(all.map((l) => l.text).slice(-2), ['l9', 'last']);
  assert.ok(all.every((l, i) => i === 0 || BigInt(l.ts) > BigInt(all[i - 1]!.ts)));
  assert.ok(posts.every((p) => p.length <= 3));
  assert.equal(maxInFlight, 1);
});

test('a small batch is posted after batchMs without a flush', async () => {
  const posts: LogLine[][] = [];
  const b = new LogBatcher({ batchMs: 20, post: async (l) => void posts.push(l) });
  b.add('stdout', 'x');
  assert.equal(posts.length, 0);
  await new Promise((r) => setTimeout(r, 60));
  assert.equal(posts.length, 1);
});

test('backpressure pauses above highWater and resumes once drained; a failed post is dropped', async () => {
  const events: boolean[] = [];
  let fail = true;
  let release: () => void = () => {};
  const gate = new Promise<void>((r) => (release = r));
  const dropped: number[] = [];
  const b = new LogBatcher({
    batchLines: 2,
    highWater: 4,
    onPressure: (p) => events.push(p),
    onPostError: (_e, lines) => dropped.push(lines.length),
    post: async () => {
      await gate;
      if (fail) {
        fail = false;
        throw new Error('boom');
      }
    },
  });
  for (let i = 0; i < 8; i++) b.add('stdout', String(i));
  assert.deepEqual(events, [true]);
  release();
  await b.flush();
  assert.deepEqual(events, [true, false]);
  assert.deepEqual(dropped, [2]);
});
