// Uploads (file inputs) that no execution used before they expired go with
// their objects, in batches; an upload still inside its 24 hours stays, row
// and object.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { runRetention } from '../src/index.js';
import { count, setupEnv, testClock, type TestEnv } from './support.js';

let env: TestEnv;
before(async () => {
  env = await setupEnv();
});
after(() => env.close());

async function upload(id: string, expiresAt: Date): Promise<string> {
  const key = `uploads/team-a/${id}`;
  await env.storage.put(key, `bytes of ${id}`, { contentType: 'application/octet-stream' });
  await env.db.pool.query(
    `INSERT INTO uploads (id, namespace, name, object_key, size, sha256, created_at, expires_at) VALUES ($1, 'team-a', 'q3.csv', $2, 12, 'x', $3::timestamptz - interval '1 day', $3)`,
    [id, key, expiresAt],
  );
  return key;
}

const exists = async (key: string) =>
  env.storage.getBuffer(key).then(
    () => true,
    () => false,
  );

test('expired uploads go, rows then objects, in batches; a live one stays', async () => {
  const now = testClock(new Date('2026-12-07T12:00:00Z')).now();
  const expired = await Promise.all(['u1', 'u2', 'u3'].map((id, i) => upload(id, new Date(now.getTime() - (i + 1) * 60_000))));
  const live = await upload('u4', new Date(now.getTime() + 3_600_000));
  const r = await runRetention({ db: env.db, engine: env.engine, storage: env.storage, log: env.log, metrics: env.metrics, retentionDays: 90, batchSize: 2 }, now);
  assert.equal(r.rows.uploads, 3);
  for (const key of expired) assert.equal(await exists(key), false, key);
  assert.equal(await exists(live), true);
  assert.equal(await count(env.db, `SELECT 1 FROM uploads`), 1);
  assert.match(await env.metrics.registry.metrics(), /svc_maintenance_objects_deleted_total\{kind="other"\} 3/);
});
