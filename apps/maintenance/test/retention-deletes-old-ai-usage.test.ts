// Retention of the daily AI usage counters (the AI limits read them; an old
// day only takes space): an `ai_usage` row goes
// once its UTC day ended more than SVC_RETENTION_DAYS ago, in batches, for
// every user (automatic triage's 'auto' row too); the days inside the window,
// today's included (the one the limits read), stay.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { runRetention } from '../src/index.js';
import { count, DAY, setupEnv, testClock, type TestEnv } from './support.js';

let env: TestEnv;
before(async () => {
  env = await setupEnv();
});
after(() => env.close());

const utcDay = (d: Date) => d.toISOString().slice(0, 10);

async function usage(userId: string, day: string): Promise<void> {
  await env.db.pool.query(`INSERT INTO ai_usage (user_id, day, requests, tokens) VALUES ($1, $2::date, 3, 45)`, [userId, day]);
}

const days = async () =>
  (await env.db.pool.query<{ user_id: string; day: string }>(`SELECT user_id, to_char(day, 'YYYY-MM-DD') AS day FROM ai_usage ORDER BY day, user_id`)).rows.map(
    (r) => `${r.user_id} ${r.day}`,
  );

test('ai_usage rows of days older than SVC_RETENTION_DAYS go; the days inside it and today stay', async () => {
  // Midday, so "ended more than N days ago" is one day apart from "inside the window".
  const now = testClock(new Date(`${utcDay(new Date())}T12:00:00Z`)).now();
  const ago = (n: number) => utcDay(new Date(now.getTime() - n * DAY));
  for (const user of ['u1', 'u2', 'auto']) await usage(user, ago(400));
  await usage('u1', ago(120));
  await usage('u1', ago(91)); // ended 90.5 days ago: past a 90-day retention
  await usage('u2', ago(90)); // ended 89.5 days ago: kept
  await usage('u1', ago(1));
  await usage('u1', ago(0));
  await usage('auto', ago(0));

  const r = await runRetention({ db: env.db, engine: env.engine, storage: env.storage, log: env.log, metrics: env.metrics, retentionDays: 90, batchSize: 2 }, now);
  assert.equal(r.rows.ai_usage, 5, 'three of day -400, day -120 and day -91, in batches of 2');
  assert.deepEqual(await days(), [`u2 ${ago(90)}`, `u1 ${ago(1)}`, `auto ${ago(0)}`, `u1 ${ago(0)}`]);

  // A run with nothing old deletes nothing; a shorter setting takes more, never today.
  assert.equal((await runRetention({ db: env.db, engine: env.engine, storage: env.storage, log: env.log, retentionDays: 90 }, now)).rows.ai_usage, undefined);
  const short = await runRetention({ db: env.db, engine: env.engine, storage: env.storage, log: env.log, metrics: env.metrics, retentionDays: 1, batchSize: 2 }, now);
  assert.equal(short.rows.ai_usage, 1, 'day -90; yesterday ended 12 hours ago');
  assert.equal(await count(env.db, `SELECT 1 FROM ai_usage WHERE day = $1::date`, [ago(0)]), 2);
  assert.match(await env.metrics.registry.metrics(), /svc_maintenance_rows_deleted_total\{table="ai_usage"\} 6/);
});
