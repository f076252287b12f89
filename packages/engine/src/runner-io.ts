// What runners send while a task runs: log lines (idempotent by sequence
// number, so a retried batch is stored once), artifacts, heartbeats (whose
// answer tells the runner to stop when its execution is being cancelled or
// has ended).
import crypto from 'node:crypto';
import type pg from 'pg';
import { newId } from '@svc/db';
import type { MasterKey } from '@svc/config';
import { CHANNELS } from './db.js';
import { recordedValues, SecretMasker, type RecordedSecrets } from './secret-masking.js';

export interface IncomingLogLine {
  n: number;
  ts: string;
  stream: string;
  text: string;
}

export const LOG_CHANNEL = 'svc_log_lines';

export interface TaskRunIdentity {
  execution_id: string;
  task_key: string;
  attempt: number;
}

/**
 * Stores a batch of log lines in one statement: the batch's `seq` numbers
 * (taken from the execution's `log_sequences` row, whose lock is held until
 * the statement commits, so an execution's lines commit in `seq` order: live
 * streams resume from one number), the insert (a line already stored under
 * its `n` is skipped, so a retried batch is stored once), the task run's last
 * sequence number, and a NOTIFY for live streams.
 */
export async function appendLogs(pool: pg.Pool, taskRunId: string, lines: IncomingLogLine[], who?: TaskRunIdentity): Promise<number> {
  if (!lines.length) return 0;
  const tr = who ?? (await pool.query<TaskRunIdentity>(`SELECT execution_id, task_key, attempt FROM task_runs WHERE id = $1`, [taskRunId])).rows[0];
  if (!tr) return 0;
  const r = await pool.query<{ stored: string }>(
    `WITH c AS (
       INSERT INTO log_sequences AS q (execution_id, seq) VALUES ($2, $11)
       ON CONFLICT (execution_id) DO UPDATE SET seq = q.seq + $11 RETURNING q.seq - $11 AS base),
     ins AS (
       INSERT INTO log_lines (task_run_id, n, execution_id, task_key, attempt, ts, stream, text, seq)
       SELECT $1, l.n, $2, $3, $4, l.ts, l.s, l.t, c.base + row_number() OVER (ORDER BY l.n)
       FROM c, unnest($5::int[], $6::bigint[], $7::text[], $8::text[]) AS l(n, ts, s, t)
       ON CONFLICT (task_run_id, n) DO NOTHING RETURNING 1),
     seq AS (UPDATE task_runs SET log_seq = GREATEST(log_seq, $9) WHERE id = $1 RETURNING 1)
     SELECT (SELECT count(*) FROM ins) AS stored, (SELECT count(*) FROM seq) AS s, pg_notify($10, $2)`,
    [taskRunId, tr.execution_id, tr.task_key, tr.attempt, lines.map((l) => l.n), lines.map((l) => l.ts), lines.map((l) => l.stream), lines.map((l) => l.text), Math.max(...lines.map((l) => l.n)), LOG_CHANNEL, lines.length],
  );
  return Number(r.rows[0]?.stored ?? 0);
}

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
  const tr = (await pool.query<{ execution_id: string }>(`SELECT execution_id FROM task_runs WHERE id = $1`, [taskRunId])).rows[0];
  if (!tr) throw new Error(`no task run ${taskRunId}`);
  const key = artifactKey(tr.execution_id, taskRunId, name);
  await storage.put(key, body, { contentType, size: body.length });
  const r = await pool.query<{ id: string }>(
    `INSERT INTO artifacts (id, execution_id, task_run_id, name, object_key, size, content_type, sha256, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now())
     ON CONFLICT (task_run_id, name) DO UPDATE
       SET object_key = EXCLUDED.object_key, size = EXCLUDED.size, content_type = EXCLUDED.content_type, sha256 = EXCLUDED.sha256
     RETURNING id`,
    [newId(), tr.execution_id, taskRunId, name, key, body.length, contentType, crypto.createHash('sha256').update(body).digest('hex')],
  );
  return { id: r.rows[0]!.id, size: body.length };
}

/**
 * Records a runner heartbeat; `cancel` is true when the task run should stop.
 * @param now a test's clock; default the database's (the watchdog judges the heartbeat against it).
 */
export async function heartbeatTaskRun(pool: pg.Pool, taskRunId: string, now?: Date): Promise<{ cancel: boolean; known: boolean }> {
  const r = await pool.query<{ state: string; ex_state: string }>(
    `UPDATE task_runs t SET last_heartbeat_at = COALESCE($2::timestamptz, now()) FROM executions e WHERE t.id = $1 AND e.id = t.execution_id RETURNING t.state, e.state AS ex_state`,
    [taskRunId, now ?? null],
  );
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
    const rec = (await pool.query<{ secrets: RecordedSecrets | null }>(`SELECT spec->'secrets' AS secrets FROM task_runs WHERE id = $1`, [taskRunId])).rows[0]?.secrets;
    if (rec) {
      const values = await recordedValues(pool, taskRunId, rec, masterKeys);
      message = values ? new SecretMasker(values).text(message) : '(withheld: the secrets of this run cannot be read to mask it)';
    }
  }
  const progress = { type: e.type, ...(message !== undefined ? { message } : {}), ...(e.percent !== undefined ? { percent: e.percent } : {}) };
  const r = await pool.query<{ execution_id: string }>(
    `WITH u AS (UPDATE task_runs SET progress = $2::jsonb || jsonb_build_object('at', now()), last_heartbeat_at = now()
                WHERE id = $1 AND state = 'RUNNING' RETURNING execution_id)
     SELECT execution_id, pg_notify($3, execution_id) FROM u`,
    [taskRunId, JSON.stringify(progress), CHANNELS.changed],
  );
  return r.rowCount === 1;
}

export { CHANNELS };
