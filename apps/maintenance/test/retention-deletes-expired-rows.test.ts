// Retention, one row of the spec's table at a time, with an injected clock:
// what is past its limit goes (in batches smaller than the data), what is
// within it stays, and git sync runs are never touched.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { newId } from '@svc/db';
import { runRetention } from '../src/index.js';
import { count, DAY, HOUR, keysUnder, putObject, seedExecution, seedSnapshot, seedTaskRunWithData, setupEnv, testClock, type TestEnv } from './support.js';

let env: TestEnv;
before(async () => {
  env = await setupEnv();
});
after(() => env.close());

const retention = (now: Date, extra: Partial<Parameters<typeof runRetention>[0]> = {}) =>
  runRetention({ db: env.db, engine: env.engine, storage: env.storage, log: env.log, metrics: env.metrics, retentionDays: 30, batchSize: 3, executionBatch: 2, ...extra }, now);

test('ended executions go with their task runs, logs, metrics, artifacts (rows and objects), archives and insights SVC_RETENTION_DAYS after their end', async () => {
  const clock = testClock();
  const t0 = clock.now();
  const snap = await seedSnapshot(env.db, { createdAt: new Date(t0.getTime() - 100 * DAY) });
  const at = (daysAgo: number) => new Date(t0.getTime() - daysAgo * DAY);
  // Five expired executions (more than one execution batch, and more log lines than one row batch).
  const expired: { id: string; artifactKey: string }[] = [];
  for (let i = 0; i < 5; i++) {
    const id = await seedExecution(env.db, { snapshotId: snap, createdAt: at(40), endedAt: at(31), state: i % 2 ? 'FAILED' : 'SUCCESS' });
    const { artifactKey } = await seedTaskRunWithData(env, id, at(31));
    expired.push({ id, artifactKey });
  }
  const archiveKey = `logs/${expired[0]!.id}.log.gz`;
  await putObject(env, archiveKey, 'gz', at(31));
  await env.db.pool.query(`INSERT INTO log_archives (execution_id, object_key, size, line_count) VALUES ($1, $2, 2, 7)`, [expired[0]!.id, archiveKey]);
  const recent = await seedExecution(env.db, { snapshotId: snap, createdAt: at(40), endedAt: at(29) });
  const recentData = await seedTaskRunWithData(env, recent, at(29));
  // Still running after 200 days: not ended, so not subject to retention.
  const running = await seedExecution(env.db, { snapshotId: snap, createdAt: at(200) });

  const r = await retention(t0);
  assert.equal(r.executions, 5);
  assert.equal(r.complete, true);
  const ids = expired.map((e) => e.id);
  assert.equal(await count(env.db, `SELECT 1 FROM executions WHERE id = ANY($1)`, [ids]), 0);
  for (const table of ['task_runs', 'log_lines', 'task_metrics', 'execution_history', 'artifacts', 'ai_insights', 'log_archives']) {
    assert.equal(await count(env.db, `SELECT 1 FROM ${table} WHERE execution_id = ANY($1)`, [ids]), 0, `${table} rows of expired executions`);
  }
  assert.equal(r.rows.log_lines, 35);
  assert.equal(r.objects, 6, 'five artifact objects and one archived log');
  const left = await keysUnder(env);
  for (const e of expired) assert.ok(!left.includes(e.artifactKey), `${e.artifactKey} deleted`);
  assert.ok(!left.includes(archiveKey));

  // Within the limit, and not ended: untouched.
  assert.equal(await count(env.db, `SELECT 1 FROM executions WHERE id = ANY($1)`, [[recent, running]]), 2);
  assert.equal(await count(env.db, `SELECT 1 FROM log_lines WHERE execution_id = $1`, [recent]), 7);
  assert.equal(await count(env.db, `SELECT 1 FROM artifacts WHERE execution_id = $1`, [recent]), 1);
  assert.ok(left.includes(recentData.artifactKey));

  // Two days later the recent one is past the limit too.
  clock.advance(2 * DAY);
  const again = await retention(clock.now());
  assert.equal(again.executions, 1);
  assert.equal(await count(env.db, `SELECT 1 FROM executions WHERE id = $1`, [recent]), 0);
  assert.ok(!(await keysUnder(env, 'artifacts/')).includes(recentData.artifactKey));
  assert.equal(await count(env.db, `SELECT 1 FROM executions WHERE id = $1`, [running]), 1);
});

test('audit events are kept 365 days', async () => {
  const now = testClock().now();
  const ago = (ms: number) => new Date(now.getTime() - ms);
  const old = [newId(), newId(), newId(), newId()];
  for (const id of old) await env.db.pool.query(`INSERT INTO audit_events (id, at, actor_type, action) VALUES ($1, $2, 'system', 'x.old')`, [id, ago(366 * DAY)]);
  await env.db.pool.query(`INSERT INTO audit_events (id, at, actor_type, action) VALUES ($1, $2, 'system', 'x.kept')`, [newId(), ago(364 * DAY)]);
  const r = await retention(now);
  assert.equal(r.rows.audit_events, 4);
  assert.equal(await count(env.db, `SELECT 1 FROM audit_events WHERE action = 'x.old'`), 0);
  assert.equal(await count(env.db, `SELECT 1 FROM audit_events WHERE action = 'x.kept'`), 1);
});

