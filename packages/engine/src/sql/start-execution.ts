// Starting an execution: the statements that insert it (started, or QUEUED
// or SKIPPED by a concurrency limit) or move a QUEUED one to RUNNING, with
// its task runs.
import type { Queryable } from '@svc/db';
import { CHANNELS } from '../channels.js';
import { EXECUTION_API_COLUMNS, TASK_RUN_API_COLUMNS } from './load-executions.js';
import { onlineSince, servedSql } from './fragments.js';
import { DEQUEUES_EXECUTION } from './guards.js';

// Starting an execution is one statement: the execution row (inserted, or a
// QUEUED one moved to RUNNING), its task runs already in the states the
// planner gives them at start (QUEUED, PENDING, SKIPPED, or SUCCESS when a
// restart reuses them), the history rows of every change and the NOTIFY hints.
const EXECUTION_INSERT_COLUMNS = [
  'id',
  'state',
  'namespace',
  'flow_id',
  'flow_revision_id',
  'git_sha',
  'snapshot_id',
  'snapshot_version',
  'definition',
  'inputs',
  'labels',
  'parent_execution_id',
  'parent_task_run_id',
  'restart_of_id',
  'chain_depth',
  'created_by',
  'created_at',
  'trigger_type',
  'trigger_id',
  'trigger_payload',
  'concurrency_key',
  'updated_at',
  'reason',
  'started_at',
  'timeout_at',
  'ended_at',
  'duration_ms',
  'traceparent',
] as const;
const EXECUTION_CASTS: Partial<Record<(typeof EXECUTION_INSERT_COLUMNS)[number], string>> = {
  definition: 'jsonb',
  inputs: 'jsonb',
  labels: 'jsonb',
  trigger_payload: 'jsonb',
  snapshot_version: 'int',
  chain_depth: 'int',
  created_at: 'timestamptz',
  updated_at: 'timestamptz',
  started_at: 'timestamptz',
  timeout_at: 'timestamptz',
  ended_at: 'timestamptz',
  duration_ms: 'bigint',
};
// $1 id, $2 now, $3 online-since, $4 the task runs (a JSON array), then the execution's other columns from $5.
// The task runs are one JSON parameter rather than one array per column: unnest's row estimate
// follows the array in a custom plan and guesses 100 rows in a generic one, so PostgreSQL planned
// the statement again at every call (0.3 ms); the JSON gives both the same estimate, and the
// prepared statement keeps its generic plan.
const RETURN_EXECUTION = `RETURNING ${EXECUTION_API_COLUMNS.join(', ')}`;
const param = (c: (typeof EXECUTION_INSERT_COLUMNS)[number]) => `$${EXECUTION_INSERT_COLUMNS.indexOf(c) + 4}`;
/** The parameter after the execution's columns: whether to check that the flow revision and namespace version the caller read from its cache are still current. */
const START_CHECKED_PARAM = EXECUTION_INSERT_COLUMNS.length + 4;
// Checked: the flow is still enabled, not deleted, at this revision, and its namespace at this
// version (so the snapshot is the head's); otherwise nothing is inserted and the caller reads again.
const INSERT_EXECUTION = `INSERT INTO executions (${EXECUTION_INSERT_COLUMNS.join(', ')})
  SELECT ${EXECUTION_INSERT_COLUMNS.map((c, i) => (i === 0 ? '$1' : `$${i + 4}${EXECUTION_CASTS[c] ? `::${EXECUTION_CASTS[c]}` : ''}`)).join(', ')}
  WHERE NOT $${START_CHECKED_PARAM}::boolean OR EXISTS (SELECT 1 FROM flows f JOIN namespaces n ON n.name = f.namespace
    WHERE f.namespace = ${param('namespace')} AND f.flow_id = ${param('flow_id')} AND f.current_revision_id = ${param('flow_revision_id')}
      AND f.enabled AND f.deleted_at IS NULL AND n.head_version = ${param('snapshot_version')}::int)
  ${RETURN_EXECUTION}, NULL::text AS from_state`;
