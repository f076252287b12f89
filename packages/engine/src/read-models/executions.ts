// Read model of executions for the other domains: the namespace of a record
// (role checks), the secrets an execution used (masking), what the alert
// scanner and its messages read, and the evidence of an AI triage. Plain
// reads, one function per statement; the engine's own reads are in ../sql/.
import type pg from 'pg';
import { prismaOf, type Queryable } from '@svc/db';

/** The namespace of an execution, or undefined when there is none with this id. */
export async function executionNamespace(db: Queryable, id: string): Promise<string | undefined> {
  const r = await db.query<{ namespace: string }>(`SELECT namespace FROM executions WHERE id = $1`, [id]);
  return r.rows[0]?.namespace;
}

/** An execution's namespace and the keys of the secrets it used (what masking resolves), or undefined. */
export async function executionSecretKeys(db: Queryable, id: string): Promise<{ namespace: string; keys: string[] } | undefined> {
  const r = await db.query<{ namespace: string; secret_keys_used: string[] | null }>(`SELECT namespace, secret_keys_used FROM executions WHERE id = $1`, [id]);
  const e = r.rows[0];
  return e && { namespace: e.namespace, keys: e.secret_keys_used ?? [] };
}

// ---- alerts -------------------------------------------------------------------

export interface EndedExecution {
  id: string;
  namespace: string;
  flow_id: string | null;
  state: string;
  ended_at: Date;
}

/** Executions that ended after the cursor and up to `bound`, in (ended_at, id) order. */
export async function endedAfter(db: Queryable, after: { ended_at: Date; execution_id: string }, bound: Date, limit: number): Promise<EndedExecution[]> {
  const r = await db.query<EndedExecution>(
    `SELECT id, namespace, flow_id, state, ended_at FROM executions
     WHERE ended_at IS NOT NULL AND (ended_at, id) > ($1::timestamptz, $2::text) AND ended_at <= $3
     ORDER BY ended_at, id LIMIT $4`,
    [after.ended_at, after.execution_id, bound, limit],
  );
  return r.rows;
}

/** The state of the flow's execution that ended last before this one (SUCCESS, FAILED or TIMED_OUT), if any. */
export async function previousEndState(db: Queryable, e: EndedExecution): Promise<string | undefined> {
  const r = await db.query<{ state: string }>(
    `SELECT state FROM executions
     WHERE namespace = $1 AND flow_id = $2 AND ended_at IS NOT NULL AND (ended_at, id) < ($3::timestamptz, $4::text)
       AND state IN ('SUCCESS', 'FAILED', 'TIMED_OUT')
     ORDER BY ended_at DESC, id DESC LIMIT 1`,
    [e.namespace, e.flow_id, e.ended_at, e.id],
  );
  return r.rows[0]?.state;
}

/** A namespace with its children, or one flow of it (`flowId`). */
export interface ExecutionScope {
  namespace: string;
  flowId: string | null;
}

/** SQL: the executions (`e.` with alias `e`) of the scope $1 (namespace) and $2 (flow id or null). */
const scopeSql = (e = '') =>
  `(${e}namespace = $1 OR ${e}namespace LIKE replace(replace($1, '_', '\\_'), '%', '\\%') || '.%') AND ($2::text IS NULL OR (${e}namespace = $1 AND ${e}flow_id = $2))`;
const SCOPE = scopeSql();

/** Executions of the scope still RUNNING `seconds` after they started, oldest first. */
export async function runningLongerThan(
  db: Queryable,
  scope: ExecutionScope,
  seconds: number,
  limit: number,
): Promise<{ id: string; namespace: string; flow_id: string | null }[]> {
  const r = await db.query<{ id: string; namespace: string; flow_id: string | null }>(
    `SELECT id, namespace, flow_id FROM executions
     WHERE state = 'RUNNING' AND started_at < now() - $3 * interval '1 second' AND ${SCOPE}
     ORDER BY started_at LIMIT $4`,
    [scope.namespace, scope.flowId, seconds, limit],
  );
  return r.rows;
}

/** A task run that reached its approval gate (an extension), as the alert scanner reads it. */
export interface ApprovalRequest {
  task_run_id: string;
  execution_id: string;
  namespace: string;
  flow_id: string | null;
}

/**
 * Task runs of the scope whose approval gate was reached at or after `since`,
 * decided since or not (a wait shorter than the scanner's period still
 * raises its alert), oldest first. `requested_at` is an ISO text in UTC,
 * which sorts as time does (the partial index of migration approvals_and_pause).
 */
export async function approvalRequests(db: Queryable, scope: ExecutionScope, since: Date, limit: number): Promise<ApprovalRequest[]> {
  const r = await db.query<ApprovalRequest>(
    `SELECT t.id AS task_run_id, e.id AS execution_id, e.namespace, e.flow_id FROM task_runs t JOIN executions e ON e.id = t.execution_id
     WHERE t.approval IS NOT NULL AND t.approval->>'requested_at' >= $3 AND ${scopeSql('e.')}
     ORDER BY t.approval->>'requested_at' LIMIT $4`,
    [scope.namespace, scope.flowId, since.toISOString(), limit],
  );
  return r.rows;
}

