// Working directories kept between task runs, for runners that run many tasks
// on one machine (the process executor inside the dispatcher).
//
// Why: on some file systems, making inodes is the most expensive step of a
// short task. ext4 without a journal scans the inodes freed in the last
// seconds on every inode it allocates (`recently_deleted`), so a task that
// makes a fresh directory with the bundle's files and removes it afterwards
// costs the dispatcher milliseconds of kernel time once many tasks ran
// (bench/RESULTS.md). A kept directory is instead brought back to exactly the
// bundle's tree before each run ("sync"), which for an unchanged tree is a
// few `lstat` calls and no new inode:
//
// - each entry is compared with what the last sync left there (inode, size,
//   mtime, ctime, link count); anything else is restored from the extracted
//   bundle, in place when it is still the same inode with one link, or
//   removed and made again (a link or a file the task replaced is never
//   written through);
// - each directory whose entries may have changed (or that held another
//   bundle) is listed, and what is not in the bundle is removed;
// - timestamps have a clock tick's granularity, so a change made in the same
//   tick as the last sync could leave them equal: a record is trusted only
//   when its ctime is older than the previous sync by `racyMs` (as git does
//   with its "racily clean" entries); small files not yet trusted are compared
//   by content, larger ones are copied again.
//
// A directory goes back to the pool only when the task's whole process group
// is gone (`release(reusable)`); any surprise while syncing (a directory the
// task made unreadable, the root replaced) drops it for a fresh one. What
// this does not cover, like the process executor as a whole, is isolation: a
// process that left its task's process group (`setsid`) and keeps writing
// into the directory could be seen by a later task of the same slot; tasks
// that need isolation run in the docker or kubernetes executors.
import fs from 'node:fs';
import path from 'node:path';
import type { BundleCache, BundleEntry, ManifestItem } from './bundle-cache.js';

/** Files up to this size are compared by content when their record is too recent to trust; larger ones are copied again. */
const COMPARE_MAX_BYTES = 64 * 1024;

interface Rec {
  kind: ManifestItem['kind'];
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
  mode: bigint;
  /** A file's source (its path in the extracted bundle), a link's target; '' for a directory. */
  src: string;
}

class Workdir {
  /** What the last sync left, by path relative to the root ('' = the root). */
  readonly recs = new Map<string, Rec>();
  /** Wall clock (ns) when the last sync ended: the task ran after it. */
  syncedAtNs = 0n;
  /** The extracted bundle the last sync copied (its directory). */
  bundleDir = '';

  constructor(readonly dir: string) {}
}

/** An extracted bundle's tree by directory: the names each directory holds. */
interface Index {
  children: Map<string, Set<string>>;
  /** '' (the root) first, parents before children. */
  dirs: string[];
  /** Every path of the tree. */
  all: Set<string>;
}

const EMPTY: BundleEntry = { dir: '', bytes: 0, manifest: [] };

export interface WorkdirPoolOptions {
  /** This pool's own directory (removed and made again here, and at close). */
  root: string;
  /** Where the bundles come from. */
  cache: BundleCache;
  /** Directories kept while not in use; more are removed. Default 64. */
  maxIdle?: number;
  /** Records younger than this (relative to the previous sync) are not trusted; see above. Default 3,000 ms. */
  racyMs?: number;
  /**
   * The task user (tasks run as another user than the runner): what a sync
   * makes is given to it, so the task can write its working directory; the
   * pool's root is then traversable but not listable by others (0711), so a
   * task cannot find the other slots' directories. Default: the runner's user.
   */
  owner?: { uid: number; gid: number };
}

export interface WorkdirLease {
  /** The working directory, a real path holding exactly the bundle's tree. */
  readonly dir: string;
  /** Returns it to the pool; `reusable` false (the task's process group may live on) removes it instead. */
  release(reusable: boolean): void;
}

export class WorkdirPool {
  private readonly idle: Workdir[] = [];
  private readonly indexes = new WeakMap<BundleEntry, Index>();
  private closed = false;

