// A root file system assembled from this machine's files, as a tar stream for
// `docker import`: no registry, no Dockerfile, no base image. A host path is
// copied with the links on its way (/lib -> usr/lib stays a link), and an
// executable brings its loader and shared libraries, as its loader resolves
// them here.
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import tar from 'tar-stream';
import { listSharedLibraries, readElfInfo } from '@svc/runner-bundle';

type Entry =
  { type: 'directory'; mode: number } | { type: 'file'; mode: number; from: string } | { type: 'file'; mode: number; content: Buffer } | { type: 'symlink'; linkname: string };

export class Rootfs {
  private readonly entries = new Map<string, Entry>([['/', { type: 'directory', mode: 0o755 }]]);

  /** A directory and its missing parents. */
  dir(p: string, mode = 0o755): this {
    const parent = path.posix.dirname(p);
    if (parent !== p && !this.entries.has(parent)) this.dir(parent);
    if (!this.entries.has(p)) this.entries.set(p, { type: 'directory', mode });
    return this;
  }

  file(p: string, content: string | Buffer, mode = 0o644): this {
    this.dir(path.posix.dirname(p));
    this.entries.set(p, { type: 'file', mode, content: Buffer.from(content) });
    return this;
  }

  symlink(p: string, linkname: string): this {
    this.dir(path.posix.dirname(p));
    this.entries.set(p, { type: 'symlink', linkname });
    return this;
  }

  has(p: string): boolean {
    return this.entries.has(p);
  }

  /** The host path `p` at the same path in the image, and every link on the way; returns its path with the links resolved. */
  host(p: string): string {
    const abs = path.resolve(p);
    const parent = path.dirname(abs);
    if (parent === abs) return abs;
    const here = path.join(this.host(parent), path.basename(abs));
    const st = fs.lstatSync(here);
    if (st.isSymbolicLink()) {
      const linkname = fs.readlinkSync(here);
      this.entries.set(here, { type: 'symlink', linkname });
      return this.host(path.resolve(path.dirname(here), linkname));
    }
    if (st.isDirectory()) this.dir(here, st.mode & 0o7777);
    else if (st.isFile() && !this.entries.has(here)) this.entries.set(here, { type: 'file', mode: st.mode & 0o7777, from: here });
    return here;
  }

  /** Every file under the host directory `dir` (at the same path), except names `skip` refuses. */
  hostTree(dir: string, skip: (name: string, rel: string) => boolean = () => false): this {
    const real = this.host(dir);
    const walk = (d: string, rel: string) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const r = rel ? `${rel}/${e.name}` : e.name;
        if (skip(e.name, r)) continue;
        const p = path.join(d, e.name);
        this.host(p);
        if (e.isDirectory()) walk(p, r);
      }
    };
    walk(real, '');
    return this;
  }

  /** The host directory `from` copied to `to` in the image (links copied as links). */
  copyTree(from: string, to: string): this {
    this.dir(to, fs.statSync(from).mode & 0o7777);
    for (const e of fs.readdirSync(from, { withFileTypes: true })) {
      const src = path.join(from, e.name);
      const dst = path.posix.join(to, e.name);
      if (e.isDirectory()) this.copyTree(src, dst);
      else if (e.isSymbolicLink()) this.symlink(dst, fs.readlinkSync(src));
      else if (e.isFile()) this.entries.set(dst, { type: 'file', mode: fs.statSync(src).mode & 0o7777, from: src });
    }
    return this;
  }

  /**
   * Host executables or shared objects, each with its loader and the libraries
   * its loader finds here. Scripts and static executables bring nothing; a
   * shared object whose libraries are missing here comes alone (importing it
   * fails in the image as it would here).
   */
  async withLibraries(files: string[], objectLoader = '/lib64/ld-linux-x86-64.so.2'): Promise<this> {
    for (const f of files) {
      const real = this.host(f);
      const elf = await readElfInfo(real).catch(() => null);
      if (!elf) continue;
      const loader = elf.interpreter ?? (/\.so(\.|$)/.test(path.basename(real)) ? objectLoader : null);
      if (!loader) continue;
      this.host(loader);
      const libs = await listSharedLibraries(loader, real).catch((err: unknown) => {
        if (elf.interpreter) throw err;
        return [];
      });
      for (const lib of libs) this.host(lib.path);
    }
    return this;
  }

  /** The tree as a tar stream, parents before children. */
  tar(): Readable {
    const pack = tar.pack();
    const out = new PassThrough();
    pack.on('error', (err: Error) => out.destroy(err));
    pack.pipe(out);
    const names = [...this.entries.keys()].filter((p) => p !== '/').sort();
    void (async () => {
      for (const p of names) {
        const e = this.entries.get(p)!;
        const name = p.slice(1);
        const base = { name, uid: 0, gid: 0, mtime: new Date(0) };
        if (e.type === 'directory') await add(pack, { ...base, type: 'directory', mode: e.mode });
        else if (e.type === 'symlink') await add(pack, { ...base, type: 'symlink', linkname: e.linkname, mode: 0o777 });
        else await add(pack, { ...base, type: 'file', mode: e.mode }, 'content' in e ? e.content : await fs.promises.readFile(e.from));
      }
      pack.finalize();
    })().catch((err: unknown) => pack.destroy(err as Error));
    return out;
  }
}

function add(pack: tar.Pack, header: Partial<tar.Header> & { name: string }, content?: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const cb = (err?: Error | null) => (err ? reject(err) : resolve());
    if (content) pack.entry({ ...header, size: content.length }, content, cb);
    else pack.entry(header, cb);
  });
}
