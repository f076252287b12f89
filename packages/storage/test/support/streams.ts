import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * A stream of `totalBytes` pseudo-random bytes in `chunkSize` pieces, with the
 * SHA-256 of its content known up front. `Readable.from` gives no length, so to
 * a store it is a stream of unknown size.
 */
export function patternedStream(totalBytes: number, chunkSize = 64 * 1024): { stream: () => Readable; sha256: string } {
  const block = randomBytes(chunkSize);
  function* chunks(): Generator<Buffer> {
    for (let offset = 0, i = 0; offset < totalBytes; offset += chunkSize, i++) {
      const chunk = Buffer.from(block.subarray(0, Math.min(chunkSize, totalBytes - offset)));
      if (chunk.length >= 4) chunk.writeUInt32BE(i, 0); // no two chunks alike, so a reordered part changes the hash
      yield chunk;
    }
  }
  const hash = createHash('sha256');
  for (const chunk of chunks()) hash.update(chunk);
  return { stream: () => Readable.from(chunks(), { objectMode: false }), sha256: hash.digest('hex') };
}

/** A stream that yields `bytesBeforeError` bytes and then fails with `error`. */
export function failingStream(bytesBeforeError: number, error: Error): Readable {
  return Readable.from(
    (async function* () {
      const chunk = 256 * 1024;
      for (let sent = 0; sent < bytesBeforeError; sent += chunk) {
        yield Buffer.alloc(Math.min(chunk, bytesBeforeError - sent), 0x61);
        await nextTurn();
      }
      throw error;
    })(),
    { objectMode: false },
  );
}

export async function sha256Of(stream: NodeJS.ReadableStream): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of stream) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    hash.update(buf);
    size += buf.length;
  }
  return { sha256: hash.digest('hex'), size };
}

export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}
