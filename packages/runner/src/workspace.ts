// The bundle root on disk: extracting the snapshot's tar.gz, writing the spec's
// files, finding the working directory, all confined to the root. A path is
// checked lexically first, then each existing directory on the way is checked
// physically (realpath), because a symlink chain such as `a/b -> ..` plus
// `c -> a/b/../..` looks inside lexically and leads out physically.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import tar from 'tar-stream';
import { assertNever } from '@svc/assert';
import { BundleTooLargeError, PrepareError, UnsafePathError } from './errors.js';

/** `rel` resolved under `root` (absolute, real path), or an UnsafePathError. No file system access. */
export function confine(root: string, rel: string): string {
  if (rel.includes('\0')) throw new UnsafePathError(rel, 'contains a NUL byte');
  if (path.isAbsolute(rel)) throw new UnsafePathError(rel, 'is absolute');
  const abs = path.resolve(root, rel);
  if (!isInside(root, abs)) throw new UnsafePathError(rel, 'escapes the bundle root');
  return abs;
}

export function isInside(root: string, abs: string): boolean {
  return abs === root || abs.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

/**
 * Creates the directory `rel` under `root` one component at a time, following only
 * links that stay inside, and returns its real path.
 */
export async function ensureDir(root: string, rel: string): Promise<string> {
  let cur = root;
  const parts = path.relative(root, confine(root, rel)).split(path.sep).filter(Boolean);
  for (const part of parts) {
    const next = path.join(cur, part);
    const st = await fsp.lstat(next).catch(() => null);
    if (!st) {
      await fsp.mkdir(next, { mode: 0o755 });
      cur = next;
      continue;
    }
    const real = st.isSymbolicLink() ? await fsp.realpath(next).catch(() => null) : next;
    if (!real || !isInside(root, real)) throw new UnsafePathError(rel, `${path.relative(root, next)} leads outside the bundle root`);
    if (!(await fsp.stat(real)).isDirectory()) throw new UnsafePathError(rel, `${path.relative(root, next)} is not a directory`);
    cur = real;
  }
  return cur;
}

/** The physical path for a new entry `rel`: its parent exists inside root; whatever was at the path is removed. */
async function freshEntryPath(root: string, rel: string, keepDirectory: boolean): Promise<string> {
  const lexical = confine(root, rel);
  if (lexical === root) throw new UnsafePathError(rel, 'names the bundle root');
  const parent = await ensureDir(root, path.relative(root, path.dirname(lexical)));
  const target = path.join(parent, path.basename(lexical));
  const st = await fsp.lstat(target).catch(() => null);
  if (st && !(keepDirectory && st.isDirectory())) await fsp.rm(target, { recursive: true, force: true });
  return target;
}

/** Git-like modes: the bundle keeps only whether a file is executable. */
const fileMode = (mode: number | undefined) => ((mode ?? 0o644) & 0o111 ? 0o755 : 0o644);

export interface ExtractResult {
  files: number;
  bytes: number;
}

/**
 * Extracts a tar.gz into `root` (an existing, real directory). Refuses absolute
 * names, names with `..` leading out, links whose target is outside, and writes
 * through links; keeps executable bits. An empty stream is an empty bundle.
 * @param maxBytes sum of file sizes allowed; 0 or less = no limit.
 */
export async function extractBundle(source: NodeJS.ReadableStream, root: string, maxBytes: number): Promise<ExtractResult> {
  let compressed = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      compressed += chunk.length;
      cb(null, chunk);
    },
  });
  const extract = tar.extract();
  const piping = pipeline(source, counter, zlib.createGunzip(), extract);
  piping.catch(() => {}); // its error also reaches the iterator below
  const result: ExtractResult = { files: 0, bytes: 0 };
  const symlinks: string[] = [];
  try {
    for await (const entry of extract) {
      const h = entry.header;
      const name = h.name.replace(/^(\.\/)+/, '');
      switch (h.type) {
        case 'file':
        case 'contiguous-file':
        case null:
        case undefined: {
          result.bytes += h.size ?? 0;
          if (maxBytes > 0 && result.bytes > maxBytes) throw new BundleTooLargeError(maxBytes);
          const target = await freshEntryPath(root, name, false);
          await pipeline(entry, fs.createWriteStream(target, { flags: 'wx', mode: fileMode(h.mode) }));
          await fsp.chmod(target, fileMode(h.mode)); // the umask may have cleared bits
          result.files++;
          continue;
        }
        case 'directory':
          if (name && name !== '.' && name !== './') await ensureDir(root, name);
          break;
        case 'symlink': {
          const link = h.linkname ?? '';
          const lexical = confine(root, name);
          if (!link || path.isAbsolute(link) || !isInside(root, path.resolve(path.dirname(lexical), link))) {
            throw new UnsafePathError(name, `link to ${JSON.stringify(link)} points outside the bundle root`);
          }
          const target = await freshEntryPath(root, name, false);
          await fsp.symlink(link, target);
          symlinks.push(target);
          break;
        }
        case 'link': {
          // Hard link: linkname is a path from the archive root, and must name a file already extracted.
          const from = (h.linkname ?? '').replace(/^(\.\/)+/, '');
          const fromDir = await ensureDir(root, path.relative(root, path.dirname(confine(root, from))));
          const existing = path.join(fromDir, path.basename(from));
          const st = await fsp.lstat(existing).catch(() => null);
          if (!st?.isFile()) throw new UnsafePathError(name, `hard link to ${JSON.stringify(from)}, which is not a file in the bundle`);
          await fsp.link(existing, await freshEntryPath(root, name, false));
          break;
        }
        case 'character-device':
        case 'block-device':
        case 'fifo':
          break; // never in a snapshot; not worth creating
        default:
          assertNever(h.type);
      }
      entry.resume();
    }
    await piping;
  } catch (err) {
    extract.destroy();
    if (compressed === 0 && !(err instanceof UnsafePathError) && !(err instanceof BundleTooLargeError)) return result;
    throw err;
  }
  // A link checked lexically can still lead out through another link; now every link exists, check physically.
  for (const l of symlinks) {
    const real = await fsp.realpath(l).catch(() => null);
    if (real && !isInside(root, real)) throw new UnsafePathError(path.relative(root, l), 'link leads outside the bundle root');
  }
  return result;
}

/**
 * Writes the spec's `files` under `root`. A file starting with `#!` is made
 * executable, so `command: [./script.sh]` works for a generated script.
 */
export async function writeFiles(root: string, files: Record<string, string>, owner?: { uid: number; gid: number }): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    const target = await freshEntryPath(root, rel, false);
    const mode = content.startsWith('#!') ? 0o755 : 0o644;
    await fsp.writeFile(target, content, { flag: 'wx', mode });
    await fsp.chmod(target, mode);
    // The task's own file, as the rest of its working directory.
    if (owner) await fsp.lchown(target, owner.uid, owner.gid);
  }
}

/** The task's cwd: `workdir` under root; it must exist and be a directory inside. */
export function resolveCwd(root: string, workdir: string): string {
  const lexical = confine(root, workdir || '.');
  let real: string | null = null;
  try {
    real = fs.realpathSync.native(lexical);
  } catch {
    real = null;
  }
  const st = real ? fs.statSync(real) : null;
  if (!real || !st?.isDirectory()) throw new PrepareError('executor_error', `workdir ${JSON.stringify(workdir)} is not a directory of the bundle`);
  if (!isInside(root, real)) throw new UnsafePathError(workdir, 'leads outside the bundle root');
  return real;
}