  constructor(private readonly o: WorkdirPoolOptions) {
    fs.rmSync(o.root, { recursive: true, force: true });
    fs.mkdirSync(o.root, { recursive: true });
    if (o.owner) fs.chmodSync(o.root, 0o711);
  }

  /** Gives a path the sync just made to the task user (a link itself, not its target). */
  private own(p: string): void {
    if (this.o.owner) fs.lchownSync(p, this.o.owner.uid, this.o.owner.gid);
  }

  /**
   * A working directory holding exactly bundle `hash` (extracted through the
   * cache from `source()` when needed; '' = no bundle, an empty directory).
   * @param maxBytes sum of file sizes allowed (BundleTooLargeError past it); 0 or less = no limit.
   */
  async acquire(hash: string, source: () => Promise<NodeJS.ReadableStream | null>, maxBytes: number): Promise<WorkdirLease> {
    const entry = hash ? await this.o.cache.entry(hash, source, maxBytes) : EMPTY;
    // Synchronous from here: the bundle's directory cannot be removed while it is read.
    let wd = this.takeIdle(entry);
    if (wd) {
      try {
        this.sync(wd, entry);
      } catch {
        removeQuietly(wd.dir);
        wd = null;
      }
    }
    if (!wd) {
      wd = new Workdir(fs.realpathSync.native(fs.mkdtempSync(path.join(this.o.root, 'w-'))));
      try {
        this.own(wd.dir);
        this.sync(wd, entry);
      } catch (err) {
        removeQuietly(wd.dir);
        throw err;
      }
    }
    const taken = wd;
    let released = false;
    return {
      dir: taken.dir,
      release: (reusable) => {
        if (released) return;
        released = true;
        if (reusable && !this.closed && this.idle.length < (this.o.maxIdle ?? 64)) this.idle.push(taken);
        else removeQuietly(taken.dir);
      },
    };
  }

  /** Removes every directory (at shutdown); those still in use are removed when released. */
  close(): void {
    this.closed = true;
    this.idle.length = 0;
    fs.rmSync(this.o.root, { recursive: true, force: true });
  }

  /** The idle directory that last held this bundle, else the most recently used one. */
  private takeIdle(entry: BundleEntry): Workdir | null {
    for (let i = this.idle.length - 1; i >= 0; i--) {
      if (this.idle[i].bundleDir === entry.dir) return this.idle.splice(i, 1)[0];
    }
    return this.idle.pop() ?? null;
  }

  private index(entry: BundleEntry): Index {
    let ix = this.indexes.get(entry);
    if (ix) return ix;
    ix = { children: new Map([['', new Set()]]), dirs: [''], all: new Set(['']) };
    for (const m of entry.manifest) {
      ix.all.add(m.rel);
      ix.children.get(path.dirname(m.rel) === '.' ? '' : path.dirname(m.rel))!.add(path.basename(m.rel));
      if (m.kind === 'dir') {
        ix.children.set(m.rel, new Set());
        ix.dirs.push(m.rel);
      }
    }
    this.indexes.set(entry, ix);
    return ix;
  }

