// The change set of `svc ns push`: what turns the namespace's head version
// into the local directory. Pure: it compares two listings by path and
// SHA-256 content hash. A path that disappeared and a new path with the same
// content is a rename (the server keeps the file object and the history reads
// as a move); every other difference is a put or a delete.
import type { RequestBody } from '@svc/api-spec/api-types';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { assertNever } from '@svc/assert';

export interface FileState {
  hash: string;
  executable: boolean;
}

export interface LocalFile extends FileState {
  /** Path relative to the directory, with `/` separators. */
  path: string;
  content: Buffer;
}

export type Change =
  { op: 'put'; path: string; kind: 'added' | 'modified'; executable: boolean; content: Buffer } | { op: 'delete'; path: string } | { op: 'rename'; path: string; new_path: string };

export const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

/** Directories never pushed: version control and package installs. */
const SKIPPED_DIRS = new Set(['.git', '.hg', '.svn', 'node_modules']);

/** Every file under `dir` (symlinks followed, the skipped directories left out), sorted by path. */
export function readLocalTree(dir: string): LocalFile[] {
  const out: LocalFile[] = [];
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      const full = path.join(dir, r);
      const st = fs.statSync(full);
      if (st.isDirectory()) {
        if (!SKIPPED_DIRS.has(e.name)) walk(r);
      } else if (st.isFile()) {
        const content = fs.readFileSync(full);
        out.push({ path: r, content, hash: sha256(content), executable: (st.mode & 0o111) !== 0 });
      }
    }
  };
  walk('');
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * The changes that make `remote` equal to `local`, renames first, then puts,
 * then deletes, each group sorted by path. Each removed path pairs with at
 * most one added path of the same hash (the first by path order).
 */
export function computeChanges(local: readonly LocalFile[], remote: ReadonlyMap<string, FileState>): Change[] {
  const localByPath = new Map(local.map((f) => [f.path, f]));
  const added = local.filter((f) => !remote.has(f.path));
  const removed = [...remote.keys()].filter((p) => !localByPath.has(p)).sort();
  const renames: Change[] = [];
  const puts: Change[] = [];
  const deletes: Change[] = [];

  const removedByHash = new Map<string, string[]>();
  for (const p of removed) {
    const h = remote.get(p)!.hash;
    removedByHash.set(h, [...(removedByHash.get(h) ?? []), p]);
  }
  const renamedFrom = new Set<string>();
  for (const f of added) {
    const from = removedByHash.get(f.hash)?.shift();
    if (from === undefined) {
      puts.push({ op: 'put', path: f.path, kind: 'added', executable: f.executable, content: f.content });
      continue;
    }
    renamedFrom.add(from);
    renames.push({ op: 'rename', path: from, new_path: f.path });
    // Same bytes, other mode: the rename keeps the old mode, a put sets the new one.
    if (remote.get(from)!.executable !== f.executable) puts.push({ op: 'put', path: f.path, kind: 'modified', executable: f.executable, content: f.content });
  }
  for (const f of local) {
    const r = remote.get(f.path);
    if (r && (r.hash !== f.hash || r.executable !== f.executable)) puts.push({ op: 'put', path: f.path, kind: 'modified', executable: f.executable, content: f.content });
  }
  for (const p of removed) if (!renamedFrom.has(p)) deletes.push({ op: 'delete', path: p });
  const byPath = (a: Change, b: Change) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  return [...renames.sort(byPath), ...puts.sort(byPath), ...deletes.sort(byPath)];
}

/** Text when the bytes are UTF-8 without NUL (as the server decides), else base64. */
function isText(b: Buffer): boolean {
  if (b.subarray(0, 8000).includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(b);
    return true;
  } catch {
    return false;
  }
}

/** A change as the body of saveChanges wants it. */
/** One change as saveChanges takes it. */
export function toWire(c: Change): RequestBody<'saveChanges'>['changes'][number] {
  switch (c.op) {
    case 'put':
      return isText(c.content)
        ? { op: 'put', path: c.path, content: c.content.toString('utf8'), executable: c.executable }
        : { op: 'put', path: c.path, content_base64: c.content.toString('base64'), executable: c.executable };
    case 'delete':
      return { op: 'delete', path: c.path };
    case 'rename':
      return { op: 'rename', path: c.path, new_path: c.new_path };
    default:
      return assertNever(c);
  }
}

/** One line per change: `+ added`, `~ modified`, `- deleted`, `> old -> new`. */
export function describeChange(c: Change): string {
  switch (c.op) {
    case 'put':
      return `${c.kind === 'added' ? '+' : '~'} ${c.path}`;
    case 'delete':
      return `- ${c.path}`;
    case 'rename':
      return `> ${c.path} -> ${c.new_path}`;
    default:
      return assertNever(c);
  }
}
