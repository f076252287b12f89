// Retention of alert deliveries: those made more than SVC_RETENTION_DAYS ago
// and no longer tried (delivered, failed, suppressed) go with their attempts,
// in batches; one still pending or being sent stays, and so do younger ones.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { newId } from '@svc/db';
import { runRetention } from '../src/index.js';
import { count, DAY, setupEnv, testClock, type TestEnv } from './support.js';

let env: TestEnv;
let ruleId = '';
before(async () => {
  env = await setupEnv();
  ruleId = newId();
  await env.db.pool.query(`INSERT INTO alert_rules (id, name, namespace, events, channels, created_by) VALUES ($1, 'r', 'team', '{failed}', '[]', 'test')`, [ruleId]);
});
after(() => env.close());

async function delivery(createdAt: Date, status: string): Promise<string> {
  const id = newId();
  await env.db.pool.query(
    `INSERT INTO alert_deliveries (id, rule_id, event, subject, namespace, channel, channel_type, target, status, created_at) VALUES ($1, $2, 'failed', $1, 'team', 0, 'webhook', 'https://x.test/', $3, $4)`,
    [id, ruleId, status, createdAt],
  );
  await env.db.pool.query(`INSERT INTO alert_delivery_attempts (id, delivery_id, number, ok, duration_ms, instance_id) VALUES ($1, $2, 1, true, 5, 'm')`, [newId(), id]);
  return id;
}

test('alert deliveries past SVC_RETENTION_DAYS go with their attempts unless still tried; younger ones stay', async () => {
  const now = testClock().now();
  const ago = (days: number) => new Date(now.getTime() - days * DAY);
  const old = [await delivery(ago(91), 'delivered'), await delivery(ago(100), 'failed'), await delivery(ago(200), 'suppressed'), await delivery(ago(95), 'delivered')];
  const kept = [await delivery(ago(91), 'pending'), await delivery(ago(92), 'sending'), await delivery(ago(89), 'delivered')];
  const r = await runRetention({ db: env.db, engine: env.engine, storage: env.storage, log: env.log, metrics: env.metrics, retentionDays: 90, batchSize: 3 }, now);
  assert.equal(r.rows.alert_deliveries, 4);
  assert.equal(await count(env.db, `SELECT 1 FROM alert_deliveries WHERE id = ANY($1)`, [old]), 0);
  assert.equal(await count(env.db, `SELECT 1 FROM alert_delivery_attempts WHERE delivery_id = ANY($1)`, [old]), 0);
  assert.equal(await count(env.db, `SELECT 1 FROM alert_deliveries WHERE id = ANY($1)`, [kept]), 3);
});