const START_QUEUED_EXECUTION = `UPDATE executions SET state = 'RUNNING', reason = '', started_at = $2, timeout_at = $5::timestamptz, updated_at = $2, version = version + 1
  WHERE id = $1 AND state IN ${DEQUEUES_EXECUTION} ${RETURN_EXECUTION}, 'QUEUED'::text AS from_state`;
/** The parameter after START_CHECKED_PARAM: the audit events of the start (a JSON array of StartAudit rows, usually empty or one). */
const START_AUDIT_PARAM = START_CHECKED_PARAM + 1;
// Who started it, written by the start statement itself so the trigger path has no second round trip
// (bench/RESULTS.md, trigger-audit); none when the array is empty or the checked insert wrote nothing.
const AUDIT_CTE = `,
a AS (
  INSERT INTO audit_events (id, at, actor_id, actor_type, action, target_type, target_id, ip, request_id, details)
  SELECT j.id, $2, j.actor_id, j.actor_type, j.action, 'execution', x.id, coalesce(j.ip, ''), coalesce(j.request_id, ''), coalesce(j.details, '{}')
  FROM x, jsonb_to_recordset($${START_AUDIT_PARAM}::jsonb) AS j(id text, actor_id text, actor_type text, action text, ip text, request_id text, details jsonb))`;
const startSql = (executionStatement: string, audit = '') => `
WITH x AS (${executionStatement}),
r AS (
  INSERT INTO task_runs (id, execution_id, task_key, task_type, executor_type, pool, state, reason, attempt, reused_from_id, outputs, exit_code, spec,
    item_index, item, fan_out, created_at, queued_at, started_at, ended_at, duration_ms, updated_at)
  SELECT y.id, x.id, y.task_key, y.task_type, y.executor_type, y.pool, y.state,
    CASE WHEN y.state = 'QUEUED' AND NOT ${servedSql('y.pool', 'y.executor_type', '$3')} THEN 'no_instance_for_pool' ELSE y.reason END,
    1, y.reused_from_id, y.outputs, y.exit_code, y.spec, y.item_index, y.item, y.fan_out,
    $2, CASE WHEN y.state IN ('QUEUED', 'SUCCESS', 'RUNNING') THEN $2::timestamptz END, CASE WHEN y.state IN ('SUCCESS', 'RUNNING') THEN $2::timestamptz END,
    CASE WHEN y.state IN ('SUCCESS', 'SKIPPED') THEN $2::timestamptz END, CASE WHEN y.state = 'SUCCESS' THEN 0 END, $2
  FROM x, ROWS FROM (jsonb_to_recordset($4::jsonb) AS (id text, task_key text, task_type text, executor_type text, pool text, state text, reason text,
      reused_from_id text, outputs jsonb, exit_code int, spec jsonb, item_index int, item jsonb, fan_out int)) WITH ORDINALITY
    AS y(id, task_key, task_type, executor_type, pool, state, reason, reused_from_id, outputs, exit_code, spec, item_index, item, fan_out, ord)
  ORDER BY y.ord
  RETURNING execution_id, ${TASK_RUN_API_COLUMNS.join(', ')}),
f AS (
  -- A reused task run keeps the output files of the run it reuses (docs/using/files.md): rows of its own, the same objects.
  INSERT INTO artifacts (id, execution_id, task_run_id, name, object_key, size, content_type, sha256, kind, created_at)
  SELECT md5(r.id || ':' || a.id), r.execution_id, r.id, a.name, a.object_key, a.size, a.content_type, a.sha256, a.kind, $2
  FROM r JOIN artifacts a ON a.task_run_id = r.reused_from_id WHERE r.reused_from_id IS NOT NULL AND a.kind = 'output'),
h AS (
  INSERT INTO execution_history (execution_id, task_run_id, from_state, to_state, reason, actor, at)
  SELECT id, NULL, from_state, 'RUNNING', '', '', $2 FROM x
  UNION ALL SELECT execution_id, id, NULL, CASE WHEN state = 'SUCCESS' THEN 'SUCCESS' ELSE 'PENDING' END, CASE WHEN state = 'SUCCESS' THEN 'reused' ELSE '' END, '', $2 FROM r
  UNION ALL SELECT execution_id, id, 'PENDING', state, reason, '', $2 FROM r WHERE state IN ('QUEUED', 'SKIPPED', 'RUNNING')),
q AS (SELECT DISTINCT executor_type FROM r WHERE state = 'QUEUED')${audit}
SELECT 'started' AS kind, row_to_json(x)::text AS v FROM x
UNION ALL SELECT 'task_run', row_to_json(r)::text FROM r
UNION ALL SELECT 'notify', pg_notify('${CHANNELS.queued}', q.executor_type)::text FROM q
UNION ALL SELECT 'notify', pg_notify('${CHANNELS.changed}', x.id)::text FROM x`;
const START_NEW_SQL = startSql(INSERT_EXECUTION, AUDIT_CTE);
const START_QUEUED_SQL = startSql(START_QUEUED_EXECUTION);

