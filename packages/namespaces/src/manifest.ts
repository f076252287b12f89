import crypto from 'node:crypto';

/** One file of a version: its content object and mode. */
export interface ManifestEntry {
  hash: string;
  size: number;
  executable: boolean;
}

export type Manifest = Map<string, ManifestEntry>;

/** A stable hash of a manifest: the same files (paths, contents, modes) give the same hash. */
export function manifestHash(m: Manifest): string {
  const h = crypto.createHash('sha256');
  for (const path of [...m.keys()].sort()) {
    const e = m.get(path)!;
    h.update(`${path}\0${e.hash}\0${e.executable ? 'x' : '-'}\n`);
  }
  return h.digest('hex');
}

export const contentHash = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

/** Object store key of a file content (content-addressed: the same content is stored once). */
export const fileObjectKey = (hash: string) => `files/${hash.slice(0, 2)}/${hash}`;

/** Total bytes of a manifest (what a bundle of it holds before compression). */
export const manifestBytes = (m: Manifest) => [...m.values()].reduce((n, e) => n + e.size, 0);

/**
 * A file and a folder cannot share a path (`a` and `a/b`): a bundle extracts
 * to a real directory tree. Returns the first clash, or null.
 */
export function pathClash(m: Manifest): [string, string] | null {
  const paths = [...m.keys()].sort();
  const set = new Set(paths);
  for (const p of paths) {
    const parts = p.split('/');
    for (let i = 1; i < parts.length; i++) {
      const prefix = parts.slice(0, i).join('/');
      if (set.has(prefix)) return [prefix, p];
    }
  }
  return null;
}
