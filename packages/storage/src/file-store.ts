import { randomUUID } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, rmdir, stat, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { bodyChunks, guardedPut } from './body.js';
import { wrapStoreError, ObjectKeyConflictError, ObjectNotFoundError, ObjectStoreError } from './errors.js';
import { RESERVED_TOP_SEGMENT, validateListPrefix, validateObjectKey } from './keys.js';
import type { ObjectBody, ObjectInfo, ObjectStore, PutOptions } from './types.js';

export interface FileObjectStoreOptions {
  /**
   * fsync each object before its rename and its directory after, so a committed
   * put survives a power loss. Turning it off only makes sense for throwaway data.
   * Default true.
   */
  fsync?: boolean;
}

/**
 * Suffix of the sidecar file holding an object's content type. `#` is not a key
 * character, so no key can name a sidecar and `list` skips them.
 */
const META_SUFFIX = '#meta.json';
/** Temporary files older than this are leftovers of a crash (see {@link FileObjectStore.sweepTempFiles}). */
const DEFAULT_TEMP_MAX_AGE_MS = 60 * 60 * 1000;
/** Retries of the final rename when a concurrent `delete` pruned the freshly made parent directory. */
const COMMIT_ATTEMPTS = 5;
const SEGMENT = /^[A-Za-z0-9._=-]+$/;

/**
 * Objects as plain files under `rootDir`, one file per key at `rootDir/<key>`, so
 * an operator can inspect and back them up with ordinary tools.
 *
 * - A put writes `rootDir/.tmp/<uuid>.part`, fsyncs it and renames it over the
 *   key: readers see the old or the new object, never a partial one, and a crash
 *   leaves at most a temporary file, which {@link sweepTempFiles} removes later.
 * - The content type lives in a sidecar `<key>#meta.json`, written after the data.
 *   A reader racing a put may briefly see new data with the old content type; the
 *   type is advisory, so that is accepted instead of a file format of our own.
 * - A path cannot be both a file and a directory, so `a` and `a/b` cannot both
 *   exist: the second put throws {@link ObjectKeyConflictError}.
 * - `delete` removes the directories it leaves empty.
 */
export class FileObjectStore implements ObjectStore {
  readonly kind = 'file' as const;
  readonly rootDir: string;
  private readonly fsync: boolean;

  constructor(rootDir: string, options: FileObjectStoreOptions = {}) {
    this.rootDir = path.resolve(rootDir);
    this.fsync = options.fsync ?? true;
  }

  /** Creates `rootDir` if missing and sweeps temporary files left by a crash. */
  static async open(rootDir: string, options: FileObjectStoreOptions = {}): Promise<FileObjectStore> {
    const store = new FileObjectStore(rootDir, options);
    try {
      // Owner only: under `npm start` the data directory is traversable by the task user (the work directory is inside), the store must not be.
      await mkdir(store.rootDir, { recursive: true, mode: 0o700 });
    } catch (err) {
      throw new ObjectStoreError('init', '', err);
    }
    await store.sweepTempFiles();
    return store;
  }

  async put(key: string, body: ObjectBody, opts: PutOptions = {}): Promise<{ size: number }> {
    return guardedPut(key, body, opts, () => this.putOwned(key, body, opts));
  }

  private async putOwned(key: string, body: ObjectBody, opts: PutOptions): Promise<{ size: number }> {
    const tmpDir = path.join(this.rootDir, RESERVED_TOP_SEGMENT);
    const tmp = path.join(tmpDir, `${randomUUID()}.part`);
    let fh: FileHandle | undefined;
    let committed = false;
    let size = 0;
    try {
      await mkdir(tmpDir, { recursive: true });
      fh = await open(tmp, 'wx', 0o644);
      for await (const chunk of bodyChunks(key, body, opts.size)) {
        await writeAll(fh, chunk);
        size += chunk.length;
      }
      if (this.fsync) await fh.sync();
      const closing = fh;
      fh = undefined;
      await closing.close();
      await this.commit(key, tmp, this.objectPath(key));
      committed = true;
    } catch (err) {
      throw wrapStoreError('put', key, err);
    } finally {
      await fh?.close().catch(() => undefined);
      if (!committed) await rm(tmp, { force: true }).catch(() => undefined);
    }
    await this.writeMeta(key, opts.contentType);
    return { size };
  }