/** An execution that does not start (QUEUED or SKIPPED by its concurrency limit): the row alone. */
const INSERT_UNSTARTED_EXECUTION_SQL = `INSERT INTO executions (${EXECUTION_INSERT_COLUMNS.join(', ')}) VALUES (${EXECUTION_INSERT_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`;

/** The audit events of a start that inserted the execution alone (QUEUED or SKIPPED): $1 the execution id, $2 the time, $3 the JSON array of StartAudit rows. */
const INSERT_START_AUDIT_SQL = `INSERT INTO audit_events (id, at, actor_id, actor_type, action, target_type, target_id, ip, request_id, details)
  SELECT j.id, $2, j.actor_id, j.actor_type, j.action, 'execution', $1, coalesce(j.ip, ''), coalesce(j.request_id, ''), coalesce(j.details, '{}')
  FROM jsonb_to_recordset($3::jsonb) AS j(id text, actor_id text, actor_type text, action text, ip text, request_id text, details jsonb)`;

/** An execution's columns as a start inserts them (EXECUTION_INSERT_COLUMNS, each by name). */
export type ExecutionInsert = Record<(typeof EXECUTION_INSERT_COLUMNS)[number], unknown>;

/** A row of a start statement: the execution (`started`, JSON of the API columns), a task run (`task_run`), or a NOTIFY. */
export interface StartedRow {
  kind: 'started' | 'task_run' | 'notify';
  v: string;
}

/**
 * Inserts a RUNNING execution (`execution`, its id in `execution.id`) with its
 * task runs (`taskRuns`: a JSON array of planning/start-rows.ts StartRow), their
 * history and NOTIFYs, and the audit events (`audit`: a JSON array, usually
 * empty or one), at `now`: one statement. `checked`: only while the flow is
 * enabled at the execution's revision and its namespace at its version (else
 * no row is `started`).
 */
export async function startNew(db: Queryable, p: { now: Date; taskRuns: string; execution: ExecutionInsert; checked: boolean; audit: string }): Promise<StartedRow[]> {
  const r = await db.query<StartedRow>({
    name: 'svc-start-new',
    text: START_NEW_SQL,
    values: [p.execution.id, p.now, onlineSince(p.now), p.taskRuns, ...EXECUTION_INSERT_COLUMNS.slice(1).map((c) => p.execution[c]), p.checked, p.audit],
  });
  return r.rows;
}

