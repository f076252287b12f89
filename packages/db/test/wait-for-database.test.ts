// waitForDatabase against a real PostgreSQL reached through a TCP relay on
// loopback that hangs up on every connection until it is opened, as a
// database that is not up yet does; port 1 refuses connections.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { createDb } from '../src/client.js';
import { createTestDatabase, type TestDatabase } from '../src/testing.js';
import { isTransientConnectError, waitForDatabase } from '../src/wait.js';

let tdb: TestDatabase;
const relays: net.Server[] = [];

before(async () => {
  tdb = await createTestDatabase();
});
after(async () => {
  for (const r of relays) r.close();
  await tdb.drop();
});

/**
 * A port on loopback that hangs up on every connection (a server that is
 * not accepting sessions yet) until `open()`, then relays to the test
 * database's server. The port is held from the start, so no other process
 * can take it meanwhile.
 */
async function lateDatabase(): Promise<{ port: number; open(): void }> {
  const target = new URL(tdb.url);
  let up = false;
  const server = net.createServer((client) => {
    if (!up) return void client.destroy();
    const upstream = net.connect(Number(target.port), target.hostname);
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  relays.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { port: (server.address() as net.AddressInfo).port, open: () => void (up = true) };
}

const viaPort = (port: number) => {
  const u = new URL(tdb.url);
  u.port = String(port);
  return u.toString();
};

test('a database that takes sessions only later is waited for, each failed try reported', async () => {
  const late = await lateDatabase();
  const db = createDb({ url: viaPort(late.port), poolSize: 1 });
  try {
    const retries: { err: unknown; waited: number }[] = [];
    setTimeout(late.open, 1200);
    const started = Date.now();
    await waitForDatabase(db.pool, { timeoutMs: 20_000, firstPauseMs: 100, onRetry: (err, waited) => retries.push({ err, waited }) });
    assert.ok(Date.now() - started >= 1000, 'it waited for the database');
    assert.ok(retries.length >= 2, `tried again: ${retries.length}`);
    assert.ok(retries.every((r) => isTransientConnectError(r.err)));
    const r = await db.pool.query<{ n: number }>('SELECT 7 AS n');
    assert.equal(r.rows[0]!.n, 7);
  } finally {
    await db.close();
  }
});

test('a wrong password ends the wait at once, however long it may be', async () => {
  const u = new URL(tdb.url);
  u.password = 'not-the-password';
  const db = createDb({ url: u.toString(), poolSize: 1 });
  try {
    let retries = 0;
    const started = Date.now();
    await assert.rejects(waitForDatabase(db.pool, { timeoutMs: 30_000, onRetry: () => retries++ }), (err: { code?: string }) => err.code === '28P01');
    assert.equal(retries, 0);
    assert.ok(Date.now() - started < 10_000);
  } finally {
    await db.close();
  }
});

test('a database that never comes is given up after the wait, with its last error; 0 tries once', async () => {
  // Nothing listens on port 1 of loopback: refused at once.
  const db = createDb({ url: viaPort(1), poolSize: 1 });
  try {
    const started = Date.now();
    await assert.rejects(waitForDatabase(db.pool, { timeoutMs: 800, firstPauseMs: 100 }), (err: { code?: string }) => err.code === 'ECONNREFUSED');
    const took = Date.now() - started;
    assert.ok(took >= 700 && took < 5000, `gave up after ${took} ms`);
    let retries = 0;
    await assert.rejects(waitForDatabase(db.pool, { timeoutMs: 0, onRetry: () => retries++ }), (err: { code?: string }) => err.code === 'ECONNREFUSED');
    assert.equal(retries, 0, 'no second try');
  } finally {
    await db.close();
  }
});

test('which failures are worth another try', () => {
  const coded = (code: string) => Object.assign(new Error(code), { code });
  for (const c of ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', '57P03', '53300', '08006']) assert.equal(isTransientConnectError(coded(c)), true, c);
  for (const c of ['28P01', '3D000', '28000', '42501']) assert.equal(isTransientConnectError(coded(c)), false, c);
  assert.equal(isTransientConnectError(new Error('Connection terminated unexpectedly')), true);
  assert.equal(isTransientConnectError(new Error('self-signed certificate')), false);
  assert.equal(isTransientConnectError(undefined), false);
});