  async get(key: string): Promise<NodeJS.ReadableStream> {
    const fh = await this.openObject(key);
    // Reading through the open handle: a concurrent put renames a new file over
    // the key, and this stream keeps reading the old one to its end.
    return fh.createReadStream();
  }

  async getBuffer(key: string): Promise<Buffer> {
    const fh = await this.openObject(key);
    try {
      return await fh.readFile();
    } catch (err) {
      throw wrapStoreError('get', key, err);
    } finally {
      await fh.close().catch(() => undefined);
    }
  }

  async stat(key: string): Promise<ObjectInfo | null> {
    validateObjectKey(key);
    const file = this.objectPath(key);
    try {
      const st = await stat(file);
      if (!st.isFile()) return null;
      const contentType = await this.readMeta(file);
      return { key, size: st.size, lastModified: st.mtime, ...(contentType === undefined ? {} : { contentType }) };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw wrapStoreError('stat', key, err);
    }
  }

  async exists(key: string): Promise<boolean> {
    return (await this.stat(key)) !== null;
  }

  async delete(key: string): Promise<void> {
    validateObjectKey(key);
    const file = this.objectPath(key);
    try {
      await unlink(file);
    } catch (err) {
      // EISDIR: the key is only a folder of other keys, so there is no object to delete.
      if (!isNotFound(err)) throw wrapStoreError('delete', key, err);
    }
    try {
      await rm(file + META_SUFFIX, { force: true });
      await this.pruneEmptyDirs(path.dirname(file));
    } catch (err) {
      throw wrapStoreError('delete', key, err);
    }
  }

  async *list(prefix: string): AsyncIterable<ObjectInfo> {
    validateListPrefix(prefix);
    const slash = prefix.lastIndexOf('/');
    yield* this.walk(slash >= 0 ? prefix.slice(0, slash) : '', prefix);
  }

  /**
   * Removes temporary files older than `olderThanMs` (default 1 hour): leftovers
   * of puts cut short by a crash. The age keeps in-flight puts of other
   * processes sharing the directory safe. Returns how many were removed.
   */
  async sweepTempFiles(olderThanMs: number = DEFAULT_TEMP_MAX_AGE_MS, now: Date = new Date()): Promise<number> {
    const tmpDir = path.join(this.rootDir, RESERVED_TOP_SEGMENT);
    let names: string[];
    try {
      names = await readdir(tmpDir);
    } catch (err) {
      if (isNotFound(err)) return 0;
      throw wrapStoreError('init', RESERVED_TOP_SEGMENT, err);
    }
    let removed = 0;
    for (const name of names) {
      const file = path.join(tmpDir, name);
      try {
        const st = await stat(file);
        if (now.getTime() - st.mtimeMs >= olderThanMs) {
          await rm(file, { force: true, recursive: true });
          removed += 1;
        }
      } catch (err) {
        if (!isNotFound(err)) throw wrapStoreError('init', `${RESERVED_TOP_SEGMENT}/${name}`, err);
      }
    }
    return removed;
  }

  async close(): Promise<void> {}

  private objectPath(key: string): string {
    return path.join(this.rootDir, ...key.split('/'));
  }

  private async openObject(key: string): Promise<FileHandle> {
    validateObjectKey(key);
    let fh: FileHandle | undefined;
    try {
      fh = await open(this.objectPath(key), 'r');
      if (!(await fh.stat()).isFile()) throw new ObjectNotFoundError(key);
      return fh;
    } catch (err) {
      await fh?.close().catch(() => undefined);
      if (isNotFound(err)) throw new ObjectNotFoundError(key, { cause: err });
      throw wrapStoreError('get', key, err);
    }
  }

  private async commit(key: string, tmp: string, dest: string): Promise<void> {
    const dir = path.dirname(dest);
    for (let attempt = 1; ; attempt++) {
      try {
        await mkdir(dir, { recursive: true });
        await rename(tmp, dest);
        break;
      } catch (err) {
        const code = errorCode(err);
        // A concurrent delete may prune the parent between mkdir and rename.
        if (code === 'ENOENT' && attempt < COMMIT_ATTEMPTS) continue;
        // ENOTDIR/EEXIST: a parent is an object; EISDIR/ENOTEMPTY: the key is a folder of other keys.
        if (code === 'ENOTDIR' || code === 'EEXIST' || code === 'EISDIR' || code === 'ENOTEMPTY') {
          throw new ObjectKeyConflictError(key, { cause: err });
        }
        throw err;
      }
    }
    if (this.fsync) await fsyncDir(dir);
  }

