// What runners send besides log lines: the statements behind artifacts,
// heartbeats and runner events, and the task run reads they need.
import type { Queryable } from '@svc/db';
import type { RecordedSecrets, TaskRunIdentity } from '../types.js';

/** The execution, task key and attempt of task run `taskRunId` (the identity its log lines carry). */
export async function logIdentity(db: Queryable, p: { taskRunId: string }): Promise<TaskRunIdentity | undefined> {
  return (await db.query<TaskRunIdentity>(`SELECT execution_id, task_key, attempt FROM task_runs WHERE id = $1`, [p.taskRunId])).rows[0];
}

/** The execution of task run `taskRunId` (an artifact's object key names it). */
export async function artifactTaskRun(db: Queryable, p: { taskRunId: string }): Promise<{ execution_id: string } | undefined> {
  return (await db.query<{ execution_id: string }>(`SELECT execution_id FROM task_runs WHERE id = $1`, [p.taskRunId])).rows[0];
}

/** An artifact's row, one per (task run, kind, name): a repeated upload updates it and keeps its id. Returns its id. */
export async function upsertArtifact(
  db: Queryable,
  p: { id: string; executionId: string; taskRunId: string; name: string; objectKey: string; size: number; contentType: string; sha256: string; kind: string },
): Promise<string> {
  const r = await db.query<{ id: string }>(
    `INSERT INTO artifacts (id, execution_id, task_run_id, name, object_key, size, content_type, sha256, kind, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, now())
     ON CONFLICT (task_run_id, kind, name) DO UPDATE
       SET object_key = EXCLUDED.object_key, size = EXCLUDED.size, content_type = EXCLUDED.content_type, sha256 = EXCLUDED.sha256
     RETURNING id`,
    [p.id, p.executionId, p.taskRunId, p.name, p.objectKey, p.size, p.contentType, p.sha256, p.kind],
  );
  return r.rows[0].id;
}

/** A runner heartbeat of task run `taskRunId` at `now` (else the database's clock): the run's and its execution's states, undefined when unknown. */
export async function heartbeat(db: Queryable, p: { taskRunId: string; now: Date | null }): Promise<{ state: string; ex_state: string } | undefined> {
  const r = await db.query<{ state: string; ex_state: string }>(
    `UPDATE task_runs t SET last_heartbeat_at = COALESCE($2::timestamptz, now()) FROM executions e WHERE t.id = $1 AND e.id = t.execution_id RETURNING t.state, e.state AS ex_state`,
    [p.taskRunId, p.now],
  );
  return r.rows[0];
}

/** The secrets recorded on task run `taskRunId` (sealed values), to mask what its task reports; `running`: only while it is RUNNING (an end to mask first). */
export async function runSecrets(db: Queryable, p: { taskRunId: string; running: boolean }): Promise<RecordedSecrets | null | undefined> {
  const text = p.running
    ? `SELECT spec->'secrets' AS secrets FROM task_runs WHERE id = $1 AND state = 'RUNNING'`
    : `SELECT spec->'secrets' AS secrets FROM task_runs WHERE id = $1`;
  return (await db.query<{ secrets: RecordedSecrets | null }>(text, [p.taskRunId])).rows[0]?.secrets;
}

/** A runner event of RUNNING task run `taskRunId`: its `progress`, a heartbeat, and the NOTIFY on `channel` for its execution's streams. Whether it was RUNNING. */
export async function recordProgress(db: Queryable, p: { taskRunId: string; progress: Record<string, unknown>; channel: string }): Promise<boolean> {
  const r = await db.query(
    `WITH u AS (UPDATE task_runs SET progress = $2::jsonb || jsonb_build_object('at', now()), last_heartbeat_at = now()
                WHERE id = $1 AND state = 'RUNNING' RETURNING execution_id)
     SELECT execution_id, pg_notify($3, execution_id) FROM u`,
    [p.taskRunId, JSON.stringify(p.progress), p.channel],
  );
  return r.rowCount === 1;
}

/** A file a task run may read (runnerGetFile): an output file or file input of its own execution, else nothing. */
export async function runnerFile(
  db: Queryable,
  p: { taskRunId: string; artifactId: string },
): Promise<{ id: string; name: string; object_key: string; size: string; sha256: string } | undefined> {
  const r = await db.query<{ id: string; name: string; object_key: string; size: string; sha256: string }>(
    `SELECT a.id, a.name, a.object_key, a.size, a.sha256 FROM artifacts a JOIN task_runs t ON t.execution_id = a.execution_id
     WHERE t.id = $1 AND a.id = $2 AND a.kind IN ('output', 'input')`,
    [p.taskRunId, p.artifactId],
  );
  return r.rows[0];
}

/** The output files of task runs `taskRunIds` (for the templates that read `tasks.<id>.files`). */
export async function outputFilesOf(db: Queryable, p: { taskRunIds: string[] }): Promise<{ id: string; task_run_id: string; name: string; size: string; sha256: string }[]> {
  if (!p.taskRunIds.length) return [];
  const r = await db.query<{ id: string; task_run_id: string; name: string; size: string; sha256: string }>(
    `SELECT id, task_run_id, name, size, sha256 FROM artifacts WHERE task_run_id = ANY($1) AND kind = 'output'`,
    [p.taskRunIds],
  );
  return r.rows;
}
