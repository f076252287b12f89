import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bodyChunks, reconnectPause } from './stream-reading.js';

test('the pause before a reconnect: its ceiling doubles from the first up to the longest, the pause drawn anywhere below it', () => {
  const policy = { firstPauseMs: 1000, maxPauseMs: 15_000 };
  const table: [attempt: number, full: number][] = [
    [1, 1000],
    [2, 2000],
    [3, 4000],
    [4, 8000],
    [5, 15_000],
    [6, 15_000],
    [1_000_000, 15_000],
  ];
  for (const [attempt, full] of table) {
    assert.equal(
      reconnectPause(attempt, policy, () => 0),
      0,
      `attempt ${attempt}, least`,
    );
    assert.equal(
      reconnectPause(attempt, policy, () => 0.5),
      full / 2,
      `attempt ${attempt}, middle`,
    );
    assert.equal(
      reconnectPause(attempt, policy, () => 0.999999),
      Math.round(full * 0.999999),
      `attempt ${attempt}, most`,
    );
  }
  // The defaults: 200 ms doubling to 2 s.
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6].map((a) => reconnectPause(a, {}, () => 0.999999)),
    [200, 400, 800, 1600, 2000, 2000],
  );
});

/** A body as Safari gives it: a ReadableStream that is not async-iterable. */
function browserBody(pieces: string[], onCancel?: () => void): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (i < pieces.length) c.enqueue(enc.encode(pieces[i++]));
      else c.close();
    },
    cancel: () => onCancel?.(),
  });
  Object.defineProperty(body, Symbol.asyncIterator, { value: undefined });
  return body;
}

test('a body is read chunk by chunk with a reader, also where a stream is not async-iterable', async () => {
  const body = browserBody(['a', 'bc', 'd']);
  assert.throws(() => (body as unknown as AsyncIterable<Uint8Array>)[Symbol.asyncIterator](), TypeError, 'the stream itself cannot be iterated');
  const got: string[] = [];
  for await (const chunk of bodyChunks(body)) got.push(new TextDecoder().decode(chunk));
  assert.deepEqual(got, ['a', 'bc', 'd']);
  assert.equal(body.locked, false, 'the reader is released');
});

test('leaving the loop early cancels the body, so its connection is let go', async () => {
  let cancelled = false;
  const body = browserBody(['a', 'b', 'c'], () => (cancelled = true));
  for await (const chunk of bodyChunks(body)) if (new TextDecoder().decode(chunk) === 'a') break;
  assert.equal(cancelled, true);
});

test('a body that fails mid-way rejects the loop with its error', async () => {
  let n = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (n++ === 0) c.enqueue(new Uint8Array([1]));
      else c.error(new TypeError('network error'));
    },
  });
  const got: number[] = [];
  await assert.rejects(async () => {
    for await (const chunk of bodyChunks(body)) got.push(chunk.length);
  }, /network error/);
  assert.deepEqual(got, [1]);
});
