// One behavioural contract, run against every ObjectStore implementation:
// FileObjectStore in a temp directory and S3ObjectStore against a real s3rver.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, stat as fsStat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import {
  createObjectStore,
  FileObjectStore,
  InvalidObjectKeyError,
  InvalidStorageUrlError,
  ObjectKeyConflictError,
  ObjectNotFoundError,
  ObjectSizeMismatchError,
  ObjectStoreError,
  S3ObjectStore,
  type ObjectStore,
} from '../src/index.js';
import { startS3rver, S3RVER_KEY, type RunningS3rver } from './support/s3rver.js';
import { collect, failingStream, patternedStream, sha256Of } from './support/streams.js';

const MiB = 1024 * 1024;

interface Harness {
  name: string;
  open(): Promise<{ store: ObjectStore; teardown(): Promise<void> }>;
}

const harnesses: Harness[] = [
  {
    name: 'FileObjectStore',
    async open() {
      const dir = await mkdtemp(path.join(os.tmpdir(), 'svc-storage-file-'));
      const store = await FileObjectStore.open(dir);
      return { store, teardown: () => rm(dir, { recursive: true, force: true }) };
    },
  },
  {
    name: 'S3ObjectStore (s3rver)',
    async open() {
      const server = await startS3rver();
      // The smallest part size S3 allows, so multi-MB streams exercise the multipart path.
      const store = new S3ObjectStore({
        endPoint: '127.0.0.1',
        port: server.port,
        useSSL: false,
        accessKey: S3RVER_KEY,
        secretKey: S3RVER_KEY,
        bucket: 'contract-bucket',
        partSize: 5 * MiB,
      });
      return {
        store,
        async teardown() {
          await store.close();
          await server.stop();
        },
      };
    },
  },
];

const INVALID_KEYS = ['../x', '/abs', 'a//b', 'a/./b', 'a\0b', '', 'a/', 'a/../b', '..', '.', 'a b', 'a\\b', 'ü', '.tmp/x', 'x'.repeat(1025)];

