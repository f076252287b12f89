// A directory as a tar stream (tar-stream's packer), for dockerode's
// putArchive and image imports: directories, regular files with their modes,
// and symbolic links, in a stable (sorted) order, owned by root.
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import tar from 'tar-stream';

/**
 * The tree under `dir`, each name prefixed with `prefix/` when given (then the
 * prefix directory itself comes first), as a Node stream (tar-stream's packer
 * is a streamx stream, which some consumers do not take).
 */
export function packDirectory(dir: string, prefix = ''): PassThrough {
  const pack = tar.pack();
  const out = new PassThrough();
  pack.on('error', (err: Error) => out.destroy(err));
  pack.pipe(out);
  const base = prefix.replace(/^\/+|\/+$/g, '');
  void (async () => {
    if (base) {
      // Every directory along the prefix, so the archive extracts into any existing parent (putArchive at '/').
      const parts = base.split('/');
      for (let i = 1; i <= parts.length; i++) await entry(pack, { name: parts.slice(0, i).join('/'), type: 'directory', mode: 0o755 });
    }
    await walk(pack, dir, base);
    pack.finalize();
  })().catch((err: unknown) => pack.destroy(err as Error));
  return out;
}

async function walk(pack: tar.Pack, dir: string, name: string): Promise<void> {
  const entries = (await fs.promises.readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const e of entries) {
    const p = path.join(dir, e.name);
    const n = name ? `${name}/${e.name}` : e.name;
    const st = await fs.promises.lstat(p);
    const header = { name: n, mode: st.mode & 0o7777, mtime: st.mtime, uid: 0, gid: 0 };
    if (st.isDirectory()) {
      await entry(pack, { ...header, type: 'directory' });
      await walk(pack, p, n);
    } else if (st.isSymbolicLink()) {
      await entry(pack, { ...header, type: 'symlink', linkname: await fs.promises.readlink(p) });
    } else if (st.isFile()) {
      await new Promise<void>((resolve, reject) => {
        const source = fs.createReadStream(p);
        source.once('error', reject);
        source.pipe(pack.entry({ ...header, type: 'file', size: st.size }, (err) => (err ? reject(err) : resolve())));
      });
    }
  }
}

function entry(pack: tar.Pack, header: Partial<tar.Header> & { name: string }): Promise<void> {
  return new Promise((resolve, reject) => pack.entry(header, (err) => (err ? reject(err) : resolve())));
}
