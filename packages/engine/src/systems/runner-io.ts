// What runners send while a task runs besides log lines (log-appender.ts):
// artifacts, heartbeats (whose answer tells the runner to stop when its
// execution is being cancelled or has ended) and runner events.
import crypto from 'node:crypto';
import type pg from 'pg';
import { newId } from '@svc/db';
import type { MasterKey } from '@svc/config';
import { CHANNELS } from '../db.js';
import { recordedValues, SecretMasker, type RecordedSecrets } from './secret-masking.js';
import { ARTIFACT_TASK_RUN_SQL, HEARTBEAT_SQL, RECORD_PROGRESS_SQL, RUN_SECRETS_SQL, UPSERT_ARTIFACT_SQL } from '../sql/runner-io.js';

export {
  appendLogs,
  appendStatement,
  LOG_CHANNEL,
  LogAppender,
  plainIsSafe,
  type AppendBatch,
  type IncomingLogLine,
  type LogAppenderOptions,
  type TaskRunIdentity,
} from './log-appender.js';

/**
 * Object key of an artifact. Artifact names are the task's relative paths and
 * may hold any character; object keys may not, so the key uses a hash of the
 * name (the name itself is kept in the row).
 */
export const artifactKey = (executionId: string, taskRunId: string, name: string) =>
  `artifacts/${executionId}/${taskRunId}/${crypto.createHash('sha256').update(name).digest('hex').slice(0, 40)}`;

/**
 * Stores one artifact (streamed to the object store) and its row. Idempotent
 * per (task run, name): the object key derives from both, and a repeated
 * upload (a retry after a failure the uploader could not see succeed)
 * replaces the object and updates the one row, keeping its id.
 */
export async function storeArtifact(
  pool: pg.Pool,
  storage: { put(key: string, body: NodeJS.ReadableStream | Buffer, opts?: { contentType?: string; size?: number }): Promise<{ size: number }> },
  taskRunId: string,
  name: string,
  body: Buffer,
  contentType = 'application/octet-stream',
): Promise<{ id: string; size: number }> {
  const tr = (await pool.query<{ execution_id: string }>(ARTIFACT_TASK_RUN_SQL, [taskRunId])).rows[0];
  if (!tr) throw new Error(`no task run ${taskRunId}`);
  const key = artifactKey(tr.execution_id, taskRunId, name);
  await storage.put(key, body, { contentType, size: body.length });
  const r = await pool.query<{ id: string }>(UPSERT_ARTIFACT_SQL, [
    newId(),
    tr.execution_id,
    taskRunId,
    name,
    key,
    body.length,
    contentType,
    crypto.createHash('sha256').update(body).digest('hex'),
  ]);
  return { id: r.rows[0].id, size: body.length };
}

/**
 * Records a runner heartbeat; `cancel` is true when the task run should stop.
 * @param now a test's clock; default the database's (the watchdog judges the heartbeat against it).
 */
export async function heartbeatTaskRun(pool: pg.Pool, taskRunId: string, now?: Date): Promise<{ cancel: boolean; known: boolean }> {
  const r = await pool.query<{ state: string; ex_state: string }>(HEARTBEAT_SQL, [taskRunId, now ?? null]);
  const row = r.rows[0];
  if (!row) return { cancel: true, known: false };
  return { cancel: row.state !== 'RUNNING' || !['RUNNING'].includes(row.ex_state), known: true };
}

/** A runner event (runnerPostEvents): what the runner is doing, shown on the task run. */
export interface RunnerEvent {
  type: 'started' | 'progress' | 'heartbeat';
  message?: string;
  /** 0 to 100. */
  percent?: number;
}

/**
 * Records a runner event: a heartbeat counts as one; `started` and `progress`
 * become the task run's `progress` and wake the execution's event streams.
 * Returns false when the run is not RUNNING (the event is dropped).
 */
export async function recordRunnerEvent(pool: pg.Pool, taskRunId: string, e: RunnerEvent, masterKeys: readonly MasterKey[]): Promise<boolean> {
  if (e.type === 'heartbeat') return (await heartbeatTaskRun(pool, taskRunId)).known;
  let message = e.message?.slice(0, 1000);
  if (message) {
    // The message comes from the task's side: masked against the secrets its run resolved, as its completion is.
    const rec = (await pool.query<{ secrets: RecordedSecrets | null }>(RUN_SECRETS_SQL, [taskRunId])).rows[0]?.secrets;
    if (rec) {
      const values = await recordedValues(pool, taskRunId, rec, masterKeys);
      message = values ? new SecretMasker(values).text(message) : '(withheld: the secrets of this run cannot be read to mask it)';
    }
  }
  const progress = { type: e.type, ...(message !== undefined ? { message } : {}), ...(e.percent !== undefined ? { percent: e.percent } : {}) };
  const r = await pool.query<{ execution_id: string }>(RECORD_PROGRESS_SQL, [taskRunId, JSON.stringify(progress), CHANNELS.changed]);
  return r.rowCount === 1;
}

export { CHANNELS };
