// Kept working directories (the process executor's): before each run a kept
// directory holds exactly the bundle's tree again, whatever the last task did
// to it, without writing through anything the task put in place of the
// bundle's files; one whose task may still run is not reused.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { BundleCache, BundleTooLargeError, runTask, WorkdirPool } from '../src/index.js';
import { makeSpec, makeTarGz, MemoryTransport, scratchRoots } from '../src/testing/index.js';

const root = scratchRoots();

const BUNDLE = [
  { name: 'scripts/', type: 'directory' as const },
  { name: 'scripts/run.sh', content: '#!/bin/sh\necho hi\n', mode: 0o755 },
  { name: 'data.csv', content: 'a,b\n1,2\n' },
  { name: 'conf/', type: 'directory' as const },
  { name: 'conf/app.yaml', content: 'level: info\n' },
  { name: 'current', type: 'symlink' as const, linkname: 'scripts/run.sh' },
];

/** Every path under dir with what it is and holds, for comparing whole trees. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      const p = path.join(dir, r);
      const st = fs.lstatSync(p);
      if (e.isDirectory()) {
        out[r] = `dir ${(st.mode & 0o777).toString(8)}`;
        walk(r);
      } else if (e.isSymbolicLink()) out[r] = `link ${fs.readlinkSync(p)}`;
      else out[r] = `file ${(st.mode & 0o777).toString(8)} nlink=${st.nlink} ${fs.readFileSync(p, 'utf8')}`;
    }
  };
  walk('');
  return out;
}

async function setup(opts: { racyMs?: number } = {}) {
  const base = await root();
  const cache = new BundleCache({ root: path.join(base, 'cache') });
  const pool = new WorkdirPool({ root: path.join(base, 'pool'), cache, racyMs: opts.racyMs });
  const tgz = await makeTarGz(BUNDLE);
  let fetched = 0;
  const source = async () => {
    fetched++;
    return Readable.from([tgz]);
  };
  const expected = await (async () => {
    const ref = path.join(base, 'ref');
    await fsp.mkdir(ref);
    await cache.fill('h1', source, ref, 0);
    return tree(ref);
  })();
  return { base, cache, pool, source, expected, fetched: () => fetched };
}

test('a kept directory is reused and holds the bundle again after a task changed, added, removed and replaced entries', async () => {
  const { base, pool, source, expected } = await setup();
  const outside = path.join(base, 'outside');
  await fsp.mkdir(outside);
  await fsp.writeFile(path.join(outside, 'precious.txt'), 'keep me\n');
  await fsp.mkdir(path.join(outside, 'dir'));
  await fsp.writeFile(path.join(outside, 'dir', 'app.yaml'), 'outside\n');

  const first = await pool.acquire('h1', source, 0);
  assert.deepEqual(tree(first.dir), expected);
  const d = first.dir;
  // What a task may do to its working directory, right after the sync (the records are too young to trust yet).
  await fsp.writeFile(path.join(d, 'data.csv'), 'x,y\n9,9\n'); // same size, same inode
  await fsp.chmod(path.join(d, 'scripts/run.sh'), 0o600);
  await fsp.rm(path.join(d, 'current'));
  await fsp.symlink(path.join(outside, 'precious.txt'), path.join(d, 'current')); // a link leading out, where the bundle's link was
  await fsp.writeFile(path.join(d, 'new.txt'), 'made by the task');
  await fsp.mkdir(path.join(d, 'scripts/build/deep'), { recursive: true });
  await fsp.writeFile(path.join(d, 'scripts/build/deep/out.o'), 'obj');
  await fsp.rm(path.join(d, 'conf'), { recursive: true });
  await fsp.symlink(path.join(outside, 'dir'), path.join(d, 'conf')); // a directory replaced by a link to one outside
  first.release(true);

  const second = await pool.acquire('h1', source, 0);
  assert.equal(second.dir, d, 'the same directory is reused');
  assert.deepEqual(tree(second.dir), expected, 'exactly the bundle again');
  assert.equal(await fsp.readFile(path.join(outside, 'precious.txt'), 'utf8'), 'keep me\n', 'nothing written through the link');
  assert.equal(await fsp.readFile(path.join(outside, 'dir', 'app.yaml'), 'utf8'), 'outside\n', 'nothing written through the directory link');
  second.release(true);
  pool.close();
});

test('a file replaced by a hard link to a file outside is replaced, not written through', async () => {
  const { base, pool, source, expected } = await setup();
  const precious = path.join(base, 'precious.csv');
  await fsp.writeFile(precious, 'precious\n');
  const first = await pool.acquire('h1', source, 0);
  await fsp.rm(path.join(first.dir, 'data.csv'));
  await fsp.link(precious, path.join(first.dir, 'data.csv'));
  first.release(true);
  const second = await pool.acquire('h1', source, 0);
  assert.deepEqual(tree(second.dir), expected);
  assert.equal(await fsp.readFile(precious, 'utf8'), 'precious\n');
  second.release(true);
  pool.close();
});

test('once records are old enough to trust, an unchanged tree keeps its inodes, and a later change is still seen', async () => {
  const { pool, source, expected } = await setup({ racyMs: 30 });
  const first = await pool.acquire('h1', source, 0);
  const ino = (rel: string) => fs.lstatSync(path.join(first.dir, rel)).ino;
  const before = ['data.csv', 'scripts/run.sh', 'conf/app.yaml', 'current'].map(ino);
  first.release(true);
  await new Promise((r) => setTimeout(r, 60));
  const second = await pool.acquire('h1', source, 0);
  second.release(true);
  await new Promise((r) => setTimeout(r, 60));
  const third = await pool.acquire('h1', source, 0);
  assert.deepEqual(['data.csv', 'scripts/run.sh', 'conf/app.yaml', 'current'].map(ino), before, 'nothing was made again');
  // Trusted records now: a change made later moves ctime past them.
  await fsp.writeFile(path.join(third.dir, 'conf/app.yaml'), 'level: dbg\n'); // same size, in place
  await fsp.writeFile(path.join(third.dir, 'conf/extra.yaml'), 'x');
  third.release(true);
  const fourth = await pool.acquire('h1', source, 0);
  assert.deepEqual(tree(fourth.dir), expected);
  fourth.release(true);
  pool.close();
});

test('a kept directory whose records are trusted is still emptied of the files of another bundle', async () => {
  const { pool, source } = await setup({ racyMs: 30 });
  const a = await pool.acquire('h1', source, 0);
  a.release(true);
  await new Promise((r) => setTimeout(r, 60));
  const b = await pool.acquire('h1', source, 0); // the records are old enough to trust from here on
  b.release(true);
  await new Promise((r) => setTimeout(r, 60));
  const other = await makeTarGz([
    { name: 'conf/', type: 'directory' },
    { name: 'conf/other.yaml', content: 'x: 1\n' },
    { name: 'data.csv', content: 'other\n' },
  ]);
  const c = await pool.acquire('h2', async () => Readable.from([other]), 0);
  assert.equal(c.dir, a.dir);
  assert.deepEqual(tree(c.dir), { conf: 'dir 755', 'conf/other.yaml': 'file 644 nlink=1 x: 1\n', 'data.csv': 'file 644 nlink=1 other\n' });
  c.release(true);
  pool.close();
});

test('a directory whose task may still run is not reused; a different bundle replaces the tree; no bundle is an empty directory', async () => {
  const { pool, source, cache } = await setup();
  const a = await pool.acquire('h1', source, 0);
  a.release(false);
  assert.equal(fs.existsSync(a.dir), false, 'removed');
  const b = await pool.acquire('h1', source, 0);
  assert.notEqual(b.dir, a.dir);
  b.release(true);

  const other = await makeTarGz([
    { name: 'data.csv', content: 'other\n' },
    { name: 'only-here.txt', content: '1' },
  ]);
  const c = await pool.acquire('h2', async () => Readable.from([other]), 0);
  assert.equal(c.dir, b.dir, 'the idle directory is taken for another bundle');
  assert.deepEqual(tree(c.dir), { 'data.csv': 'file 644 nlink=1 other\n', 'only-here.txt': 'file 644 nlink=1 1' });
  c.release(true);
  const e = await pool.acquire('', async () => null, 0);
  assert.deepEqual(tree(e.dir), {});
  e.release(true);
  await assert.rejects(pool.acquire('h1', source, 5), BundleTooLargeError);
  pool.close();
  cache.close();
});

test('a working directory the task replaced with a link is dropped for a fresh one, and the link target is left alone', async () => {
  const { base, pool, source, expected } = await setup();
  const a = await pool.acquire('h1', source, 0);
  const elsewhere = path.join(base, 'elsewhere');
  await fsp.mkdir(elsewhere);
  await fsp.writeFile(path.join(elsewhere, 'mine.txt'), 'x');
  await fsp.rm(a.dir, { recursive: true });
  await fsp.symlink(elsewhere, a.dir);
  a.release(true);
  const b = await pool.acquire('h1', source, 0);
  assert.notEqual(b.dir, a.dir);
  assert.equal(fs.existsSync(a.dir), false, 'the link is removed');
  assert.deepEqual(await fsp.readdir(elsewhere), ['mine.txt'], 'what it pointed to is untouched');
  assert.deepEqual(tree(b.dir), expected);
  b.release(true);
  pool.close();
});

test('runTask with a pool: the task runs in the kept directory with the bundle and its files; the next run does not see what it left', async () => {
  const base = await root();
  const cache = new BundleCache({ root: path.join(base, 'cache') });
  const pool = new WorkdirPool({ root: path.join(base, 'pool'), cache });
  const ioDir = path.join(base, 'io');
  await fsp.mkdir(path.join(ioDir, 'artifacts'), { recursive: true });
  const tgz = await makeTarGz(BUNDLE);
  const script = ['ls -A | sort | tr "\\n" " " > "$SVC_ARTIFACTS_DIR/ls.txt"', 'pwd > "$SVC_ARTIFACTS_DIR/cwd.txt"', 'echo dirty >> data.csv', 'touch left-behind'].join('\n');
  const run = async () => {
    const t = new MemoryTransport(makeSpec({ command: ['bash', '-c', script], files: { 'input.txt': 'hello' } }), tgz);
    const c = await runTask({ transport: t, workRoot: path.join(base, 'unused'), ioDir, bundleCache: cache, workdirs: pool });
    assert.equal(c.state, 'SUCCESS', c.error);
    for (const e of await fsp.readdir(path.join(ioDir, 'artifacts'))) await fsp.rm(path.join(ioDir, 'artifacts', e));
    return { ls: t.artifacts.get('ls.txt')!.toString(), cwd: t.artifacts.get('cwd.txt')!.toString().trim() };
  };
  const one = await run();
  const two = await run();
  assert.equal(one.ls, 'conf current data.csv input.txt scripts ');
  assert.equal(two.ls, one.ls, 'the second run sees the bundle and its own files only');
  assert.equal(two.cwd, one.cwd, 'in the same kept directory');
  assert.equal(fs.readFileSync(path.join(two.cwd, 'data.csv'), 'utf8'), 'a,b\n1,2\ndirty\n', 'released as the task left it (synced at the next acquire)');
  assert.equal(fs.existsSync(path.join(base, 'unused')), false, 'no fresh run directory was made');
  pool.close();
  cache.close();
});