for (const harness of harnesses) {
  describe(`ObjectStore contract: ${harness.name}`, () => {
    let store: ObjectStore;
    let teardown: () => Promise<void>;
    before(async () => ({ store, teardown } = await harness.open()));
    after(async () => teardown());

    it('round-trips a Buffer through getBuffer and get', async () => {
      const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
      assert.deepEqual(await store.put('rt/buffer.bin', bytes), { size: 256 });
      assert.deepEqual(await store.getBuffer('rt/buffer.bin'), bytes);
      assert.deepEqual(Buffer.concat(await collect((await store.get('rt/buffer.bin')) as AsyncIterable<Buffer>)), bytes);
    });

    it('stores a string as UTF-8 and reports its byte length', async () => {
      const text = 'héllo ✓ wörld';
      assert.deepEqual(await store.put('rt/string.txt', text), { size: Buffer.byteLength(text) });
      assert.equal((await store.getBuffer('rt/string.txt')).toString('utf8'), text);
    });

    it('stores a stream with a known size', async () => {
      const { stream, sha256 } = patternedStream(300 * 1024);
      assert.deepEqual(await store.put('rt/known.bin', stream(), { size: 300 * 1024 }), { size: 300 * 1024 });
      assert.deepEqual(await sha256Of(await store.get('rt/known.bin')), { sha256, size: 300 * 1024 });
    });

    it('streams a multi-MB body of unknown size in and out intact', async () => {
      const size = 12 * MiB + 12345; // not a multiple of the part size: the last part is short
      const { stream, sha256 } = patternedStream(size);
      assert.deepEqual(await store.put('big/unknown.bin', stream(), { contentType: 'application/x-test' }), { size });
      assert.deepEqual(await sha256Of(await store.get('big/unknown.bin')), { sha256, size });
      const info = await store.stat('big/unknown.bin');
      assert.equal(info?.size, size);
      assert.equal(info?.contentType, 'application/x-test');
    });

    it('stores empty objects from a Buffer and from a stream', async () => {
      assert.deepEqual(await store.put('empty/buf', Buffer.alloc(0)), { size: 0 });
      assert.deepEqual(await store.put('empty/stream', Readable.from([])), { size: 0 });
      assert.equal((await store.getBuffer('empty/buf')).length, 0);
      assert.equal((await store.stat('empty/stream'))?.size, 0);
    });

    it('accepts a key of the maximum length', async () => {
      const key = `${'abcd/'.repeat(204)}abcd`;
      assert.equal(key.length, 1024);
      await store.put(key, 'deep');
      assert.equal((await store.getBuffer(key)).toString(), 'deep');
      assert.deepEqual(
        (await collect(store.list('abcd/abcd/'))).map((o) => o.key),
        [key],
      );
    });

    it('stat and exists describe present and missing objects', async () => {
      const before = Date.now();
      await store.put('st/one', 'abc');
      const info = await store.stat('st/one');
      assert.ok(info);
      assert.equal(info.key, 'st/one');
      assert.equal(info.size, 3);
      assert.ok(info.lastModified instanceof Date);
      // S3 keeps whole seconds; allow for that and small clock differences.
      assert.ok(Math.abs(info.lastModified.getTime() - before) < 60_000, `lastModified ${info.lastModified.toISOString()}`);
      assert.equal(await store.exists('st/one'), true);
      assert.equal(await store.stat('st/missing'), null);
      assert.equal(await store.exists('st/missing'), false);
    });

    it('overwrites an object with a shorter one', async () => {
      await store.put('ow/key', 'a much longer first version');
      await store.put('ow/key', 'v2');
      assert.equal((await store.getBuffer('ow/key')).toString(), 'v2');
      assert.equal((await store.stat('ow/key'))?.size, 2);
    });

    it('delete is idempotent', async () => {
      await store.delete('del/never-existed');
      await store.put('del/key', 'x');
      await store.delete('del/key');
      assert.equal(await store.exists('del/key'), false);
      await assert.rejects(store.get('del/key'), ObjectNotFoundError);
      await store.delete('del/key');
    });

    it('lists every object under a prefix at any depth', async () => {
      const keys = ['L/x/1', 'L/x/2', 'L/x/y/3', 'L/x.txt', 'L/xz', 'L/z/4', 'Lother/5'];
      for (const [i, key] of keys.entries()) await store.put(key, 'n'.repeat(i + 1), { contentType: 'text/plain' });
      // Sorted here: the order of a listing is not part of the contract.
      const listed = async (prefix: string) => (await collect(store.list(prefix))).map((o) => o.key).sort();
      assert.deepEqual(await listed('L/x/'), ['L/x/1', 'L/x/2', 'L/x/y/3']);
      assert.deepEqual(await listed('L/x'), ['L/x.txt', 'L/x/1', 'L/x/2', 'L/x/y/3', 'L/xz']);
      assert.deepEqual(await listed('L/'), ['L/x.txt', 'L/x/1', 'L/x/2', 'L/x/y/3', 'L/xz', 'L/z/4']);
      assert.deepEqual(await listed('L'), [...(await listed('L/')), 'Lother/5']);
      assert.deepEqual(await listed('nothing/here/'), []);
      const infos = await collect(store.list('L/x/y/'));
      assert.equal(infos.length, 1);
      assert.equal(infos[0]!.size, 3);
      assert.ok(infos[0]!.lastModified instanceof Date);
      const everything = await listed('');
      assert.ok(everything.includes('Lother/5') && everything.includes('L/z/4'));
      assert.equal(everything.filter((k) => k.startsWith('.tmp') || k.includes('#')).length, 0, 'no temp or sidecar files');
    });

    it('throws ObjectNotFoundError with the key for a missing object', async () => {
      for (const read of [() => store.get('nf/missing'), () => store.getBuffer('nf/missing')]) {
        await assert.rejects(read(), (err: unknown) => err instanceof ObjectNotFoundError && err.key === 'nf/missing');
      }
    });

    it('treats a key that is only a folder of other keys as absent', async () => {
      await store.put('folder/inner', 'x');
      await assert.rejects(store.get('folder'), ObjectNotFoundError);
      assert.equal(await store.stat('folder'), null);
      await store.delete('folder');
      assert.equal(await store.exists('folder/inner'), true);
    });

    it('rejects invalid keys and prefixes with InvalidObjectKeyError', async () => {
      for (const key of INVALID_KEYS) {
        const ops: Array<() => Promise<unknown>> = [
          () => store.put(key, 'x'),
          () => store.get(key),
          () => store.getBuffer(key),
          () => store.stat(key),
          () => store.exists(key),
          () => store.delete(key),
        ];
        for (const op of ops) {
          await assert.rejects(op(), (err: unknown) => err instanceof InvalidObjectKeyError && err.key === key, `key ${JSON.stringify(key)}`);
        }
      }
      for (const prefix of ['../', '/abs', 'a//', 'a/../', 'a\0']) {
        await assert.rejects(collect(store.list(prefix)), InvalidObjectKeyError, `prefix ${JSON.stringify(prefix)}`);
      }
    });

    it('round-trips the content type and drops it on an overwrite without one', async () => {
      await store.put('ct/bundle.tar.gz', Buffer.from([1, 2, 3]), { contentType: 'application/gzip' });
      assert.equal((await store.stat('ct/bundle.tar.gz'))?.contentType, 'application/gzip');
      await store.put('ct/bundle.tar.gz', Buffer.from([1, 2, 3]));
      // S3 servers may report their default type here; the old one must be gone either way.
      assert.notEqual((await store.stat('ct/bundle.tar.gz'))?.contentType, 'application/gzip');
      await assert.rejects(store.put('ct/bad', 'x', { contentType: 'text/plain\r\nX-Evil: 1' }), TypeError);
    });

    it('refuses a body whose length differs from the given size and stores nothing', async () => {
      await assert.rejects(store.put('sz/buf', Buffer.alloc(10), { size: 11 }), ObjectSizeMismatchError);
      await assert.rejects(store.put('sz/long', patternedStream(MiB).stream(), { size: 1000 }), ObjectSizeMismatchError);
      await assert.rejects(store.put('sz/short', patternedStream(1000).stream(), { size: MiB }), ObjectSizeMismatchError);
      for (const key of ['sz/buf', 'sz/long', 'sz/short']) assert.equal(await store.exists(key), false, key);
    });

    it('a put whose source stream fails rethrows that error and stores nothing', async () => {
      const boom = new Error('source broke');
      await assert.rejects(store.put('int/small', failingStream(MiB, boom)), (err) => err === boom);
      assert.equal(await store.exists('int/small'), false);
      // Past the first part: on S3 this fails inside a multipart upload, which must be abandoned.
      await assert.rejects(store.put('int/large', failingStream(7 * MiB, boom)), (err) => err === boom);
      assert.equal(await store.exists('int/large'), false);
      await store.put('int/kept', 'old version');
      await assert.rejects(store.put('int/kept', failingStream(MiB, boom)), (err) => err === boom);
      assert.equal((await store.getBuffer('int/kept')).toString(), 'old version');
    });

    it('a failed put destroys the stream body it was given', async () => {
      const body = Readable.from(['never read']);
      await assert.rejects(store.put('../bad', body), InvalidObjectKeyError);
      assert.equal(body.destroyed, true);
    });

    it('an object key inside another object key: allowed on S3, a conflict on the file system', async () => {
      await store.put('nest/a', 'leaf');
      if (store.kind === 'file') {
        await assert.rejects(store.put('nest/a/b', 'x'), ObjectKeyConflictError);
        await store.put('nest2/a/b', 'x');
        await assert.rejects(store.put('nest2/a', 'x'), ObjectKeyConflictError);
        assert.equal((await store.getBuffer('nest2/a/b')).toString(), 'x');
      } else {
        await store.put('nest/a/b', 'x');
        assert.deepEqual((await collect(store.list('nest/'))).map((o) => o.key).sort(), ['nest/a', 'nest/a/b']);
      }
      assert.equal((await store.getBuffer('nest/a')).toString(), 'leaf');
    });
  });
}

