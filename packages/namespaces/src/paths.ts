// File paths inside a namespace: normalised (NFC, repeated and leading `./`
// slashes folded) and confined to the namespace root. Anything that could
// climb out or mean two things (`..`, absolute paths, backslashes, NUL,
// control characters) is refused rather than cleaned.

export const MAX_PATH_LENGTH = 512;

export type PathResult = { ok: true; path: string } | { ok: false; message: string };

export function normalizePath(input: string): PathResult {
  if (typeof input !== 'string' || input.length === 0) return { ok: false, message: 'must not be empty' };
  if (input.includes('\0')) return { ok: false, message: 'must not contain a NUL byte' };
  // eslint-disable-next-line no-control-regex
  if (/[\u0001-\u001f\u007f]/.test(input)) return { ok: false, message: 'must not contain control characters' };
  if (input.includes('\\')) return { ok: false, message: 'must use / as the separator, not \\' };
  if (input.startsWith('/')) return { ok: false, message: 'must be relative to the namespace root (no leading /)' };
  if (/^[A-Za-z]:/.test(input)) return { ok: false, message: 'must be relative to the namespace root (no drive letter)' };
  if (input.endsWith('/')) return { ok: false, message: 'must name a file, not a folder (no trailing /)' };
  const segments = input
    .normalize('NFC')
    .split('/')
    .filter((s) => s !== '' && s !== '.');
  if (segments.some((s) => s === '..')) return { ok: false, message: 'must not contain ".." segments' };
  if (segments.some((s) => s.trim() === '')) return { ok: false, message: 'must not contain blank segments' };
  if (segments.length === 0) return { ok: false, message: 'must name a file' };
  const path = segments.join('/');
  if (path.length > MAX_PATH_LENGTH) return { ok: false, message: `must be at most ${MAX_PATH_LENGTH} characters long` };
  return { ok: true, path };
}

export const FLOW_FILE_SUFFIX = '.flow.yaml';
export const NAMESPACE_FILE = 'namespace.yaml';

export const isFlowFile = (path: string) => path.endsWith(FLOW_FILE_SUFFIX) && !path.split('/').pop()!.startsWith('.');

/** Namespace names: dot-separated labels of [a-z0-9-], each starting and ending with a letter or digit; at most 128 chars. */
export const NAMESPACE_PATTERN = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;

/** `a.b.c` → [`a.b`, `a`]: the parents, nearest first. */
export function parentNamespaces(name: string): string[] {
  const parts = name.split('.');
  const out: string[] = [];
  for (let i = parts.length - 1; i > 0; i--) out.push(parts.slice(0, i).join('.'));
  return out;
}