test('instance rows go 24 hours after their last heartbeat', async () => {
  const now = testClock().now();
  const ago = (ms: number) => new Date(now.getTime() - ms);
  const add = (id: string, beat: Date, stopped: Date | null = null) =>
    env.db.pool.query(
      `INSERT INTO instances (id, kind, hostname, version, pools, executors, started_at, last_heartbeat_at, stopped_at) VALUES ($1, 'dispatcher', 'h', '1', '{default}', '{process}', $2, $2, $3)`,
      [id, beat, stopped],
    );
  await add('gone-1', ago(25 * HOUR));
  await add('gone-2', ago(30 * DAY), ago(30 * DAY));
  await add('offline-recent', ago(23 * HOUR), ago(23 * HOUR));
  await add('online', ago(5_000));
  await retention(now);
  const ids = (await env.db.pool.query<{ id: string }>(`SELECT id FROM instances ORDER BY id`)).rows.map((r) => r.id);
  assert.deepEqual(ids, ['offline-recent', 'online']);
});

test('login attempts are kept 24 hours', async () => {
  const now = testClock().now();
  for (let i = 0; i < 7; i++) {
    await env.db.pool.query(`INSERT INTO login_attempts (email, ip, succeeded, at) VALUES ('a@x', '1.2.3.4', false, $1)`, [new Date(now.getTime() - 25 * HOUR - i)]);
  }
  await env.db.pool.query(`INSERT INTO login_attempts (email, ip, succeeded, at) VALUES ('kept@x', '1.2.3.4', false, $1)`, [new Date(now.getTime() - 23 * HOUR)]);
  const r = await retention(now);
  assert.equal(r.rows.login_attempts, 7, 'seven rows in batches of three');
  assert.deepEqual((await env.db.pool.query(`SELECT email FROM login_attempts`)).rows, [{ email: 'kept@x' }]);
});

test('expired sessions go at the next run; live sessions stay', async () => {
  const now = testClock().now();
  const user = newId();
  await env.db.pool.query(`INSERT INTO users (id, email, password_hash, role) VALUES ($1, $2, 'x', 'viewer')`, [user, `${user.toLowerCase()}@x`]);
  const add = (id: string, expires: Date) =>
    env.db.pool.query(`INSERT INTO sessions (id, user_id, token_hash, expires_at) VALUES ($1, $2, $3, $4)`, [id, user, `h-${id}`, expires]);
  await add('s-expired', new Date(now.getTime() - 1));
  await add('s-live', new Date(now.getTime() + HOUR));
  await retention(now);
  assert.deepEqual((await env.db.pool.query(`SELECT id FROM sessions WHERE user_id = $1`, [user])).rows, [{ id: 's-live' }]);
});

test('git sync runs are never deleted', async () => {
  const now = testClock().now();
  await env.db.pool.query(`INSERT INTO git_sync_runs (id, git_source_id, trigger, status, started_at, ended_at) VALUES ('g-old', 'src', 'poll', 'success', $1, $1)`, [
    new Date(now.getTime() - 3650 * DAY),
  ]);
  await retention(now);
  assert.equal(await count(env.db, `SELECT 1 FROM git_sync_runs WHERE id = 'g-old'`), 1);
});

test('a run stops at the next batch when the lease is lost', async () => {
  const now = testClock().now();
  for (let i = 0; i < 9; i++) {
    await env.db.pool.query(`INSERT INTO login_attempts (email, ip, succeeded, at) VALUES ('stop@x', '1.2.3.4', false, $1)`, [new Date(now.getTime() - 2 * DAY)]);
  }
  let checks = 0;
  // The lease is held for six checks (executions, expired uploads, audit
  // events, instances, then two batches of login attempts) and lost before
  // the third batch.
  const r = await retention(now, { shouldContinue: () => ++checks <= 6 });
  assert.equal(r.complete, false);
  assert.equal(r.rows.login_attempts, 6);
  assert.equal(await count(env.db, `SELECT 1 FROM login_attempts WHERE email = 'stop@x'`), 3);
});

test('retention counts what it deleted in /metrics counters', async () => {
  const text = await env.metrics.registry.metrics();
  assert.match(text, /svc_maintenance_rows_deleted_total\{table="executions"\} 6/);
  assert.match(text, /svc_maintenance_rows_deleted_total\{table="log_lines"\} 42/);
  assert.match(text, /svc_maintenance_objects_deleted_total\{kind="artifacts"\} 6/);
  assert.match(text, /svc_maintenance_objects_deleted_total\{kind="logs"\} 1/);
});