  private async writeMeta(key: string, contentType: string | undefined): Promise<void> {
    const metaFile = this.objectPath(key) + META_SUFFIX;
    try {
      if (contentType === undefined) {
        await rm(metaFile, { force: true });
        return;
      }
      const tmp = path.join(this.rootDir, RESERVED_TOP_SEGMENT, `${randomUUID()}.meta`);
      try {
        const fh = await open(tmp, 'wx', 0o644);
        try {
          await fh.writeFile(JSON.stringify({ contentType }));
          if (this.fsync) await fh.sync();
        } finally {
          await fh.close();
        }
        await rename(tmp, metaFile);
      } finally {
        await rm(tmp, { force: true }).catch(() => undefined);
      }
    } catch (err) {
      throw wrapStoreError('put', key, err);
    }
  }

  private async readMeta(file: string): Promise<string | undefined> {
    try {
      const parsed: unknown = JSON.parse(await readFile(file + META_SUFFIX, 'utf8'));
      const contentType = (parsed as { contentType?: unknown } | null)?.contentType;
      return typeof contentType === 'string' ? contentType : undefined;
    } catch {
      // A missing or damaged sidecar only loses the advisory content type.
      return undefined;
    }
  }

  private async pruneEmptyDirs(dir: string): Promise<void> {
    let current = dir;
    while (current !== this.rootDir && current.startsWith(this.rootDir + path.sep)) {
      try {
        await rmdir(current);
      } catch (err) {
        const code = errorCode(err);
        if (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'ENOENT') return;
        throw err;
      }
      current = path.dirname(current);
    }
  }

  /**
   * Depth-first walk in ascending key order: entries are sorted by `name` for
   * files and `name/` for directories, which is the order of the full keys.
   */
  private async *walk(dirKey: string, prefix: string): AsyncGenerator<ObjectInfo> {
    const dir = dirKey === '' ? this.rootDir : this.objectPath(dirKey);
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (err) {
      if (isNotFound(err)) return;
      throw wrapStoreError('list', prefix, err);
    }
    const items = entries
      .filter((e) => SEGMENT.test(e.name) && e.name !== '.' && e.name !== '..')
      .filter((e) => !(dirKey === '' && e.name === RESERVED_TOP_SEGMENT))
      .filter((e) => e.isFile() || e.isDirectory())
      .map((e) => {
        const key = dirKey === '' ? e.name : `${dirKey}/${e.name}`;
        return { key, isDir: e.isDirectory(), sortKey: e.isDirectory() ? `${key}/` : key };
      })
      .sort((a, b) => (a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : 0));
    for (const item of items) {
      if (item.isDir) {
        if (item.sortKey.startsWith(prefix) || prefix.startsWith(item.sortKey)) yield* this.walk(item.key, prefix);
        continue;
      }
      if (!item.key.startsWith(prefix)) continue;
      try {
        const st = await stat(path.join(dir, path.basename(item.key)));
        if (st.isFile()) yield { key: item.key, size: st.size, lastModified: st.mtime };
      } catch (err) {
        // Deleted between readdir and stat: it is simply no longer listed.
        if (!isNotFound(err)) throw wrapStoreError('list', item.key, err);
      }
    }
  }
}

async function writeAll(fh: FileHandle, chunk: Buffer): Promise<void> {
  let offset = 0;
  while (offset < chunk.length) {
    const { bytesWritten } = await fh.write(chunk, offset, chunk.length - offset);
    offset += bytesWritten;
  }
}

async function fsyncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

function errorCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : undefined;
}

/** ENOTDIR: a parent of the key is an object; EISDIR: the key is a folder. Neither holds an object. */
function isNotFound(err: unknown): boolean {
  if (err instanceof ObjectNotFoundError) return true;
  const code = errorCode(err);
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR';
}
