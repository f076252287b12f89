// The S3 client lets go of an idle connection before the store does. A store
// (s3rver, MinIO behind a proxy, any Node-based stand-in) closes idle
// keep-alive connections after its own timeout, 5 s for Node's; a client that
// keeps them longer sends its next request into a connection being closed and
// gets ECONNRESET, which surfaced as a namespace save answering 500 under load
// (e2e/test/faults-object-store-outage.test.ts, in its setup). So the side
// that ends an idle connection must be the client: the store sees our FIN
// (`end`) before its own timer fires.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import type http from 'node:http';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import S3rver from 's3rver';
import { S3ObjectStore } from '../src/s3-store.js';
import { S3RVER_KEY } from './support/s3rver.js';

test('an idle connection to the store is closed by the client, before the store’s 5 s keep-alive timeout', async () => {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'svc-storage-idle-'));
  const s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory });
  const { port } = await s3.run();
  const server = (s3 as unknown as { httpServer: http.Server }).httpServer;
  const closes: Promise<{ clientClosedFirst: boolean; idleMs: number }>[] = [];
  server.on('connection', (socket: net.Socket) => {
    let lastData = Date.now();
    let clientEnded = false;
    socket.on('data', () => (lastData = Date.now()));
    socket.on('end', () => (clientEnded = true));
    closes.push(new Promise((resolve) => socket.once('close', () => resolve({ clientClosedFirst: clientEnded, idleMs: Date.now() - lastData }))));
  });
  const store = new S3ObjectStore({ endPoint: '127.0.0.1', port, useSSL: false, accessKey: S3RVER_KEY, secretKey: S3RVER_KEY, bucket: 'idle-test' });
  try {
    await store.put('a.txt', 'a');
    assert.equal((await store.getBuffer('a.txt')).toString(), 'a');
    assert.ok(closes.length >= 1);
    // Every connection the client opened is now idle: each must end on the client's side.
    const outcomes = await Promise.all(closes);
    for (const o of outcomes) {
      assert.equal(o.clientClosedFirst, true, `the store closed an idle connection itself after ${o.idleMs} ms: the client would have reused it`);
      assert.ok(o.idleMs < 5000, `closed after ${o.idleMs} ms idle`);
    }
  } finally {
    await store.close();
    await s3.close();
    await rm(directory, { recursive: true, force: true });
  }
});
