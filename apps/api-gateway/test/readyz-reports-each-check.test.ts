import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { S3ObjectStore } from '@svc/storage';
import { runReadiness } from '../src/readiness.js';
import { startTestGateway, type TestGateway } from './helpers.js';

let gw: TestGateway;
const KEY = Buffer.alloc(32, 7).toString('base64');

before(async () => {
  gw = await startTestGateway({ env: { SVC_MASTER_KEYS: `k1:${KEY}` } });
});
after(() => gw.close());

test('healthz answers 200 with a request id', async () => {
  const r = await fetch(`${gw.url}/healthz`);
  assert.equal(r.status, 200);
  assert.match(r.headers.get('x-request-id') ?? '', /^[A-Za-z0-9._:-]{1,128}$/);
});

test('readyz is 200 with every check ok on a healthy deployment', async () => {
  const r = await fetch(`${gw.url}/readyz`);
  assert.equal(r.status, 200);
  const { details, ...report } = (await r.json()) as { details?: Record<string, string> };
  assert.deepEqual(report, { status: 'ok', checks: { database: 'ok', migrations: 'ok', storage: 'ok', master_keys: 'ok' } });
  // No maintenance instance sends mail here: a warning beside the checks, which does not fail readiness.
  assert.deepEqual(Object.keys(details ?? {}), ['email']);
  assert.match(details!.email!, /^not configured: .* 0 email\(s\) queued and waiting$/);
  // The storage probe cleans up after itself.
  const left = [];
  for await (const o of gw.storage.list('health/')) left.push(o.key);
  assert.deepEqual(left, []);
});

test('concurrent readiness probes do not disturb each other', async () => {
  const rs = await Promise.all(Array.from({ length: 20 }, () => fetch(`${gw.url}/readyz`)));
  const bodies = (await Promise.all(rs.map((r) => r.json()))) as { status: string; checks: Record<string, string> }[];
  assert.deepEqual(
    rs.map((r) => r.status),
    Array(20).fill(200),
    JSON.stringify(bodies.find((b) => b.status !== 'ok')),
  );
});

test('a stored secret whose key id SVC_MASTER_KEYS lacks fails master_keys with master_key_missing', async () => {
  await gw.db.pool.query(`INSERT INTO secrets (namespace, key, ciphertext, nonce, key_id) VALUES ('', 'A', '\\x00', '\\x00', 'k1'), ('team', 'B', '\\x00', '\\x00', 'retired')`);
  try {
    const r = await fetch(`${gw.url}/readyz`);
    assert.equal(r.status, 503);
    const body = (await r.json()) as { status: string; checks: Record<string, string>; failed: string[] };
    assert.equal(body.status, 'fail');
    assert.deepEqual(body.failed, ['master_keys']);
    assert.match(body.checks.master_keys!, /master_key_missing/);
    assert.match(body.checks.master_keys!, /retired/);
    assert.doesNotMatch(body.checks.master_keys!, /\bk1\b/);
    assert.equal(body.checks.database, 'ok');
  } finally {
    await gw.db.pool.query(`DELETE FROM secrets`);
  }
});

test('a migration recorded by a newer build fails the migrations check', async () => {
  await gw.db.pool.query(
    `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count)
     VALUES ('future', 'x', now(), '29990101000000_newer', now(), 1)`,
  );
  try {
    const r = await fetch(`${gw.url}/readyz`);
    assert.equal(r.status, 503);
    const body = (await r.json()) as { checks: Record<string, string>; failed: string[] };
    assert.deepEqual(body.failed, ['migrations']);
    assert.match(body.checks.migrations!, /29990101000000_newer/);
  } finally {
    await gw.db.pool.query(`DELETE FROM "_prisma_migrations" WHERE id = 'future'`);
  }
});

test('an unreachable object store fails the storage check only', async () => {
  const broken = new S3ObjectStore({ endPoint: '127.0.0.1', port: 1, useSSL: false, accessKey: 'a', secretKey: 'b', bucket: 'svc-test' });
  const g2 = await startTestGateway({ storage: broken });
  try {
    const r = await fetch(`${g2.url}/readyz`);
    assert.equal(r.status, 503);
    const body = (await r.json()) as { checks: Record<string, string>; failed: string[] };
    assert.deepEqual(body.failed, ['storage']);
    assert.notEqual(body.checks.storage, 'ok');
    assert.ok(body.checks.storage!.length > 0);
  } finally {
    await g2.close();
  }
});

test('checks run in parallel under one deadline; a hanging check is reported as timed out', async () => {
  const started: string[] = [];
  const hang = (name: string) => () => {
    started.push(name);
    return new Promise<void>(() => undefined);
  };
  const ok = (name: string) => async () => {
    started.push(name);
  };
  const t0 = Date.now();
  const report = await runReadiness({ database: ok('database'), migrations: hang('migrations'), storage: hang('storage'), master_keys: ok('master_keys') }, 300);
  assert.ok(Date.now() - t0 < 2_000, 'two hanging checks share the one deadline');
  assert.equal(started.length, 4);
  assert.equal(report.status, 'fail');
  assert.deepEqual(report.failed, ['migrations', 'storage']);
  assert.match(report.checks.migrations, /timed out/);
  assert.equal(report.checks.database, 'ok');
});