  /** Brings `wd` to exactly the tree of `entry`; throws on anything it cannot mend. */
  private sync(wd: Workdir, entry: BundleEntry): void {
    const ix = this.index(entry);
    const trustBefore = wd.syncedAtNs - BigInt(this.o.racyMs ?? 3000) * 1_000_000n;
    // An unchanged directory holds what the last sync left, which is this bundle's entries only if it synced this bundle.
    const sameBundle = wd.bundleDir === entry.dir;
    const abs = (rel: string) => (rel ? path.join(wd.dir, rel) : wd.dir);
    const record = (rel: string, kind: Rec['kind'], src: string) => {
      const st = fs.lstatSync(abs(rel), { bigint: true });
      wd.recs.set(rel, { kind, ino: st.ino, size: st.size, mtimeNs: st.mtimeNs, ctimeNs: st.ctimeNs, mode: st.mode, src });
    };
    const unchanged = (rec: Rec | undefined, st: fs.BigIntStats | undefined): rec is Rec =>
      !!rec &&
      !!st &&
      st.ino === rec.ino &&
      st.size === rec.size &&
      st.mtimeNs === rec.mtimeNs &&
      st.ctimeNs === rec.ctimeNs &&
      st.mode === rec.mode &&
      st.nlink === (rec.kind === 'file' ? 1n : st.nlink);

    // The root: the same directory, or give up on it (the task replaced it).
    const rootSt = fs.lstatSync(wd.dir, { bigint: true });
    const rootRec = wd.recs.get('');
    if (!rootSt.isDirectory() || (rootRec && rootSt.ino !== rootRec.ino)) throw new Error('the working directory was replaced');

    // Directories first, parents before children: each one is a real directory, listed unless its record proves no entry changed.
    for (const rel of ix.dirs) {
      const p = abs(rel);
      let st = rel ? lstatOrUndefined(p) : rootSt;
      const rec = wd.recs.get(rel);
      if (st && !st.isDirectory()) {
        fs.rmSync(p, { recursive: true, force: true });
        st = undefined;
      }
      if (!st) {
        fs.mkdirSync(p);
        this.own(p);
        continue; // new and empty
      }
      if (rec && st.mode !== rec.mode) fs.chmodSync(p, Number(rec.mode & 0o7777n));
      if (sameBundle && unchanged(rec, st) && rec.ctimeNs < trustBefore) continue;
      const want = ix.children.get(rel)!;
      for (const name of fs.readdirSync(p)) if (!want.has(name)) fs.rmSync(path.join(p, name), { recursive: true, force: true });
    }

    // Files and links.
    for (const m of entry.manifest) {
      if (m.kind === 'dir') continue;
      const p = abs(m.rel);
      const st = lstatOrUndefined(p);
      const rec = wd.recs.get(m.rel);
      if (m.kind === 'link') {
        const ok = unchanged(rec, st) && st!.isSymbolicLink() && rec.src === m.target && (rec.ctimeNs < trustBefore || fs.readlinkSync(p) === m.target);
        if (ok) continue;
        if (st) fs.rmSync(p, { recursive: true, force: true });
        fs.symlinkSync(m.target!, p);
        this.own(p);
        record(m.rel, 'link', m.target!);
        continue;
      }
      const src = path.join(entry.dir, m.rel);
      if (unchanged(rec, st) && st!.isFile() && rec.src === src) {
        if (rec.ctimeNs < trustBefore) continue;
        if (st!.size <= COMPARE_MAX_BYTES && sameContent(src, p)) continue;
      }
      if (st?.isFile() && rec && st.ino === rec.ino && st.nlink === 1n) {
        fs.copyFileSync(src, p); // in place: truncated and rewritten, mode set from the source
      } else {
        if (st) fs.rmSync(p, { recursive: true, force: true });
        fs.copyFileSync(src, p, fs.constants.COPYFILE_EXCL);
        this.own(p);
      }
      record(m.rel, 'file', src);
    }

    // Directory records last: making and removing entries changed their times.
    for (const rel of ix.dirs) record(rel, 'dir', '');
    for (const rel of wd.recs.keys()) if (!ix.all.has(rel)) wd.recs.delete(rel);
    wd.bundleDir = entry.dir;
    wd.syncedAtNs = BigInt(Date.now()) * 1_000_000n;
  }
}

function lstatOrUndefined(p: string): fs.BigIntStats | undefined {
  return fs.lstatSync(p, { bigint: true, throwIfNoEntry: false });
}

function sameContent(a: string, b: string): boolean {
  return fs.readFileSync(a).equals(fs.readFileSync(b));
}

function removeQuietly(dir: string): void {
  try {
    fs.rmSync(dir, { recursive: true, force: true });
  } catch {
    // Left for the next start of this pool (its root is removed then).
  }
}
