import { InvalidObjectKeyError } from './errors.js';

/** Longest key accepted; S3 allows 1024 bytes and our keys are ASCII. */
export const MAX_KEY_LENGTH = 1024;

/**
 * Longest segment: file systems allow 255 bytes per name, less the file store's
 * `#meta.json` sidecar suffix. Applied to both stores so the same keys work everywhere.
 */
export const MAX_SEGMENT_LENGTH = 245;

/**
 * First segment kept for the file store's temporary files. Rejected by both
 * stores so that the same keys are valid everywhere.
 */
export const RESERVED_TOP_SEGMENT = '.tmp';

const SEGMENT = /^[A-Za-z0-9._=-]+$/;
const PREFIX_CHARS = /^[A-Za-z0-9._=/-]*$/;

/** Why `segment` cannot be part of a key, or null when it can. */
function segmentProblem(segment: string): string | null {
  if (segment === '') return 'empty segment (leading, trailing or doubled "/")';
  if (segment === '.' || segment === '..') return `"${segment}" segment`;
  if (!SEGMENT.test(segment)) return 'only letters, digits, ".", "_", "=", "-" and "/" are allowed';
  if (segment.length > MAX_SEGMENT_LENGTH) return `segment longer than ${MAX_SEGMENT_LENGTH} characters`;
  return null;
}

/**
 * Throws {@link InvalidObjectKeyError} unless `key` is a `/`-separated relative
 * path of safe segments. Keys map one to one onto file paths in the file store,
 * so this is also what keeps a key from escaping the store's root directory.
 */
export function validateObjectKey(key: string): void {
  if (typeof key !== 'string') throw new InvalidObjectKeyError(String(key), 'not a string');
  if (key.length === 0) throw new InvalidObjectKeyError(key, 'empty key');
  if (key.length > MAX_KEY_LENGTH) throw new InvalidObjectKeyError(key, `longer than ${MAX_KEY_LENGTH} characters`);
  if (key.startsWith('/')) throw new InvalidObjectKeyError(key, 'absolute path (leading "/")');
  const segments = key.split('/');
  for (const segment of segments) {
    const problem = segmentProblem(segment);
    if (problem !== null) throw new InvalidObjectKeyError(key, problem);
  }
  if (segments[0] === RESERVED_TOP_SEGMENT) {
    throw new InvalidObjectKeyError(key, `"${RESERVED_TOP_SEGMENT}/" is reserved for temporary files`);
  }
}

/**
 * Throws {@link InvalidObjectKeyError} unless `prefix` could start a valid key:
 * `''` (everything), `logs/`, `files/ab`. Every complete segment (before the
 * last `/`) must be a valid segment; the part after it is only a string filter.
 */
export function validateListPrefix(prefix: string): void {
  if (typeof prefix !== 'string') throw new InvalidObjectKeyError(String(prefix), 'not a string');
  if (prefix.length > MAX_KEY_LENGTH) throw new InvalidObjectKeyError(prefix, `longer than ${MAX_KEY_LENGTH} characters`);
  if (prefix.startsWith('/')) throw new InvalidObjectKeyError(prefix, 'absolute path (leading "/")');
  if (!PREFIX_CHARS.test(prefix)) {
    throw new InvalidObjectKeyError(prefix, 'only letters, digits, ".", "_", "=", "-" and "/" are allowed');
  }
  const complete = prefix.split('/').slice(0, -1);
  for (const segment of complete) {
    const problem = segmentProblem(segment);
    if (problem !== null) throw new InvalidObjectKeyError(prefix, problem);
  }
}

/** Like {@link validateObjectKey}, as a boolean: for filtering foreign names out of listings. */
export function isValidObjectKey(key: string): boolean {
  try {
    validateObjectKey(key);
    return true;
  } catch {
    return false;
  }
}
