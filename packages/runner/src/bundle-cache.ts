// A local cache of extracted bundles, for runners that run many tasks on one
// machine (the process executor inside the dispatcher). A snapshot's bundle
// never changes, so it is extracted (and checked: no path or link leading
// out) once into `<root>/<bundle hash>/`, and each task's fresh bundle root
// gets a copy of that tree: a few system calls per file instead of
// decompressing and parsing the archive again for every task run.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { BundleTooLargeError } from './errors.js';
import { extractBundle } from './workspace.js';

/** One extracted bundle: never changed once made, read by every run of its snapshot. */
export interface BundleEntry {
  /** Where it is extracted (a real path). */
  dir: string;
  bytes: number;
  /** The tree in creation order (parents first), so a copy needs no stat calls. */
  manifest: ManifestItem[];
}

export interface ManifestItem {
  /** Path relative to the bundle root. */
  rel: string;
  kind: 'dir' | 'file' | 'link';
  /** A link's target, as stored. */
  target?: string;
}

/** Walks an extracted bundle once: its directories, files and links, parents first. */
function manifestOf(root: string): ManifestItem[] {
  const out: ManifestItem[] = [];
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const r = rel ? path.join(rel, e.name) : e.name;
      if (e.isDirectory()) {
        out.push({ rel: r, kind: 'dir' });
        walk(r);
      } else if (e.isSymbolicLink()) out.push({ rel: r, kind: 'link', target: fs.readlinkSync(path.join(root, r)) });
      else if (e.isFile()) out.push({ rel: r, kind: 'file' });
    }
  };
  walk('');
  return out;
}

export interface BundleCacheOptions {
  /** Directory holding the extracted bundles (created when missing). */
  root: string;
  /** Bundles kept at most; the least recently used is removed first. Default 32. */
  maxEntries?: number;
  /** How long a removed bundle's directory stays on disk, for copies that already started from it. Default 60 s. */
  removeDelayMs?: number;
}

export class BundleCache {
  private readonly entries = new Map<string, Promise<BundleEntry>>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly o: BundleCacheOptions) {
    // Bundles left by an earlier process may be half written: start clean.
    fs.rmSync(o.root, { recursive: true, force: true });
    fs.mkdirSync(o.root, { recursive: true });
  }

  /** Where a bundle being received is spooled while its hash is checked (bundle-verify.ts): inside the cache's own directory. */
  get spoolDir(): string {
    return this.o.root;
  }

  /**
   * Fills the empty directory `target` with the files of bundle `hash`,
   * extracting `source()` first when this bundle is not cached yet.
   * @param maxBytes sum of file sizes allowed (BundleTooLargeError past it); 0 or less = no limit.
   */
  async fill(hash: string, source: () => Promise<NodeJS.ReadableStream | null>, target: string, maxBytes: number): Promise<void> {
    const { dir, manifest } = await this.entry(hash, source, maxBytes);
    // Synchronous: no other work of this process runs while the tree is copied, so an eviction cannot remove it midway.
    // From the manifest: one call per entry (copyFile keeps the mode), where fs.cpSync stats source and target of each.
    for (const m of manifest) {
      const to = path.join(target, m.rel);
      if (m.kind === 'dir') fs.mkdirSync(to);
      else if (m.kind === 'file') fs.copyFileSync(path.join(dir, m.rel), to, fs.constants.COPYFILE_EXCL);
      else fs.symlinkSync(m.target!, to);
    }
  }

  /**
   * The extracted bundle `hash`, extracting `source()` first when it is not
   * cached yet. Its directory stays at least `removeDelayMs` after an
   * eviction, so a caller that reads it synchronously after the promise
   * settles reads a whole tree.
   * @param maxBytes sum of file sizes allowed (BundleTooLargeError past it); 0 or less = no limit.
   */
  async entry(hash: string, source: () => Promise<NodeJS.ReadableStream | null>, maxBytes: number): Promise<BundleEntry> {
    let entry = this.entries.get(hash);
    if (entry) {
      this.entries.delete(hash); // most recently used last
    } else {
      entry = this.extract(source, maxBytes);
      entry.catch(() => this.entries.get(hash) === entry && this.entries.delete(hash));
    }
    this.entries.set(hash, entry);
    this.evict();
    const done = await entry;
    if (maxBytes > 0 && done.bytes > maxBytes) throw new BundleTooLargeError(maxBytes);
    return done;
  }

  /** Removes every cached bundle (at shutdown). */
  close(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.entries.clear();
    fs.rmSync(this.o.root, { recursive: true, force: true });
  }

  private async extract(source: () => Promise<NodeJS.ReadableStream | null>, maxBytes: number): Promise<BundleEntry> {
    const dir = path.join(this.o.root, crypto.randomBytes(8).toString('hex'));
    fs.mkdirSync(dir);
    try {
      const stream = await source();
      // The checks of extractBundle compare physical paths: extract into the real path.
      const real = fs.realpathSync.native(dir);
      const r = stream ? await extractBundle(stream, real, maxBytes) : { bytes: 0 };
      return { dir: real, bytes: r.bytes, manifest: manifestOf(real) };
    } catch (err) {
      fs.rmSync(dir, { recursive: true, force: true });
      throw err;
    }
  }

  private evict(): void {
    const max = this.o.maxEntries ?? 32;
    while (this.entries.size > max) {
      const [hash, entry] = this.entries.entries().next().value!;
      this.entries.delete(hash);
      entry.then(
        ({ dir }) => {
          const t = setTimeout(() => {
            this.timers.delete(t);
            fs.rm(dir, { recursive: true, force: true }, () => {});
          }, this.o.removeDelayMs ?? 60_000);
          t.unref();
          this.timers.add(t);
        },
        () => {},
      );
    }
  }
}
