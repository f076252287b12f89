// Retention of organization emails: rows older than SVC_EMAIL_RETENTION_DAYS
// (default 30) go whatever their status (a queued one too: nothing will send
// a month-old email usefully), in batches; younger ones stay; the daily quota
// counters of days past the limit go with them.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { newId } from '@svc/db';
import { createOrganization } from '@svc/identity';
import { runRetention } from '../src/index.js';
import { count, DAY, setupEnv, testClock, type TestEnv } from './support.js';

let env: TestEnv;
let orgId = '';
before(async () => {
  env = await setupEnv();
  orgId = (await createOrganization(env.db.pool, 'acme')).id;
});
after(() => env.close());

async function email(subject: string, createdAt: Date, status = 'sent'): Promise<string> {
  const id = newId();
  await env.db.pool.query(
    `INSERT INTO emails (id, organization_id, from_address, to_address, subject, text, status, created_at) VALUES ($1, $2, 'app@acme.test', 'bob@example.test', $3, 'x', $4, $5)`,
    [id, orgId, subject, status, createdAt],
  );
  return id;
}

test('emails older than SVC_EMAIL_RETENTION_DAYS go, whatever their status; younger ones and their counters stay', async () => {
  const now = testClock().now();
  const ago = (days: number) => new Date(now.getTime() - days * DAY);
  const old = [await email('old sent', ago(31)), await email('old failed', ago(45), 'failed'), await email('old queued', ago(31), 'queued'), await email('older', ago(400))];
  const young = [await email('young', ago(29)), await email('today', now, 'queued')];
  const day = (d: Date) => d.toISOString().slice(0, 10);
  for (const d of [ago(40), ago(32)]) await env.db.pool.query(`INSERT INTO org_email_usage (organization_id, day, count) VALUES ($1, $2::date, 5)`, [orgId, day(d)]);
  for (const d of [ago(20), now]) await env.db.pool.query(`INSERT INTO org_email_usage (organization_id, day, count) VALUES ($1, $2::date, 5)`, [orgId, day(d)]);

  const r = await runRetention({ db: env.db, engine: env.engine, storage: env.storage, log: env.log, metrics: env.metrics, retentionDays: 90, batchSize: 3 }, now);
  assert.equal(r.rows.emails, 4);
  assert.equal(r.rows.org_email_usage, 2);
  assert.equal(await count(env.db, `SELECT 1 FROM emails WHERE id = ANY($1)`, [old]), 0);
  assert.equal(await count(env.db, `SELECT 1 FROM emails WHERE id = ANY($1)`, [young]), 2);
  assert.equal(await count(env.db, `SELECT 1 FROM org_email_usage`), 2);

  // A shorter setting takes the 29-day-old one too.
  const again = await runRetention(
    { db: env.db, engine: env.engine, storage: env.storage, log: env.log, metrics: env.metrics, retentionDays: 90, emailRetentionDays: 7, batchSize: 3 },
    now,
  );
  assert.equal(again.rows.emails, 1);
  assert.equal(await count(env.db, `SELECT 1 FROM emails WHERE id = ANY($1)`, [young]), 1);
  assert.match(await env.metrics.registry.metrics(), /svc_maintenance_rows_deleted_total\{table="emails"\} 5/);
});