/** Moves QUEUED execution `id` to RUNNING at `now` (flow timeout at `timeoutAt`) with its task runs (a JSON array of StartRow): one statement. */
export async function startQueued(db: Queryable, p: { id: string; now: Date; taskRuns: string; timeoutAt: Date | null }): Promise<void> {
  await db.query(START_QUEUED_SQL, [p.id, p.now, onlineSince(p.now), p.taskRuns, p.timeoutAt]);
}

/** An execution that does not start (QUEUED or SKIPPED by its concurrency limit): the row alone. */
export async function insertUnstarted(db: Queryable, p: { execution: ExecutionInsert }): Promise<void> {
  await db.query(
    INSERT_UNSTARTED_EXECUTION_SQL,
    EXECUTION_INSERT_COLUMNS.map((c) => p.execution[c]),
  );
}

/** The audit events (`audit`: a JSON array of StartAudit rows) of a start that inserted execution `executionId` alone, at `at`. */
export async function insertStartAudit(db: Queryable, p: { executionId: string; at: Date; audit: string }): Promise<void> {
  await db.query(INSERT_START_AUDIT_SQL, [p.executionId, p.at, p.audit]);
}

// A batch of executions of one flow (triggerFlowBatch): one statement for all of them. The columns
// every execution of the batch shares are parameters; each execution's own (id, state, reason,
// inputs, labels) are one JSON array, and the task runs of those that start another, each with
// its execution's id. `created_at` is the batch's time plus the item's position in microseconds,
// so the batch keeps its order wherever executions are ordered by creation (a concurrency queue,
// the lists). $1 now, $2 online-since, $3 executions, $4 task runs, $5 audit events, then shared ($17 the traceparent).
const START_BATCH_SQL = `
WITH x AS (
  INSERT INTO executions (id, state, namespace, flow_id, flow_revision_id, git_sha, snapshot_id, snapshot_version, definition, inputs, labels,
    chain_depth, created_by, created_at, trigger_type, trigger_payload, concurrency_key, updated_at, reason, started_at, timeout_at, ended_at, duration_ms, traceparent)
  SELECT e.id, e.state, $6, $7, $8, $9, $10, $11::int, $12::jsonb, e.inputs, e.labels,
    0, $13, $1::timestamptz + e.ord * interval '1 microsecond', $14, '{}'::jsonb, $15, $1, e.reason,
    CASE WHEN e.state = 'RUNNING' THEN $1::timestamptz END, CASE WHEN e.state = 'RUNNING' THEN $16::timestamptz END,
    CASE WHEN e.state = 'SKIPPED' THEN $1::timestamptz END, CASE WHEN e.state = 'SKIPPED' THEN 0 END, $17
  FROM ROWS FROM (jsonb_to_recordset($3::jsonb) AS (id text, state text, reason text, inputs jsonb, labels jsonb)) WITH ORDINALITY
    AS e(id, state, reason, inputs, labels, ord)
  ORDER BY e.ord
  RETURNING id, state, reason),
r AS (
  INSERT INTO task_runs (id, execution_id, task_key, task_type, executor_type, pool, state, reason, attempt, reused_from_id, outputs, exit_code, spec,
    item_index, item, fan_out, created_at, queued_at, started_at, ended_at, duration_ms, updated_at)
  SELECT y.id, x.id, y.task_key, y.task_type, y.executor_type, y.pool, y.state,
    CASE WHEN y.state = 'QUEUED' AND NOT ${servedSql('y.pool', 'y.executor_type', '$2')} THEN 'no_instance_for_pool' ELSE y.reason END,
    1, y.reused_from_id, y.outputs, y.exit_code, y.spec, y.item_index, y.item, y.fan_out,
    $1, CASE WHEN y.state IN ('QUEUED', 'SUCCESS', 'RUNNING') THEN $1::timestamptz END, CASE WHEN y.state IN ('SUCCESS', 'RUNNING') THEN $1::timestamptz END,
    CASE WHEN y.state IN ('SUCCESS', 'SKIPPED') THEN $1::timestamptz END, CASE WHEN y.state = 'SUCCESS' THEN 0 END, $1
  FROM ROWS FROM (jsonb_to_recordset($4::jsonb) AS (execution_id text, id text, task_key text, task_type text, executor_type text, pool text, state text,
      reason text, reused_from_id text, outputs jsonb, exit_code int, spec jsonb, item_index int, item jsonb, fan_out int)) WITH ORDINALITY
    AS y(execution_id, id, task_key, task_type, executor_type, pool, state, reason, reused_from_id, outputs, exit_code, spec, item_index, item, fan_out, ord)
  JOIN x ON x.id = y.execution_id
  ORDER BY y.ord
  RETURNING execution_id, id, state, reason, executor_type),
h AS (
  INSERT INTO execution_history (execution_id, task_run_id, from_state, to_state, reason, actor, at)
  SELECT id, NULL, NULL, state, reason, '', $1 FROM x
  UNION ALL SELECT execution_id, id, NULL, CASE WHEN state = 'SUCCESS' THEN 'SUCCESS' ELSE 'PENDING' END, CASE WHEN state = 'SUCCESS' THEN 'reused' ELSE '' END, '', $1 FROM r
  UNION ALL SELECT execution_id, id, 'PENDING', state, reason, '', $1 FROM r WHERE state IN ('QUEUED', 'SKIPPED', 'RUNNING')),
a AS (
  INSERT INTO audit_events (id, at, actor_id, actor_type, action, target_type, target_id, ip, request_id, details)
  SELECT j.id, $1, j.actor_id, j.actor_type, j.action, 'execution', x.id, coalesce(j.ip, ''), coalesce(j.request_id, ''), coalesce(j.details, '{}')
  FROM jsonb_to_recordset($5::jsonb) AS j(id text, execution_id text, actor_id text, actor_type text, action text, ip text, request_id text, details jsonb)
  JOIN x ON x.id = j.execution_id),
q AS (SELECT DISTINCT executor_type FROM r WHERE state = 'QUEUED')
SELECT (SELECT count(*) FROM x)::int AS n,
  (SELECT count(pg_notify('${CHANNELS.queued}', q.executor_type)) FROM q)::int AS queued,
  (SELECT count(pg_notify('${CHANNELS.changed}', x.id)) FROM x)::int AS changed`;

