// Bundles: a snapshot's files as one tar.gz for runners, built once per
// snapshot and cached in the object store. The archive is deterministic
// (sorted entries, fixed times and owners, gzip without a timestamp), so two
// instances that build the same snapshot at once write identical bytes to the
// same key and either result is right. Each file object's bytes are checked
// against the sha256 that names them as they are packed: a changed object
// fails the build (FileObjectHashMismatchError) and no bundle is stored.
import crypto from 'node:crypto';
import { PassThrough, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import tar from 'tar-stream';
import type { Queryable } from '@svc/db';
import type { ObjectStore } from '@svc/storage';
import { contentHash, fileObjectKey } from './manifest.js';

export interface BundleInfo {
  snapshotId: string;
  key: string;
  size: number;
  /** SHA-256 of the tar.gz bytes (the runner spec's `bundle_hash`). */
  hash: string;
  /** True when this call built it; false when it was cached. */
  built: boolean;
}

export class SnapshotNotFoundError extends Error {
  override readonly name = 'SnapshotNotFoundError';
  constructor(readonly snapshotId: string) {
    super(`no snapshot ${snapshotId}`);
  }
}

/**
 * A file object's bytes do not hash to its key: the object store's copy was
 * changed (or damaged) after it was written. The bundle is not built, so no
 * task runs with that file.
 */
export class FileObjectHashMismatchError extends Error {
  override readonly name = 'FileObjectHashMismatchError';
  constructor(
    readonly snapshotId: string,
    readonly path: string,
    readonly expected: string,
    readonly actual: string,
  ) {
    super(
      `file ${JSON.stringify(path)} of snapshot ${snapshotId} does not match its sha256 in the object store (expected ${expected}, found ${actual}): the stored object was changed; the bundle is not built`,
    );
  }
}

export const bundleKey = (snapshotId: string) => `bundles/${snapshotId}.tar.gz`;
/** How often a used bundle's `last_used_at` is written at most. */
export const TOUCH_INTERVAL_MS = 3600_000;
const EPOCH = new Date('2000-01-01T00:00:00Z');

/** The bundle of a snapshot: the cached one, or built now. */
export async function ensureBundle(db: Queryable, storage: ObjectStore, snapshotId: string, now: Date): Promise<BundleInfo> {
  const s = await db.query<{ bundle_key: string | null; bundle_size: string | null; bundle_hash: string | null; last_used_at: Date }>(
    `SELECT bundle_key, bundle_size, bundle_hash, last_used_at FROM snapshots WHERE id = $1`,
    [snapshotId],
  );
  const row = s.rows[0];
  if (!row) throw new SnapshotNotFoundError(snapshotId);
  if (row.bundle_key && row.bundle_hash && (await storage.exists(row.bundle_key))) {
    // Cleanup removes bundles unused for 7 days: an hourly touch is plenty, and
    // spares the one row every task of a namespace shares a write per task.
    if (now.getTime() - row.last_used_at.getTime() > TOUCH_INTERVAL_MS) await db.query(`UPDATE snapshots SET last_used_at = $2 WHERE id = $1`, [snapshotId, now]);
    return { snapshotId, key: row.bundle_key, size: Number(row.bundle_size), hash: row.bundle_hash, built: false };
  }
  const files = (
    await db.query<{ path: string; file_hash: string; executable: boolean; size: string }>(
      `SELECT sf.path, sf.file_hash, sf.executable, fo.size FROM snapshot_files sf JOIN file_objects fo ON fo.hash = sf.file_hash
       WHERE sf.snapshot_id = $1 ORDER BY sf.path COLLATE "C"`,
      [snapshotId],
    )
  ).rows;

  const pack = tar.pack();
  const hasher = crypto.createHash('sha256');
  let size = 0;
  const measure = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      hasher.update(chunk);
      size += chunk.length;
      cb(null, chunk);
    },
  });
  const out = new PassThrough();
  const key = bundleKey(snapshotId);
  const upload = storage.put(key, out, { contentType: 'application/gzip' });
  const compress = pipeline(pack, zlib.createGzip({ level: 6 }), measure, out);
  // An upload that fails while files are still being packed (an object store
  // error) stops the build at once: nothing reads \`out\` any more, so packing
  // on would wait forever once its buffers fill, and the rejection must not go
  // unobserved until the end (an unhandled rejection ends the process).
  const uploadFailed = new Promise<never>((_, reject) => void upload.catch(reject));
  uploadFailed.catch(() => undefined);
  compress.catch(() => undefined); // observed below; after a failed upload it fails too
  upload.catch(() => pack.destroy());

  const dirs = new Set<string>();
  const header = { mtime: EPOCH, uid: 0, gid: 0, uname: '', gname: '' };
  for (const f of files) {
    const parts = f.path.split('/');
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/');
      if (dirs.has(dir)) continue;
      dirs.add(dir);
      pack.entry({ ...header, name: `${dir}/`, type: 'directory', mode: 0o755 });
    }
    const content = await Promise.race([storage.getBuffer(fileObjectKey(f.file_hash)), uploadFailed]);
    // A file object is named by the sha256 of its bytes: bytes that hash to anything else were changed in the store.
    const actual = contentHash(content);
    if (actual !== f.file_hash) {
      const err = new FileObjectHashMismatchError(snapshotId, f.path, f.file_hash, actual);
      // The upload fails with the archive, so nothing is stored under the bundle's key.
      pack.destroy(err);
      await Promise.allSettled([upload, compress]);
      throw err;
    }
    await Promise.race([
      new Promise<void>((resolve, reject) =>
        pack.entry({ ...header, name: f.path, type: 'file', mode: f.executable ? 0o755 : 0o644, size: content.length }, content, (err) => (err ? reject(err) : resolve())),
      ),
      uploadFailed,
    ]);
  }
  pack.finalize();
  await Promise.all([upload, compress]);
  const hash = hasher.digest('hex');
  await db.query(`UPDATE snapshots SET bundle_key = $2, bundle_size = $3, bundle_hash = $4, bundle_built_at = $5, last_used_at = $5 WHERE id = $1`, [
    snapshotId,
    key,
    size,
    hash,
    now,
  ]);
  return { snapshotId, key, size, hash, built: true };
}
