import { assertNever } from '@svc/assert';
import { parseStorageUrl, StorageUrlError, type FileStorageTarget, type S3StorageTarget, type StorageTarget } from '@svc/config';
import { InvalidStorageUrlError } from './errors.js';
import { FileObjectStore } from './file-store.js';
import { S3ObjectStore } from './s3-store.js';
import type { ObjectStore } from './types.js';

/**
 * Where objects live, as parsed from a storage URL: the one grammar of
 * `SVC_STORAGE_URL`, owned by `@svc/config` so configuration is checked at
 * start-up and the store opens exactly what was checked.
 */
export type ObjectStoreTarget = StorageTarget;
export type FileObjectStoreTarget = FileStorageTarget;
export type S3ObjectStoreTarget = S3StorageTarget;

/** Parses a storage URL; throws {@link InvalidStorageUrlError} listing every problem. */
export function parseObjectStoreUrl(text: string): ObjectStoreTarget {
  try {
    return parseStorageUrl(text);
  } catch (err) {
    if (err instanceof StorageUrlError) throw new InvalidStorageUrlError(redactUrl(text), err.message.split('; '));
    throw err;
  }
}

/**
 * Opens the store a URL or parsed target names: for `file:` the directory is
 * created and crash leftovers swept; for `s3:` the bucket is checked and created
 * if missing, so an unreachable endpoint or bad credentials fail here.
 */
export async function createObjectStore(target: string | ObjectStoreTarget): Promise<ObjectStore> {
  const parsed = typeof target === 'string' ? parseObjectStoreUrl(target) : target;
  switch (parsed.kind) {
    case 'file':
      return FileObjectStore.open(parsed.dir);
    case 's3': {
      const store = new S3ObjectStore(parsed);
      try {
        await store.init();
      } catch (err) {
        await store.close();
        throw err;
      }
      return store;
    }
    default:
      return assertNever(parsed);
  }
}

/** The URL with any password replaced by `***`, for messages and logs. */
export function redactUrl(text: string): string {
  return text.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/:@]*):[^/@]*@/i, '$1:***@');
}
