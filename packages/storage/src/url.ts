import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertNever, InvalidStorageUrlError } from './errors.js';
import { FileObjectStore } from './file-store.js';
import { isValidBucketName, S3ObjectStore } from './s3-store.js';
import type { ObjectStore } from './types.js';

/**
 * Where objects live, as parsed from a storage URL. Same shape as
 * `StorageTarget` of `@svc/config`, so a parsed config can be passed straight in.
 */
export type ObjectStoreTarget = FileObjectStoreTarget | S3ObjectStoreTarget;

/** `file:///abs/dir`. */
export interface FileObjectStoreTarget {
  kind: 'file';
  /** Absolute directory; created if missing. */
  dir: string;
}

/** `s3://KEY:SECRET@HOST[:PORT]/BUCKET[?ssl=true|false&region=REGION]`. */
export interface S3ObjectStoreTarget {
  kind: 's3';
  endPoint: string;
  /** Default 443 with TLS, 80 without. */
  port: number;
  /** `ssl` query parameter; default true. */
  useSSL: boolean;
  accessKey: string;
  secretKey: string;
  /** Created if missing. */
  bucket: string;
  /** `region` query parameter; default `us-east-1`. */
  region: string;
}

const S3_PARAMS = new Set(['ssl', 'region']);
const USAGE = 'expected file:///ABSOLUTE/DIR or s3://KEY:SECRET@HOST:PORT/BUCKET?ssl=false&region=us-east-1';

/** Parses a storage URL; throws {@link InvalidStorageUrlError} listing every problem. */
export function parseObjectStoreUrl(text: string): ObjectStoreTarget {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidStorageUrlError(redactUrl(text), [USAGE]);
  }
  switch (url.protocol) {
    case 'file:':
      return parseFileUrl(text, url);
    case 's3:':
      return parseS3Url(text, url);
    default:
      throw new InvalidStorageUrlError(redactUrl(text), [`unsupported scheme "${url.protocol}" (use file: or s3:)`]);
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

function parseFileUrl(text: string, url: URL): FileObjectStoreTarget {
  // `file://data/objects` parses with host "data": a relative path typed by mistake.
  if (url.host !== '' && url.host !== 'localhost') {
    throw new InvalidStorageUrlError(redactUrl(text), ['a file URL needs an absolute path: file:///ABSOLUTE/DIR (three slashes)']);
  }
  if (url.search || url.hash) throw new InvalidStorageUrlError(redactUrl(text), ['a file URL takes no query or fragment']);
  const dir = fileURLToPath(url);
  if (!path.isAbsolute(dir) || dir === path.parse(dir).root) {
    throw new InvalidStorageUrlError(redactUrl(text), ['a file URL needs an absolute directory other than the root']);
  }
  return { kind: 'file', dir: path.resolve(dir) };
}

function parseS3Url(text: string, url: URL): S3ObjectStoreTarget {
  const problems: string[] = [];
  const accessKey = safeDecode(url.username);
  const secretKey = safeDecode(url.password);
  if (!accessKey || !secretKey) problems.push('credentials are missing (s3://KEY:SECRET@HOST:PORT/BUCKET)');
  if (!url.hostname) problems.push('the host is missing');
  const bucket = url.pathname.replace(/^\/+/, '').replace(/\/+$/, '');
  if (!bucket) problems.push('the bucket is missing');
  else if (bucket.includes('/')) problems.push(`"${bucket}" is a path; give only a bucket name`);
  else if (!isValidBucketName(bucket)) {
    problems.push(`bucket "${bucket}" is not a valid name (3 to 63 lower-case letters, digits, dots, hyphens)`);
  }
  for (const key of url.searchParams.keys()) {
    if (!S3_PARAMS.has(key)) problems.push(`unknown query parameter "${key}" (allowed: ssl, region)`);
  }
  const ssl = url.searchParams.get('ssl');
  if (ssl !== null && ssl !== 'true' && ssl !== 'false') problems.push('ssl must be true or false');
  const region = url.searchParams.get('region');
  if (region !== null && !/^[a-z0-9-]{1,64}$/.test(region)) problems.push(`region "${region}" is not valid`);
  if (url.hash) problems.push('an s3 URL takes no fragment');
  if (problems.length > 0) throw new InvalidStorageUrlError(redactUrl(text), problems);
  const useSSL = ssl !== 'false';
  return {
    kind: 's3',
    endPoint: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port ? Number(url.port) : useSSL ? 443 : 80,
    useSSL,
    accessKey,
    secretKey,
    bucket,
    region: region ?? 'us-east-1',
  };
}

/** Percent-decodes credentials; a malformed escape is kept literally rather than failing. */
function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
