// Ending a task run is one statement: the run's row (only from the states
// the transition table lets a run end from, so a late or repeated report
// changes nothing), its history row, its metrics, the NOTIFY hint and a
// planning request; masked completions clear the secrets recorded on the run.
import type { Queryable } from '@svc/db';
import { CHANNELS } from '../channels.js';
import type { Masking, TaskCompletion } from '../types.js';
import { ENDS_TASK_RUN } from './guards.js';
import { EXECUTION_COLUMNS } from './fragments.js';

// The end time is the database's clock unless the caller passes one (tests,
// and the engine's own rules that read it once per pass): the start was
// written by the claim with the database's clock, so the duration never mixes
// two hosts' clocks.
const AT = 'COALESCE($7::timestamptz, now())';

const END_TASK_RUN_SQL = `
WITH t AS (
  UPDATE task_runs SET state = $2, reason = $3, error = $4, exit_code = $5, outputs = $6::jsonb, ended_at = ${AT},
    duration_ms = round(extract(epoch FROM (${AT}::timestamptz - started_at)) * 1000)::bigint, updated_at = ${AT},
    spec = CASE WHEN spec ? 'secrets' THEN spec - 'secrets' ELSE spec END
  WHERE id = $1 AND state IN ${ENDS_TASK_RUN} AND ($11::boolean OR NOT COALESCE(spec ? 'secrets', false))
  RETURNING id, execution_id, task_key, state, executor_type, duration_ms),
h AS (
  INSERT INTO execution_history (execution_id, task_run_id, from_state, to_state, reason, actor, at)
  SELECT execution_id, id, 'RUNNING', $2, $3, '', ${AT} FROM t),
p AS (
  INSERT INTO plan_requests (task_run_id, execution_id, created_at) SELECT id, execution_id, ${AT} FROM t),
m AS (
  INSERT INTO task_metrics (execution_id, task_run_id, task_key, name, value, tags, at)
  SELECT t.execution_id, t.id, t.task_key, x.n, x.v, x.g::jsonb, ${AT} FROM t, unnest($8::text[], $9::float8[], $10::text[]) AS x(n, v, g))
SELECT execution_id, state, executor_type, duration_ms, pg_notify('${CHANNELS.changed}', execution_id)::text AS n FROM t`;

/** The task run columns the end returns. */
const RUN_COLS = ['id', 'execution_id', 'task_key', 'state', 'reason', 'executor_type', 'duration_ms'].map((c) => `r.${c}`).join(', ');

/**
 * Ending many task runs (the completions that arrived together) and, in the
 * same statement, locking their executions that no planning pass or other
 * batch holds, with their rows: FOR NO KEY UPDATE, exclusive against passes
 * and batches but not against the key-share locks that the history rows of
 * another batch's runs of the same execution take, so two batches never wait
 * on each other; SKIP LOCKED, so never a wait, and never a deadlock with a
 * pass that holds an execution and waits for one of these runs; and only
 * executions of at most INLINE_PLAN_MAX_TASKS tasks. A planning request is
 * written only for a run whose execution was not locked: a pass plans it;
 * the caller plans the locked ones in this transaction, reading their task
 * runs by a statement of its own (this one's snapshot predates the locks).
 *
 * Parameters, one array element per completion: $1 ids, $2 states, $3
 * reasons, $4 errors, $5 exit codes, $6 outputs (JSON text or null), $7
 * whether the completion is masked (a run that recorded secrets is ended only
 * so); and per metric: $8 its run's id, $9 name, $10 value, $11 tags (JSON).
 * The times are the database's clock.
 *
 * Rows: `kind = 'x'` per ended run (`id` the run, `execution_id`, whether
 * its execution was locked); `kind = 'e'` per locked execution (its row as
 * jsonb in `ex`, with its snapshot_id: a run the plan starts at once carries it).
 */
/**
 * Executions of more tasks than this are left to planning passes: planning
 * reads every task run of an execution, so planning a wide fan-out at each
 * completion would read it once per completion, where passes coalesce the
 * completions that arrive together.
 */
export const INLINE_PLAN_MAX_TASKS = 64;

