// listInstances and getStorageStatus over real HTTP with real tokens: admins
// only; instances Online while their heartbeat is at most 60 s old and they
// are not stopped, paged by cursor; the storage status counts objects and
// bytes by kind and shows the last cleanup the maintenance lease holder
// recorded.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { components } from '@svc/api-spec';
import { markInstanceStopped, registerInstance } from '@svc/db';
import { startTestGateway, type TestGateway } from './helpers.js';
import { login, makeToken, makeUser, raw, testClock } from './identity-helpers.js';
import { assertConforms } from './secrets-helpers.js';

const clock = testClock();
let gw: TestGateway;
let admin: string;
let editor: string;

before(async () => {
  gw = await startTestGateway({ now: clock.now });
  await makeUser(gw, 'root@example.com', 'admin');
  const cookie = await login(gw, 'root@example.com');
  admin = await makeToken(gw, cookie, 'admin');
  editor = await makeToken(gw, cookie, 'editor');
});
after(() => gw.close());

const get = (path: string, token?: string) => raw(gw, 'GET', path, token ? { authorization: `Bearer ${token}` } : {});

type InstanceItem = components['schemas']['Instance'];

test('instances are listed to admins with pools, executors, last heartbeat and Online or Offline', async () => {
  const now = clock.now().getTime();
  const reg = (id: string, beatAgo: number, kind: 'dispatcher' | 'api-gateway' = 'dispatcher') =>
    registerInstance(gw.db.pool, { id, kind, hostname: `host-${id}`, version: '1.2.3', pools: ['default', 'gpu'], executors: ['inline', 'process'] }, new Date(now - beatAgo));
  await reg('i1-online', 60_000);
  await reg('i2-silent', 61_000);
  await reg('i3-stopped', 5_000, 'api-gateway');
  await markInstanceStopped(gw.db.pool, 'i3-stopped', new Date(now - 1_000));

  const r = await get('/api/v1/instances', admin);
  assert.equal(r.status, 200, r.body);
  const items = r.json<{ items: InstanceItem[] }>().items;
  const byId = Object.fromEntries(items.map((i) => [i.id, i]));
  assert.deepEqual(Object.keys(byId).sort(), ['i1-online', 'i2-silent', 'i3-stopped']);
  assert.deepEqual(
    { ...byId['i1-online'] },
    {
      ...byId['i1-online'],
      hostname: 'host-i1-online',
      version: '1.2.3',
      kind: 'dispatcher',
      pools: ['default', 'gpu'],
      executors: ['inline', 'process'],
      last_heartbeat_at: new Date(now - 60_000).toISOString(),
      online: true,
      status: 'Online',
    },
  );
  assert.equal(byId['i2-silent']!.status, 'Offline', 'heartbeat 61 s old');
  assert.equal(byId['i2-silent']!.online, false);
  assert.equal(byId['i3-stopped']!.status, 'Offline', 'stopped');

  // The same instance a minute later, by the gateway's clock, is Offline.
  clock.advance(1_000);
  const later = (await get('/api/v1/instances', admin)).json<{ items: InstanceItem[] }>().items;
  assert.equal(later.find((i) => i.id === 'i1-online')!.status, 'Offline');
  clock.advance(-1_000);
});

test('instances page by cursor', async () => {
  const first = (await get('/api/v1/instances?limit=2', admin)).json<{ items: InstanceItem[]; next_cursor?: string }>();
  assert.equal(first.items.length, 2);
  assert.ok(first.next_cursor);
  const second = (await get(`/api/v1/instances?limit=2&cursor=${first.next_cursor}`, admin)).json<{ items: InstanceItem[]; next_cursor?: string }>();
  assert.deepEqual(
    [...first.items, ...second.items].map((i) => i.id),
    ['i1-online', 'i2-silent', 'i3-stopped'],
  );
  assert.equal(second.next_cursor, undefined);
});

test('the storage status counts objects and bytes by kind and shows the last cleanup', async () => {
  const put = (key: string, bytes: number) => gw.storage.put(key, Buffer.alloc(bytes, 1));
  await put(`files/ab/ab${'0'.repeat(62)}`, 10);
  await put(`files/cd/cd${'0'.repeat(62)}`, 5);
  await put('bundles/snap-1.tar.gz', 100);
  await put('artifacts/ex-1/tr-1/out/report.txt', 7);
  await put('logs/ex-1.log.gz', 3);
  await put('health/inst/probe', 1);
  await put('operator/notes.txt', 2);

  const r = await get('/api/v1/storage', admin);
  assert.equal(r.status, 200, r.body);
  const s = r.json<{
    store: string;
    complete: boolean;
    objects: Record<string, { objects: number; bytes: number }>;
    total: { objects: number; bytes: number };
    last_cleanup: unknown;
    next_cleanup_after: string | null;
  }>();
  assert.equal(s.store, 'file');
  assert.equal(s.complete, true);
  assert.deepEqual(s.objects, {
    files: { objects: 2, bytes: 15 },
    bundles: { objects: 1, bytes: 100 },
    artifacts: { objects: 1, bytes: 7 },
    logs: { objects: 1, bytes: 3 },
    other: { objects: 2, bytes: 3 },
  });
  assert.deepEqual(s.total, { objects: 7, bytes: 128 });
  assert.equal(s.last_cleanup, null);
  assert.equal(s.next_cleanup_after, null);
  assertConforms('getStorageStatus', 200, s);

  // What apps/maintenance writes after a cleanup (settings `storage_cleanup`).
  const record = {
    started_at: '2026-06-01T03:00:00.000Z',
    finished_at: '2026-06-01T03:00:01.250Z',
    duration_ms: 1250,
    outcome: 'ok',
    instance_id: 'maint-1',
    objects: {
      files: { objects: 4, bytes: 4096 },
      bundles: { objects: 1, bytes: 1000 },
      artifacts: { objects: 0, bytes: 0 },
      logs: { objects: 0, bytes: 0 },
      other: { objects: 2, bytes: 64 },
    },
    rows: { snapshots: 1, file_objects: 3, bundles_released: 1 },
    kept: { young_objects: 5, restored_files: 0 },
  } satisfies components['schemas']['StorageCleanup'];
  // A record that is not one (no start time) is no cleanup.
  await gw.db.pool.query(`INSERT INTO settings (key, value) VALUES ('storage_cleanup', $1)`, [JSON.stringify({ outcome: 'ok' })]);
  assert.equal((await get('/api/v1/storage', admin)).json<{ last_cleanup: unknown }>().last_cleanup, null);
  await gw.db.pool.query(`UPDATE settings SET value = $1 WHERE key = 'storage_cleanup'`, [JSON.stringify(record)]);
  const after = (await get('/api/v1/storage', admin)).json<{ last_cleanup: unknown; next_cleanup_after: string }>();
  assert.deepEqual(after.last_cleanup, record);
  assert.equal(after.next_cleanup_after, '2026-06-02T03:00:00.000Z');
  // The record as the document declares it (StorageCleanup).
  assertConforms('getStorageStatus', 200, after);
});

test('both routes are for admins only', async () => {
  for (const path of ['/api/v1/instances', '/api/v1/storage']) {
    assert.equal((await get(path)).status, 401, path);
    const r = await get(path, editor);
    assert.equal(r.status, 403, path);
    assert.equal(r.json().error.code, 'forbidden');
  }
});
