import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PartReader } from './part-reader.js';

async function* chunks(sizes: number[]): AsyncGenerator<Buffer> {
  let n = 0;
  for (const size of sizes) yield Buffer.alloc(size, n++ % 256);
}

async function parts(sizes: number[], partSize: number): Promise<{ lengths: number[]; bytes: Buffer; doneAfterFirst: boolean }> {
  const reader = new PartReader(chunks(sizes), partSize);
  const out: Buffer[] = [];
  const first = await reader.next();
  const doneAfterFirst = reader.done;
  for (let part = first; part !== null; part = await reader.next()) out.push(part);
  assert.equal(reader.done, true);
  return { lengths: out.map((p) => p.length), bytes: Buffer.concat(out), doneAfterFirst };
}

describe('PartReader', () => {
  it('yields nothing for an empty source', async () => {
    assert.deepEqual(await parts([], 10), { lengths: [], bytes: Buffer.alloc(0), doneAfterFirst: true });
  });

  it('keeps a body shorter than one part whole and reports done after it', async () => {
    const result = await parts([3, 4], 10);
    assert.deepEqual(result.lengths, [7]);
    assert.equal(result.doneAfterFirst, true);
  });

  it('cuts chunks that straddle part boundaries into exact parts, last one short', async () => {
    const sizes = [4, 9, 1, 12, 3];
    const result = await parts(sizes, 10);
    assert.deepEqual(result.lengths, [10, 10, 9]);
    assert.equal(result.doneAfterFirst, false);
    assert.deepEqual(result.bytes, Buffer.concat(sizes.map((s, i) => Buffer.alloc(s, i))));
  });

  it('splits one chunk larger than several parts', async () => {
    assert.deepEqual((await parts([25], 10)).lengths, [10, 10, 5]);
  });

  it('a body of exactly one part is not known to be done until the source ends', async () => {
    const result = await parts([10], 10);
    assert.deepEqual(result.lengths, [10]);
    assert.equal(result.doneAfterFirst, false);
  });

  it('cancel stops the source', async () => {
    let finished = false;
    async function* source(): AsyncGenerator<Buffer> {
      try {
        for (;;) yield Buffer.alloc(4);
      } finally {
        finished = true;
      }
    }
    const reader = new PartReader(source(), 10);
    assert.equal((await reader.next())?.length, 10);
    await reader.cancel();
    assert.equal(finished, true);
  });
});
