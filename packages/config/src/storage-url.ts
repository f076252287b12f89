import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where objects (bundles, files, logs, artifacts) are kept, parsed from `SVC_STORAGE_URL`. */
export type StorageTarget = FileStorageTarget | S3StorageTarget;

/** A directory on the local file system: `file:///abs/dir`. */
export interface FileStorageTarget {
  kind: 'file';
  /** Absolute directory. */
  dir: string;
}

/**
 * An S3-compatible bucket reached through the `minio` client:
 * `s3://KEY:SECRET@HOST[:PORT]/BUCKET[?ssl=true|false&region=REGION]`.
 */
export interface S3StorageTarget {
  kind: 's3';
  endPoint: string;
  /** Default 443 with TLS, 80 without. */
  port: number;
  /** `ssl` query parameter; default true. */
  useSSL: boolean;
  accessKey: string;
  secretKey: string;
  bucket: string;
  /** `region` query parameter; default `us-east-1`. */
  region: string;
}

/** `SVC_STORAGE_URL` does not have a supported shape. */
export class StorageUrlError extends Error {
  override readonly name = 'StorageUrlError';
}

// AWS's bucket rules; MinIO enforces the same ones.
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const S3_PARAMS = new Set(['ssl', 'region']);

/** Parses `file:///abs/dir` or `s3://KEY:SECRET@HOST:PORT/BUCKET?ssl=false&region=...`. */
export function parseStorageUrl(text: string): StorageTarget {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new StorageUrlError('expected file:///ABSOLUTE/DIR or s3://KEY:SECRET@HOST:PORT/BUCKET?ssl=false (percent-encode any / : @ in the key and secret)');
  }
  switch (url.protocol) {
    case 'file:':
      return parseFileUrl(url);
    case 's3:':
      return parseS3Url(url);
    default:
      throw new StorageUrlError(`unsupported scheme "${url.protocol}" (use file: or s3:)`);
  }
}

function parseFileUrl(url: URL): FileStorageTarget {
  // `file://data/objects` parses with host "data": almost always a relative path typed by mistake.
  if (url.host !== '' && url.host !== 'localhost') {
    throw new StorageUrlError('a file URL needs an absolute path: file:///ABSOLUTE/DIR (three slashes)');
  }
  if (url.search || url.hash) throw new StorageUrlError('a file URL takes no query or fragment');
  const dir = fileURLToPath(url);
  if (!path.isAbsolute(dir) || dir === path.parse(dir).root) {
    throw new StorageUrlError('a file URL needs an absolute directory other than the root');
  }
  return { kind: 'file', dir: dir.length > 1 ? dir.replace(/\/+$/, '') : dir };
}

function parseS3Url(url: URL): S3StorageTarget {
  const problems: string[] = [];
  const accessKey = decode(url.username);
  const secretKey = decode(url.password);
  if (!accessKey || !secretKey) problems.push('credentials are missing (s3://KEY:SECRET@HOST:PORT/BUCKET)');
  if (!url.hostname) problems.push('the host is missing');
  const bucket = url.pathname.replace(/^\/+/, '').replace(/\/+$/, '');
  if (!bucket) problems.push('the bucket is missing');
  else if (bucket.includes('/')) problems.push(`"${bucket}" is a path; give only a bucket name`);
  else if (!BUCKET.test(bucket) || bucket.includes('..')) {
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
  if (problems.length > 0) throw new StorageUrlError(problems.join('; '));
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

function decode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new StorageUrlError('the credentials have a malformed percent-escape');
  }
}