describe('key validation happens before any I/O', () => {
  it('an unreachable S3 endpoint still reports InvalidObjectKeyError', async () => {
    const store = new S3ObjectStore({ endPoint: '127.0.0.1', port: 1, useSSL: false, accessKey: 'k', secretKey: 's', bucket: 'nowhere' });
    try {
      await assert.rejects(store.put('../x', 'x'), InvalidObjectKeyError);
      await assert.rejects(store.get('a//b'), InvalidObjectKeyError);
      await assert.rejects(store.stat('a/./b'), InvalidObjectKeyError);
      // A valid key does reach the network and fails there, which proves the check above came first.
      await assert.rejects(store.stat('ok'), ObjectStoreError);
    } finally {
      await store.close();
    }
  });

  it('a file store never creates anything for an invalid key', async () => {
    const parent = await mkdtemp(path.join(os.tmpdir(), 'svc-storage-nokey-'));
    try {
      const store = new FileObjectStore(path.join(parent, 'root'));
      await assert.rejects(store.put('../escaped', 'x'), InvalidObjectKeyError);
      await assert.rejects(store.put('/abs', 'x'), InvalidObjectKeyError);
      assert.deepEqual(await readdir(parent), []);
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });
});

describe('createObjectStore', () => {
  let server: RunningS3rver;
  let tmp: string;
  before(async () => {
    server = await startS3rver();
    tmp = await mkdtemp(path.join(os.tmpdir(), 'svc-storage-url-'));
  });
  after(async () => {
    await server.stop();
    await rm(tmp, { recursive: true, force: true });
  });

  it('opens a file store from file:///abs/dir, creating the directory', async () => {
    const dir = path.join(tmp, 'objects', 'sub');
    const store = await createObjectStore(`file://${dir}`);
    assert.equal(store.kind, 'file');
    assert.ok(store instanceof FileObjectStore && store.rootDir === dir);
    await store.put('k/v', 'x');
    assert.equal((await fsStat(path.join(dir, 'k', 'v'))).size, 1);
  });

  it('opens an S3 store from an s3:// URL and creates the bucket', async () => {
    const url = `s3://${S3RVER_KEY}:${S3RVER_KEY}@127.0.0.1:${server.port}/made-by-url?ssl=false&region=us-east-1`;
    const store = await createObjectStore(url);
    try {
      assert.equal(store.kind, 's3');
      assert.ok(store instanceof S3ObjectStore && store.bucket === 'made-by-url');
      await store.put('probe', 'ok');
      // A second store on the same, now existing, bucket sees the object.
      const again = await createObjectStore(url);
      assert.equal((await again.getBuffer('probe')).toString(), 'ok');
      await again.close?.();
    } finally {
      await store.close?.();
    }
  });

  it('rejects an unsupported scheme with a clear error', async () => {
    await assert.rejects(
      createObjectStore('ftp://host/dir'),
      (err: unknown) => err instanceof InvalidStorageUrlError && /unsupported scheme "ftp:" \(use file: or s3:\)/.test(err.message),
    );
  });

  it('lists every problem of a bad s3 URL without revealing the secret', async () => {
    await assert.rejects(createObjectStore('s3://key:TOPSECRET@host:9000/?ssl=maybe&color=red'), (err: unknown) => {
      assert.ok(err instanceof InvalidStorageUrlError);
      assert.equal(err.problems.length, 3, err.message);
      assert.match(err.message, /bucket is missing/);
      assert.match(err.message, /ssl must be true or false/);
      assert.match(err.message, /unknown query parameter "color"/);
      assert.doesNotMatch(err.message, /TOPSECRET/);
      return true;
    });
  });

  it('rejects a relative file URL and text that is no URL', async () => {
    await assert.rejects(createObjectStore('file://relative/dir'), /three slashes/);
    await assert.rejects(createObjectStore('not a url'), InvalidStorageUrlError);
  });

  it('fails with ObjectStoreError when the S3 endpoint is unreachable', async () => {
    await assert.rejects(createObjectStore('s3://k:s@127.0.0.1:1/bucket?ssl=false'), (err: unknown) => {
      return err instanceof ObjectStoreError && err.operation === 'init' && !err.message.includes(':s@');
    });
  });
});
