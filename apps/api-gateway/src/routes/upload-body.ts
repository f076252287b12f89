// The body of a streamed upload (runnerPutArtifact, createUpload): checked before a byte is read, then handed on
// as a stream that the object store put reads one chunk at a time.
import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { HttpError, validationFailed } from '@svc/http';

/** The header in which a sender declares the sha256 (hex) of the body it sends. */
export const SHA256_HEADER = 'x-svc-sha256';

/**
 * A declared `Content-Length` over `limit` is 413 at once (naming `name` and the `setting`); an `x-svc-sha256` that
 * is not 64 hex digits is 422. The body comes through a PassThrough: a refusal mid-body destroys it, not the request,
 * whose socket must still carry the 413 or 422 (Node discards the rest of an unread body once the response is sent).
 * `pipe` forwards no failure: an upload cut off by its client ends the body with an error, so the put fails and keeps
 * nothing instead of waiting for bytes that never come.
 */
export function streamedUpload(req: IncomingMessage, o: { name: string; limit: number; setting: string }): { body: PassThrough; sha256?: string } {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > o.limit) throw new HttpError(413, 'too_large', `${o.name} is ${declared} bytes, over ${o.setting} (${o.limit} bytes)`);
  const sha = req.headers[SHA256_HEADER];
  if (sha !== undefined && (typeof sha !== 'string' || !/^[0-9a-fA-F]{64}$/.test(sha))) {
    throw validationFailed([{ field: SHA256_HEADER, message: 'must be 64 hexadecimal digits' }]);
  }
  const body = req.pipe(new PassThrough());
  req.once('error', (err) => body.destroy(err));
  req.once('close', () => {
    if (!req.complete) body.destroy(new Error('the upload was cut off before its end'));
  });
  return sha !== undefined ? { body, sha256: sha } : { body };
}
