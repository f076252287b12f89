import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EndResult, PendingCompletion } from './completion.js';
import { CompletionBatcher, MAX_BATCH, MAX_WRITERS } from './completion-batcher.js';

const done = { state: 'SUCCESS' as const, reason: '', error: '', exitCode: 0 };
const item = (id: string): PendingCompletion => ({ taskRunId: id, done });
const ok = (items: PendingCompletion[]) => ({ results: items.map((it): EndResult => ({ executionId: `ex-${it.taskRunId}`, planned: true, claimed: [] })), followUps: [] });

test('a lone completion is written at once; those arriving while every writer is busy go together in the next batch', async () => {
  assert.equal(MAX_WRITERS, 2);
  const batches: string[][] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const b = new CompletionBatcher({
    write: async (items) => {
      batches.push(items.map((i) => i.taskRunId));
      if (batches.length <= MAX_WRITERS) await gate;
      return ok(items);
    },
    endOnly: async () => assert.fail('not used'),
    follow: async () => {},
  });
  const all = ['a', 'b', 'c', 'd', 'e'].map((id) => b.submit(item(id)));
  assert.deepEqual(batches, [['a'], ['b']], 'two writers start at once, one completion each');
  release();
  assert.deepEqual(
    (await Promise.all(all)).map((r) => r.executionId),
    ['ex-a', 'ex-b', 'ex-c', 'ex-d', 'ex-e'],
  );
  assert.deepEqual(batches, [['a'], ['b'], ['c', 'd', 'e']]);
});

test('a batch holds at most MAX_BATCH completions', async () => {
  const sizes: number[] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const b = new CompletionBatcher({
    write: async (items) => {
      sizes.push(items.length);
      if (sizes.length <= MAX_WRITERS) await gate;
      return ok(items);
    },
    endOnly: async () => assert.fail('not used'),
    follow: async () => {},
  });
  const all = Array.from({ length: MAX_BATCH + 7 }, (_, i) => b.submit(item(String(i))));
  release();
  await Promise.all(all);
  assert.deepEqual(sizes, [1, 1, MAX_BATCH, 5]);
});

test('a failed batch is written again one by one: one bad completion holds no other back, and falls back to ending alone', async () => {
  const calls: string[] = [];
  const warned: number[] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const b = new CompletionBatcher({
    write: async (items) => {
      calls.push(items.map((i) => i.taskRunId).join(','));
      if (calls.length <= MAX_WRITERS) await gate;
      if (items.some((i) => i.taskRunId === 'bad')) throw new Error('plan failed');
      return ok(items);
    },
    endOnly: async (it) => ({ executionId: `alone-${it.taskRunId}`, planned: false, claimed: [] }),
    follow: async () => {},
    onSplit: (_err, size) => warned.push(size),
  });
  const [x, g, bad, h] = ['x', 'g', 'bad', 'h'].map((id) => b.submit(item(id)));
  release();
  assert.equal((await x!).executionId, 'ex-x');
  assert.equal((await g!).executionId, 'ex-g');
  assert.deepEqual(await bad!, { executionId: 'alone-bad', planned: false, claimed: [] });
  assert.equal((await h!).executionId, 'ex-h');
  assert.deepEqual(calls, ['x', 'g', 'bad,h', 'bad', 'h']);
  assert.deepEqual(warned, [2]);
});

test('when even ending alone fails, the caller is told (and retries); follow-ups run before callers are answered', async () => {
  const order: string[] = [];
  const b = new CompletionBatcher({
    write: async (items) => {
      if (items[0]!.taskRunId === 'down') throw new Error('database down');
      order.push('write');
      return { ...ok(items), followUps: [{ kind: 'x' } as never] };
    },
    endOnly: async () => {
      throw new Error('still down');
    },
    follow: async (f) => void order.push(`follow ${f.length}`),
  });
  await assert.rejects(b.submit(item('down')), /still down/);
  await b.submit(item('up'));
  order.push('answered');
  assert.deepEqual(order, ['write', 'follow 1', 'answered']);
});
