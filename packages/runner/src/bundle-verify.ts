// The bundle a runner receives is checked against the spec's `bundle_hash`
// (the sha256 of the tar.gz bytes the service recorded when it built the
// bundle) before anything of it is unpacked: the bytes are written to a
// private spool file while they are hashed, and only a bundle whose hash
// matches is read back for extraction. A bundle changed in the object store
// (or on its way) fails the run with BundleHashMismatchError; no file of it
// reaches the task's directory.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** The received bundle's sha256 is not the `bundle_hash` of the spec. */
export class BundleHashMismatchError extends Error {
  override readonly name = 'BundleHashMismatchError';
  constructor(
    readonly expected: string,
    readonly actual: string,
  ) {
    super(`the bundle received has sha256 ${actual}, not the bundle_hash ${expected} of the task: it was changed after it was built; nothing of it was unpacked`);
  }
}

/**
 * The bundle of `get()`, checked against `expectedHash`: read whole into a
 * spool file in `spoolDir` (created when missing, readable by this user only)
 * while hashed, then returned as a stream of that file, whose name is removed
 * before the stream is returned (it reads the open file), so no spool file
 * outlives the call. Null (no bundle) stays null. An empty `expectedHash` (no
 * bundle expected) accepts an empty stream only.
 */
export async function verifiedBundle(get: () => Promise<NodeJS.ReadableStream | null>, expectedHash: string, spoolDir: string): Promise<NodeJS.ReadableStream | null> {
  const source = await get();
  if (!source) return null;
  fs.mkdirSync(spoolDir, { recursive: true });
  const file = path.join(spoolDir, `.bundle-${crypto.randomBytes(8).toString('hex')}.tar.gz`);
  const hasher = crypto.createHash('sha256');
  let size = 0;
  const hash = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      hasher.update(chunk);
      size += chunk.length;
      cb(null, chunk);
    },
  });
  let fd: number;
  try {
    await pipeline(source, hash, fs.createWriteStream(file, { flags: 'wx', mode: 0o600 }));
    const actual = hasher.digest('hex');
    if (expectedHash ? actual !== expectedHash : size > 0) throw new BundleHashMismatchError(expectedHash || '(none: no bundle expected)', actual);
    fd = fs.openSync(file, 'r');
  } finally {
    fs.rmSync(file, { force: true });
  }
  return fs.createReadStream('', { fd });
}