/** A task run's approval gate as an alert message shows it, or undefined. */
export async function taskRunApproval(db: Queryable, taskRunId: string): Promise<{ task_key: string; state: string; approval: Record<string, unknown> | null } | undefined> {
  const r = await db.query<{ task_key: string; state: string; approval: Record<string, unknown> | null }>(`SELECT task_key, state, approval FROM task_runs WHERE id = $1`, [
    taskRunId,
  ]);
  return r.rows[0];
}

/** An execution as an alert message shows it. */
export interface ExecutionSummary {
  id: string;
  namespace: string;
  flow_id: string | null;
  state: string;
  error: string;
  started_at: Date | null;
  ended_at: Date | null;
  secret_keys_used: string[];
}

export async function executionSummary(db: Queryable, id: string): Promise<ExecutionSummary | undefined> {
  const r = await db.query<ExecutionSummary>(`SELECT id, namespace, flow_id, state, error, started_at, ended_at, secret_keys_used FROM executions WHERE id = $1`, [id]);
  return r.rows[0];
}

/** The task run an alert is about: a RUNNING one last, else the one that ended last FAILED or TIMED_OUT. */
export async function taskRunOfInterest(db: Queryable, executionId: string): Promise<{ id: string; task_key: string; state: string; error: string } | undefined> {
  const r = await db.query<{ id: string; task_key: string; state: string; error: string }>(
    `SELECT id, task_key, state, error FROM task_runs WHERE execution_id = $1 AND state IN ('FAILED', 'TIMED_OUT', 'RUNNING')
     ORDER BY (state = 'RUNNING'), ended_at DESC NULLS LAST, created_at DESC LIMIT 1`,
    [executionId],
  );
  return r.rows[0];
}

/** The last `limit` log lines of a task run, oldest first. */
export async function logTail(db: Queryable, taskRunId: string, limit: number): Promise<{ n: number; stream: string; text: string }[]> {
  const r = await db.query<{ n: string; stream: string; text: string }>(`SELECT n, stream, text FROM log_lines WHERE task_run_id = $1 ORDER BY n DESC LIMIT $2`, [
    taskRunId,
    limit,
  ]);
  return r.rows.reverse().map((l) => ({ n: Number(l.n), stream: l.stream, text: l.text }));
}

// ---- AI triage ------------------------------------------------------------------

const TRIAGE_EXECUTION = {
  id: true,
  state: true,
  reason: true,
  error: true,
  namespace: true,
  flowId: true,
  definition: true,
  inputs: true,
  createdAt: true,
  snapshotVersion: true,
  secretKeysUsed: true,
} as const;

/** An execution as a triage reads it (`definition` and `inputs` as stored JSON). */
export interface TriageExecution {
  id: string;
  state: string;
  reason: string;
  error: string;
  namespace: string;
  flowId: string | null;
  definition: unknown;
  inputs: unknown;
  createdAt: Date;
  snapshotVersion: number | null;
  secretKeysUsed: string[];
}

/** A FAILED or TIMED_OUT task run as a triage reads it. */
export interface TriageTaskRun {
  id: string;
  taskKey: string;
  attempt: number;
  state: string;
  reason: string;
  error: string;
  exitCode: number | null;
}

/** An execution as a triage reads it. */
export async function triageExecution(pool: pg.Pool, id: string): Promise<TriageExecution | null> {
  return prismaOf(pool).execution.findUnique({ where: { id }, select: TRIAGE_EXECUTION });
}

/** The flow's last SUCCESS execution created before `before`, as a triage reads it. */
export async function lastSuccessBefore(pool: pg.Pool, o: { namespace: string; flowId: string; before: Date }): Promise<TriageExecution | null> {
  return prismaOf(pool).execution.findFirst({
    where: { namespace: o.namespace, flowId: o.flowId, state: 'SUCCESS', createdAt: { lt: o.before } },
    orderBy: { createdAt: 'desc' },
    select: TRIAGE_EXECUTION,
  });
}

/** An execution's FAILED and TIMED_OUT task runs, in creation order. */
export async function failedTaskRuns(pool: pg.Pool, executionId: string): Promise<TriageTaskRun[]> {
  return prismaOf(pool).taskRun.findMany({
    where: { executionId, state: { in: ['FAILED', 'TIMED_OUT'] } },
    orderBy: [{ createdAt: 'asc' }, { taskKey: 'asc' }, { attempt: 'asc' }],
    select: { id: true, taskKey: true, attempt: true, state: true, reason: true, error: true, exitCode: true },
  });
}