const END_AND_READ_SQL = `
WITH d AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::integer[], $6::text[], $7::boolean[]) AS d(id, state, reason, error, exit_code, outputs, masked)),
t AS (
  UPDATE task_runs r SET state = d.state, reason = d.reason, error = d.error, exit_code = d.exit_code, outputs = d.outputs::jsonb, ended_at = now(),
    duration_ms = round(extract(epoch FROM (now() - r.started_at)) * 1000)::bigint, updated_at = now(),
    spec = CASE WHEN r.spec ? 'secrets' THEN r.spec - 'secrets' ELSE r.spec END
  FROM d WHERE r.id = d.id AND r.state IN ${ENDS_TASK_RUN} AND (d.masked OR NOT COALESCE(r.spec ? 'secrets', false))
  RETURNING ${RUN_COLS}),
l AS (
  SELECT ${EXECUTION_COLUMNS}, snapshot_id FROM executions WHERE id IN (SELECT execution_id FROM t)
    AND jsonb_array_length(definition->'tasks') <= ${INLINE_PLAN_MAX_TASKS} ORDER BY id FOR NO KEY UPDATE SKIP LOCKED),
h AS (
  INSERT INTO execution_history (execution_id, task_run_id, from_state, to_state, reason, actor, at)
  SELECT execution_id, id, 'RUNNING', state, reason, '', now() FROM t),
p AS (
  INSERT INTO plan_requests (task_run_id, execution_id, created_at) SELECT id, execution_id, now() FROM t WHERE execution_id NOT IN (SELECT id FROM l)),
m AS (
  INSERT INTO task_metrics (execution_id, task_run_id, task_key, name, value, tags, at)
  SELECT t.execution_id, t.id, t.task_key, x.n, x.v, x.g::jsonb, now() FROM unnest($8::text[], $9::text[], $10::float8[], $11::text[]) AS x(run, n, v, g) JOIN t ON t.id = x.run)
SELECT 'x' AS kind, t.id, t.execution_id, t.execution_id IN (SELECT id FROM l) AS locked, pg_notify('${CHANNELS.changed}', t.execution_id)::text AS n,
  NULL::jsonb AS ex, t.state, t.executor_type, t.duration_ms FROM t
UNION ALL
SELECT 'e', l.id, NULL, NULL, NULL, to_jsonb(l), NULL, NULL, NULL FROM l`;

/** Wakes the dispatchers of the executor types $1 (runs queued that no claim of the batch took). */
const NOTIFY_QUEUED_SQL = `SELECT pg_notify('${CHANNELS.queued}', t) FROM unnest($1::text[]) AS t`;

/**
 * Ends RUNNING task run `taskRunId` with `done` at `at` (else the database's
 * clock); `masked`: the completion was masked (a run that recorded secrets
 * ends only so). Its execution's id, state, executor type and duration; null
 * when the run did not end.
 */
export async function endTaskRun(db: Queryable, p: { taskRunId: string; done: TaskCompletion; at: Date | null; masked: boolean }): Promise<EndedTaskRunRow | null> {
  const { done } = p;
  const metrics = done.metrics ?? [];
  const r = await db.query<EndedTaskRunRow>({
    name: 'svc-end-task-run',
    text: END_TASK_RUN_SQL,
    values: [
      p.taskRunId,
      done.state,
      done.reason,
      done.error.slice(0, 4000),
      done.exitCode,
      done.outputs ? JSON.stringify(done.outputs) : null,
      p.at,
      metrics.map((m) => m.name),
      metrics.map((m) => m.value),
      metrics.map((m) => JSON.stringify(m.tags ?? {})),
      p.masked,
    ],
  });
  return r.rows[0] ?? null;
}

/** A task run an end statement ended: its execution, the state it ended in, its executor type and how long it ran. */
export interface EndedTaskRunRow {
  execution_id: string;
  state: string;
  executor_type: string;
  /** bigint as text; null for a run that never started. */
  duration_ms: string | null;
}

/** One completion of END_AND_READ_SQL. */
export interface EndItem {
  taskRunId: string;
  done: TaskCompletion;
  /** A completion from a task, to be masked: a run that recorded secrets is left RUNNING for the caller to mask it first. */
  masking?: Masking;
}

/** A row of END_AND_READ_SQL: an ended run (`x`) or a locked execution (`e`, its row in `ex`). */
export interface EndAndReadRow {
  kind: 'x' | 'e';
  id: string;
  execution_id: string;
  locked: boolean | null;
  ex: Record<string, unknown> | null;
  /** Of an ended run (`x`): the state it ended in, its executor type and duration (bigint as text). */
  state: string | null;
  executor_type: string | null;
  duration_ms: string | null;
}

/** END_AND_READ_SQL for `items` as a query to send in a pipeline (systems/completion.ts); rows: EndAndReadRow. */
export function endAndReadQuery(p: { items: readonly EndItem[] }): { name: string; text: string; values: unknown[] } {
  const { items } = p;
  const metrics = items.flatMap((it) => (it.done.metrics ?? []).map((m) => ({ run: it.taskRunId, ...m })));
  return {
    name: 'svc-end-and-read',
    text: END_AND_READ_SQL,
    values: [
      items.map((it) => it.taskRunId),
      items.map((it) => it.done.state),
      items.map((it) => it.done.reason),
      items.map((it) => it.done.error.slice(0, 4000)),
      items.map((it) => it.done.exitCode),
      items.map((it) => (it.done.outputs ? JSON.stringify(it.done.outputs) : null)),
      items.map((it) => !it.masking),
      metrics.map((m) => m.run),
      metrics.map((m) => m.name),
      metrics.map((m) => m.value),
      metrics.map((m) => JSON.stringify(m.tags ?? {})),
    ],
  };
}

/** Wakes the dispatchers of `executorTypes` (runs queued that no claim of the batch took). */
export async function notifyQueued(db: Queryable, p: { executorTypes: string[] }): Promise<void> {
  await db.query(NOTIFY_QUEUED_SQL, [p.executorTypes]);
}
