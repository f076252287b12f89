import { Readable } from 'node:stream';
import { BodySourceFailure, ObjectSizeMismatchError } from './errors.js';
import { validateObjectKey } from './keys.js';
import type { ObjectBody, PutOptions } from './types.js';

/** Validates `PutOptions.size` up front, so a bad value fails before any I/O. */
export function checkExpectedSize(size: number | undefined): void {
  if (size !== undefined && (!Number.isSafeInteger(size) || size < 0)) {
    throw new RangeError(`size must be a non-negative integer, got ${size}`);
  }
}

/** A Buffer or string body as bytes; null for a stream. */
export function bodyBytes(body: ObjectBody): Buffer | null {
  if (Buffer.isBuffer(body)) return body;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  return null;
}

/**
 * Yields the body as Buffers. Throws {@link ObjectSizeMismatchError} as soon as
 * the body is known to differ from `expectedSize`, so an oversized stream is cut
 * short instead of being read to its end. Leaving the loop early destroys the
 * source stream (the async iterator of a Readable does that on `return`).
 */
export async function* bodyChunks(key: string, body: ObjectBody, expectedSize: number | undefined): AsyncGenerator<Buffer> {
  let source: AsyncIterable<unknown> | Iterable<unknown>;
  if (typeof body === 'string' || Buffer.isBuffer(body)) source = [bodyBytes(body)];
  else if (isAsyncIterable(body)) source = body;
  else source = new Readable().wrap(body); // an old-style stream without async iteration
  let total = 0;
  try {
    for await (const chunk of source) {
      const buf = Buffer.isBuffer(chunk) ? chunk : typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk as Uint8Array);
      total += buf.length;
      if (expectedSize !== undefined && total > expectedSize) throw new ObjectSizeMismatchError(key, expectedSize, total);
      if (buf.length > 0) yield buf;
    }
  } catch (err) {
    // Only the source's own failures get here: an error thrown by the consumer
    // at a `yield` ends this generator through `return`, not `throw`.
    if (err instanceof ObjectSizeMismatchError) throw err;
    throw new BodySourceFailure(err);
  }
  if (expectedSize !== undefined && total !== expectedSize) throw new ObjectSizeMismatchError(key, expectedSize, total);
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

/**
 * A content type goes into an HTTP header on S3, so it must be a short line of
 * printable ASCII; checked for both stores so they accept the same values.
 */
export function checkContentType(contentType: string | undefined): void {
  if (contentType === undefined) return;
  if (typeof contentType !== 'string' || contentType.length === 0 || contentType.length > 255 || !/^[\x20-\x7e]+$/.test(contentType)) {
    throw new TypeError(`contentType must be 1 to 255 printable ASCII characters, got ${JSON.stringify(contentType)}`);
  }
}

/**
 * `put` owns a stream body: when it fails, the stream is destroyed so that its
 * source (an HTTP request, a file) is released instead of waiting forever.
 */
export function discardBody(body: ObjectBody): void {
  const destroy = (body as { destroy?: unknown }).destroy;
  if (typeof body === 'object' && !Buffer.isBuffer(body) && typeof destroy === 'function') destroy.call(body);
}

/**
 * The part of every store's `put` that does not depend on the store: the
 * arguments are checked before any I/O, and a body the store could not take
 * is destroyed so a stream source is never left half-read and open.
 */
export async function guardedPut(key: string, body: ObjectBody, opts: PutOptions, write: () => Promise<{ size: number }>): Promise<{ size: number }> {
  try {
    validateObjectKey(key);
    checkExpectedSize(opts.size);
    checkContentType(opts.contentType);
    return await write();
  } catch (err) {
    discardBody(body);
    throw err;
  }
}
