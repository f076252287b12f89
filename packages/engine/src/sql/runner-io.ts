// What runners send besides log lines: the statements behind artifacts,
// heartbeats and runner events, and the task run reads they need.

/** The execution, task key and attempt of task run $1 (the identity its log lines carry). */
export const LOG_LINES_OF_TASK_RUN_SQL = `SELECT execution_id, task_key, attempt FROM task_runs WHERE id = $1`;

/** The execution of task run $1 (an artifact's object key names it). */
export const ARTIFACT_TASK_RUN_SQL = `SELECT execution_id FROM task_runs WHERE id = $1`;

/** An artifact's row, one per (task run, name): a repeated upload updates it and keeps its id. */
export const UPSERT_ARTIFACT_SQL = `INSERT INTO artifacts (id, execution_id, task_run_id, name, object_key, size, content_type, sha256, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now())
     ON CONFLICT (task_run_id, name) DO UPDATE
       SET object_key = EXCLUDED.object_key, size = EXCLUDED.size, content_type = EXCLUDED.content_type, sha256 = EXCLUDED.sha256
     RETURNING id`;

/** A runner heartbeat of task run $1 at $2 (else the database's clock), returning the run's and its execution's states. */
export const HEARTBEAT_SQL = `UPDATE task_runs t SET last_heartbeat_at = COALESCE($2::timestamptz, now()) FROM executions e WHERE t.id = $1 AND e.id = t.execution_id RETURNING t.state, e.state AS ex_state`;

/** The secrets recorded on task run $1 (sealed values), to mask what its task reports. */
export const RUN_SECRETS_SQL = `SELECT spec->'secrets' AS secrets FROM task_runs WHERE id = $1`;

/** A runner event of RUNNING task run $1: its `progress` ($2), a heartbeat, and the NOTIFY ($3) for its execution's streams. */
export const RECORD_PROGRESS_SQL = `WITH u AS (UPDATE task_runs SET progress = $2::jsonb || jsonb_build_object('at', now()), last_heartbeat_at = now()
                WHERE id = $1 AND state = 'RUNNING' RETURNING execution_id)
     SELECT execution_id, pg_notify($3, execution_id) FROM u`;
