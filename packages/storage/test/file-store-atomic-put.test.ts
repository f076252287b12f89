// File-store guarantees beyond the shared contract: atomic puts (a reader or a
// crash never leaves a partial object under its key), temp-file sweeping,
// directory pruning and the on-disk layout.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { FileObjectStore } from '../src/index.js';
import { collect, failingStream } from './support/streams.js';

const MiB = 1024 * 1024;
const FIXTURE = fileURLToPath(new URL('./fixtures/put-until-killed.ts', import.meta.url));

let root: string;
let store: FileObjectStore;

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'svc-storage-atomic-'));
  store = await FileObjectStore.open(root);
});
afterEach(async () => rm(root, { recursive: true, force: true }));

async function tempFiles(): Promise<string[]> {
  return readdir(path.join(root, '.tmp')).catch(() => []);
}

/** Waits until a temporary file of at least `bytes` exists, i.e. a put is mid-write. */
async function waitForTempFile(bytes: number, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const name of await tempFiles()) {
      const st = await stat(path.join(root, '.tmp', name)).catch(() => null);
      if (st && st.size >= bytes) return name;
    }
    await sleep(10);
  }
  throw new Error(`no temporary file of ${bytes} bytes appeared`);
}

describe('file store put is atomic', () => {
  it('a put whose source errors mid-stream leaves no object, no temp file and no new folder', async () => {
    const boom = new Error('client went away');
    await assert.rejects(store.put('deep/nested/key.bin', failingStream(3 * MiB, boom)), (err) => err === boom);
    assert.equal(await store.stat('deep/nested/key.bin'), null);
    await assert.rejects(stat(path.join(root, 'deep')), { code: 'ENOENT' });
    assert.deepEqual(await tempFiles(), []);
    assert.deepEqual(await collect(store.list('')), []);
  });

  it('an interrupted overwrite keeps the previous version intact', async () => {
    await store.put('k', 'version 1', { contentType: 'text/plain' });
    await assert.rejects(store.put('k', failingStream(MiB, new Error('boom')), { contentType: 'application/json' }), /boom/);
    assert.equal((await store.getBuffer('k')).toString(), 'version 1');
    assert.equal((await store.stat('k'))?.contentType, 'text/plain');
  });

  it('readers see nothing of a put in progress, then the whole object at once', async () => {
    await store.put('obj', 'old');
    const body = new PassThrough();
    const putting = store.put('obj', body);
    body.write(Buffer.alloc(MiB, 1));
    await waitForTempFile(MiB);
    assert.equal((await store.getBuffer('obj')).toString(), 'old');
    assert.equal((await store.stat('obj'))?.size, 3);
    body.end(Buffer.alloc(MiB, 2));
    assert.deepEqual(await putting, { size: 2 * MiB });
    assert.equal((await store.stat('obj'))?.size, 2 * MiB);
    assert.deepEqual(await tempFiles(), []);
  });

  it('a stream opened before an overwrite keeps reading the old object to its end', async () => {
    await store.put('snap', Buffer.alloc(MiB, 7));
    const reading = await store.get('snap');
    await store.put('snap', 'replaced');
    const data = Buffer.concat(await collect(reading as AsyncIterable<Buffer>));
    assert.equal(data.length, MiB);
    assert.ok(data.every((b) => b === 7));
  });

  it('a process killed mid-put leaves only a temp file, which list hides and a sweep removes', async () => {
    const tsx = import.meta.resolve('tsx');
    const child = spawn(process.execPath, ['--import', tsx, FIXTURE, root, 'crash/victim.bin'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    try {
      await waitForTempFile(2 * MiB, 20_000);
    } finally {
      child.kill('SIGKILL');
    }
    assert.equal(await exited, 'SIGKILL', output);
    assert.equal(await store.stat('crash/victim.bin'), null);
    await assert.rejects(stat(path.join(root, 'crash', 'victim.bin')), { code: 'ENOENT' });
    assert.deepEqual(await collect(store.list('')), []);
    assert.equal((await tempFiles()).length, 1);
    // Opening again keeps a fresh temp file (it could be another process's put in flight)...
    await FileObjectStore.open(root);
    assert.equal((await tempFiles()).length, 1);
    // ...and a sweep past the age limit removes it.
    assert.equal(await store.sweepTempFiles(0), 1);
    assert.deepEqual(await tempFiles(), []);
  });
});

describe('file store housekeeping and layout', () => {
  it('stores each object as a plain file at ROOT/<key>', async () => {
    await store.put('bundles/ab/cd.tar.gz', 'tarball');
    assert.equal((await stat(path.join(root, 'bundles', 'ab', 'cd.tar.gz'))).size, 7);
  });

  it('open sweeps temp files older than an hour and keeps newer ones', async () => {
    await mkdir(path.join(root, '.tmp'), { recursive: true });
    await writeFile(path.join(root, '.tmp', 'old.part'), 'x');
    await writeFile(path.join(root, '.tmp', 'new.part'), 'x');
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    await utimes(path.join(root, '.tmp', 'old.part'), twoHoursAgo, twoHoursAgo);
    await FileObjectStore.open(root);
    assert.deepEqual(await tempFiles(), ['new.part']);
  });

  it('delete removes the folders it empties, never the root or a folder still in use', async () => {
    await store.put('a/b/c/one', '1');
    await store.put('a/two', '2', { contentType: 'text/plain' });
    await store.delete('a/b/c/one');
    await assert.rejects(stat(path.join(root, 'a', 'b')), { code: 'ENOENT' });
    assert.equal((await store.getBuffer('a/two')).toString(), '2');
    await store.delete('a/two');
    assert.deepEqual(
      (await readdir(root)).filter((n) => n !== '.tmp'),
      [],
    );
    assert.ok((await stat(root)).isDirectory());
  });

  it('list hides sidecars, temp files and names that are not keys, and yields ascending key order', async () => {
    for (const key of ['x/b', 'x.txt', 'x/a/z', 'x-y', 'w']) await store.put(key, key, { contentType: 'text/plain' });
    await writeFile(path.join(root, 'x', 'has space'), 'foreign');
    await symlink(path.join(root, 'w'), path.join(root, 'x', 'link'));
    await writeFile(path.join(root, '.tmp', 'stray.part'), 'partial');
    const keys = (await collect(store.list(''))).map((o) => o.key);
    assert.deepEqual(keys, ['w', 'x-y', 'x.txt', 'x/a/z', 'x/b']);
  });
});
