// Approval gates and pause (extensions): the statements of a decision on a
// waiting task run, of the gate timeouts the maintenance holder applies, and
// of pausing and resuming an execution. Each runs in the transaction that
// holds the execution's lock (systems/approvals.ts), which plans it after.
import type { Queryable } from '@svc/db';
import { taskRunFrom } from './guards.js';

/** A gated task's latest run (a fan-out's parent, not its items), with its approval and its execution's starter. */
export interface GatedRun {
  id: string;
  execution_id: string;
  state: string;
  reason: string;
  approval: Record<string, unknown> | null;
  /** Who started the execution (its created_by). */
  started_by: string;
}

/** A GatedRun: the task run `t` with its execution's starter. */
const GATED_RUN_FROM = `SELECT t.id, t.execution_id, t.state, t.reason, t.approval, e.created_by AS started_by FROM task_runs t JOIN executions e ON e.id = t.execution_id`;

const GATED_RUN_SQL = `${GATED_RUN_FROM} WHERE t.execution_id = $1 AND t.task_key = $2 AND t.item_index IS NULL ORDER BY t.attempt DESC LIMIT 1`;

const WAITING_RUN_SQL = `${GATED_RUN_FROM} WHERE t.id = $1`;

/** Task run `id` as a gate's decision reads it. */
export async function waitingRun(db: Queryable, p: { id: string }): Promise<GatedRun | undefined> {
  return (await db.query<GatedRun>(WAITING_RUN_SQL, [p.id])).rows[0];
}

/** The latest run of task `taskKey` of execution `executionId`; undefined when the execution has no such task. */
export async function gatedRun(db: Queryable, p: { executionId: string; taskKey: string }): Promise<GatedRun | undefined> {
  return (await db.query<GatedRun>(GATED_RUN_SQL, [p.executionId, p.taskKey])).rows[0];
}

/** A waiting run approved: its reason emptied (the planner queues it), the decision merged into its approval. */
const APPROVE_SQL = `UPDATE task_runs SET reason = '', approval = approval || $3::jsonb, approval_deadline = NULL, updated_at = $2
  WHERE id = $1 AND state IN ${taskRunFrom('approve')} AND reason = 'awaiting_approval'`;

/** A waiting run ended (rejected, or its gate timed out): its state, reason and error, the decision merged into its approval. */
const END_WAITING_SQL = `UPDATE task_runs SET state = $3, reason = $4, error = $5, ended_at = $2, updated_at = $2, approval = approval || $6::jsonb, approval_deadline = NULL
  WHERE id = $1 AND state IN ${taskRunFrom('reject', 'approval_timeout', 'approval_timeout_skip')} AND reason = 'awaiting_approval'`;

/** Whether run `id`, still waiting, is now approved with `decision` merged into its approval. */
export async function approveWaiting(db: Queryable, p: { id: string; at: Date; decision: Record<string, unknown> }): Promise<boolean> {
  return ((await db.query(APPROVE_SQL, [p.id, p.at, JSON.stringify(p.decision)])).rowCount ?? 0) > 0;
}

/** Whether run `id`, still waiting, now ended `state` `reason` with `decision` merged into its approval. */
export async function endWaiting(
  db: Queryable,
  p: { id: string; at: Date; state: 'FAILED' | 'SKIPPED'; reason: string; error: string; decision: Record<string, unknown> },
): Promise<boolean> {
  return ((await db.query(END_WAITING_SQL, [p.id, p.at, p.state, p.reason, p.error, JSON.stringify(p.decision)])).rowCount ?? 0) > 0;
}

/** Waiting runs whose gate's deadline passed at $1 (a test's clock, else the database's), oldest first. */
const DUE_APPROVALS_SQL = `SELECT id, execution_id FROM task_runs
  WHERE reason = 'awaiting_approval' AND approval_deadline <= COALESCE($1::timestamptz, now()) ORDER BY approval_deadline LIMIT $2`;

export async function dueApprovals(db: Queryable, p: { now: Date | null; limit: number }): Promise<{ id: string; execution_id: string }[]> {
  return (await db.query<{ id: string; execution_id: string }>(DUE_APPROVALS_SQL, [p.now, p.limit])).rows;
}

/** Execution $1 paused at $2 by $3 (reason `paused`), and its QUEUED runs held (reason `paused`: no claim takes them). */
const PAUSE_SQL = `WITH e AS (
  UPDATE executions SET paused_at = $2, paused_by = $3, reason = 'paused', updated_at = $2, version = version + 1 WHERE id = $1 AND paused_at IS NULL RETURNING id)
UPDATE task_runs SET reason = 'paused', updated_at = $2 WHERE execution_id = (SELECT id FROM e) AND state IN ${taskRunFrom('hold')}`;

/** Execution $1 resumed at $2, its held runs released; the executor types of those runs, to wake their dispatchers. */
const RESUME_SQL = `WITH e AS (
  UPDATE executions SET paused_at = NULL, paused_by = NULL, reason = '', updated_at = $2, version = version + 1 WHERE id = $1 AND paused_at IS NOT NULL RETURNING id)
UPDATE task_runs SET reason = '', updated_at = $2 WHERE execution_id = (SELECT id FROM e) AND state IN ${taskRunFrom('release')} AND reason = 'paused'
RETURNING executor_type`;

export async function pauseExecution(db: Queryable, p: { id: string; at: Date; actor: string }): Promise<void> {
  await db.query(PAUSE_SQL, [p.id, p.at, p.actor]);
}

export async function resumeExecution(db: Queryable, p: { id: string; at: Date }): Promise<string[]> {
  return [...new Set((await db.query<{ executor_type: string }>(RESUME_SQL, [p.id, p.at])).rows.map((r) => r.executor_type))];
}
