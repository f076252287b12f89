// A real database (own database per test file) and a real file object store in
// a temp dir, plus helpers that write rows and objects with chosen ages.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDb, newId, Notifier, type Db } from '@svc/db';
import { createTestDatabase, type TestDatabase } from '@svc/db/testing';
import { testEngine } from '@svc/engine/internal';
import { createTestLogger, type Logger } from '@svc/logging';
import { FileObjectStore } from '@svc/storage';
import { createMaintenanceMetrics, type MaintenanceMetrics } from '../src/index.js';

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

export interface TestEnv {
  tdb: TestDatabase;
  db: Db;
  dir: string;
  storage: FileObjectStore;
  log: Logger;
  logs: () => Record<string, unknown>[];
  metrics: MaintenanceMetrics;
  /** The process's shared notifier, as runService gives it (ServiceContext.notifier). */
  notifier: Notifier;
  /** An engine on this database (retention deletes executions through it). */
  engine: ReturnType<typeof testEngine>;
  close(): Promise<void>;
}

export async function setupEnv(): Promise<TestEnv> {
  const tdb = await createTestDatabase();
  const db = createDb({ url: tdb.url, poolSize: 8 });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-maint-'));
  const storage = await FileObjectStore.open(path.join(dir, 'objects'), { fsync: false });
  const { logger, lines } = createTestLogger({ level: 'debug' });
  const notifier = new Notifier({ url: tdb.url, log: logger, applicationName: 'svc-maintenance-listen' });
  return {
    tdb,
    db,
    dir,
    storage,
    log: logger,
    logs: lines,
    metrics: createMaintenanceMetrics({ defaultMetrics: false }),
    engine: testEngine({ pool: db.pool, storage }),
    notifier,
    async close() {
      await notifier.close();
      await db.close();
      await tdb.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A clock tests move by hand. */
export function testClock(start = new Date()) {
  let t = start.getTime();
  return { now: () => new Date(t), advance: (ms: number) => (t += ms), set: (d: Date) => (t = d.getTime()) };
}

/** Puts an object and sets its modification time (what `list` and `stat` report). */
export async function putObject(env: TestEnv, key: string, body: string | Buffer, modifiedAt: Date): Promise<void> {
  await env.storage.put(key, body);
  setModified(env, key, modifiedAt);
}

export function setModified(env: TestEnv, key: string, at: Date): void {
  fs.utimesSync(path.join(env.storage.rootDir, ...key.split('/')), at, at);
}

export async function keysUnder(env: TestEnv, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for await (const o of env.storage.list(prefix)) out.push(o.key);
  return out.sort();
}

export async function count(db: Db, sql: string, params: unknown[] = []): Promise<number> {
  return Number((await db.pool.query<{ n: string }>(`SELECT count(*) AS n FROM (${sql}) x`, params)).rows[0]!.n);
}

/** A snapshot row (no files) with chosen times. */
export async function seedSnapshot(db: Db, o: { id?: string; namespace?: string; createdAt: Date; lastUsedAt?: Date; bundleKey?: string; bundleBuiltAt?: Date }): Promise<string> {
  const id = o.id ?? newId();
  await db.pool.query(
    `INSERT INTO snapshots (id, namespace, manifest_hash, file_count, total_bytes, created_at, last_used_at, bundle_key, bundle_hash, bundle_size, bundle_built_at)
     VALUES ($1, $2, $3, 0, 0, $4, $5, $6, $7, $8, $9)`,
    [
      id,
      o.namespace ?? 'ns',
      `m-${id}`,
      o.createdAt,
      o.lastUsedAt ?? o.createdAt,
      o.bundleKey ?? null,
      o.bundleKey ? 'h' : null,
      o.bundleKey ? 10 : null,
      o.bundleKey ? (o.bundleBuiltAt ?? o.createdAt) : null,
    ],
  );
  return id;
}

/** An execution row pinning `snapshotId`; ended when `endedAt` is given. */
export async function seedExecution(db: Db, o: { snapshotId: string; createdAt: Date; endedAt?: Date; state?: string }): Promise<string> {
  const id = newId();
  await db.pool.query(
    `INSERT INTO executions (id, state, namespace, flow_id, snapshot_id, definition, created_by, trigger_type, created_at, started_at, ended_at)
     VALUES ($1, $2, 'ns', 'f', $3, '{"id":"f","tasks":[]}', 'test', 'manual', $4, $4, $5)`,
    [id, o.state ?? (o.endedAt ? 'SUCCESS' : 'RUNNING'), o.snapshotId, o.createdAt, o.endedAt ?? null],
  );
  return id;
}

/** A task run of an execution with one of everything that hangs off it: history, a log line, a metric, an artifact (row and object), an AI insight. */
export async function seedTaskRunWithData(env: TestEnv, executionId: string, at: Date): Promise<{ taskRunId: string; artifactKey: string }> {
  const db = env.db;
  const taskRunId = newId();
  await db.pool.query(
    `INSERT INTO task_runs (id, execution_id, task_key, task_type, executor_type, state, created_at, started_at, ended_at) VALUES ($1, $2, 't', 'command', 'process', 'SUCCESS', $3, $3, $3)`,
    [taskRunId, executionId, at],
  );
  await db.pool.query(`INSERT INTO execution_history (execution_id, task_run_id, from_state, to_state, at) VALUES ($1, $2, 'RUNNING', 'SUCCESS', $3)`, [
    executionId,
    taskRunId,
    at,
  ]);
  await db.pool.query(
    `INSERT INTO log_lines (task_run_id, n, execution_id, task_key, attempt, ts, stream, text, seq) SELECT $1, n, $2, 't', 1, n, 'stdout', 'line', n FROM generate_series(1, 7) AS n`,
    [taskRunId, executionId],
  );
  await db.pool.query(`INSERT INTO task_metrics (execution_id, task_run_id, task_key, name, value, at) VALUES ($1, $2, 't', 'rows', 3, $3)`, [executionId, taskRunId, at]);
  const artifactKey = `artifacts/${executionId}/${taskRunId}/out/report.txt`;
  await putObject(env, artifactKey, 'report', at);
  await db.pool.query(`INSERT INTO artifacts (id, execution_id, task_run_id, name, object_key, size, sha256, created_at) VALUES ($1, $2, $3, 'out/report.txt', $4, 6, 'x', $5)`, [
    newId(),
    executionId,
    taskRunId,
    artifactKey,
    at,
  ]);
  await db.pool.query(`INSERT INTO ai_insights (id, execution_id, status, created_at) VALUES ($1, $2, 'done', $3)`, [newId(), executionId, at]);
  return { taskRunId, artifactKey };
}