/** The columns every execution of a batch shares (its flow's revision and snapshot, who started it...). */
export interface BatchShared {
  namespace: string;
  flow_id: string;
  flow_revision_id: string | null;
  git_sha: string | null;
  snapshot_id: string;
  snapshot_version: number | null;
  definition: string;
  created_by: string;
  trigger_type: string;
  concurrency_key: string | null;
  timeout_at: Date | null;
  /** With tracing on, the W3C traceparent of the span creating the batch (the request's): every execution continues that trace. */
  traceparent: string | null;
}

/**
 * Inserts a batch of executions of one flow (`executions`: a JSON array of
 * {id, state, reason, inputs, labels}; RUNNING ones with their task runs in
 * `taskRuns`, a JSON array of StartRow with `execution_id`), their history,
 * audit events (`audit`, with `execution_id`) and NOTIFYs, at `now`: one
 * statement. Returns how many executions it inserted.
 */
export async function startBatch(db: Queryable, p: { now: Date; executions: string; taskRuns: string; audit: string; shared: BatchShared }): Promise<number> {
  const s = p.shared;
  const r = await db.query<{ n: number }>(START_BATCH_SQL, [
    p.now,
    onlineSince(p.now),
    p.executions,
    p.taskRuns,
    p.audit,
    s.namespace,
    s.flow_id,
    s.flow_revision_id,
    s.git_sha,
    s.snapshot_id,
    s.snapshot_version,
    s.definition,
    s.created_by,
    s.trigger_type,
    s.concurrency_key,
    s.timeout_at,
    s.traceparent,
  ]);
  return r.rows[0].n;
}
