// Retention statements (spec, Limits: retention and cleanup). Every statement
// deletes a bounded number of rows, so no single statement holds locks for
// long on tables that users and runners write; callers loop.
import type { Queryable } from '@svc/db';

/** Execution states after which an execution never changes again. */
export const EXECUTION_END_STATES = ['SUCCESS', 'FAILED', 'TIMED_OUT', 'CANCELLED', 'SKIPPED'] as const;

/**
 * Tables holding rows of an execution, emptied child-first in bounded batches
 * before the execution row is deleted (whose ON DELETE CASCADE is then only a
 * backstop for rows written meanwhile). `log_lines` has no foreign key.
 *
 * `flow_trigger_firings` is left out on purpose: its rows (a few per
 * execution, one per downstream trigger) are the exactly-once markers of the
 * flow triggers of their upstream execution, and go by the cascade in the
 * very statement that deletes that execution. Deleted ahead, they would be
 * missing if the execution is kept after all (restarted meanwhile, so
 * deleteExecutions' re-check spares it) and its triggers would fire again
 * when it ends. Once the execution is gone nothing can fire for it:
 * fireFlowTriggers starts from the execution row.
 */
export const EXECUTION_CHILD_TABLES = [
  { table: 'log_lines', column: 'execution_id' },
  { table: 'task_metrics', column: 'execution_id' },
  { table: 'execution_history', column: 'execution_id' },
  { table: 'ai_insights', column: 'execution_id' },
  { table: 'artifacts', column: 'execution_id' },
  { table: 'log_archives', column: 'execution_id' },
  { table: 'task_runs', column: 'execution_id' },
] as const;

export type ExecutionChildTable = (typeof EXECUTION_CHILD_TABLES)[number];

/** Ended executions whose end is before `cutoff`, oldest end first. */
export async function selectExpiredExecutions(db: Queryable, cutoff: Date, limit: number): Promise<string[]> {
  const r = await db.query<{ id: string }>(`SELECT id FROM executions WHERE ended_at < $1 AND state = ANY($2) ORDER BY ended_at LIMIT $3`, [cutoff, EXECUTION_END_STATES, limit]);
  return r.rows.map((x) => x.id);
}

/** Object store keys the rows of these executions point at (artifacts, archived logs). */
export async function objectKeysOfExecutions(db: Queryable, executionIds: string[]): Promise<{ executionId: string; key: string; size: number }[]> {
  const r = await db.query<{ execution_id: string; object_key: string; size: string }>(
    `SELECT execution_id, object_key, size FROM artifacts WHERE execution_id = ANY($1)
     UNION ALL
     SELECT execution_id, object_key, size FROM log_archives WHERE execution_id = ANY($1)`,
    [executionIds],
  );
  return r.rows.map((x) => ({ executionId: x.execution_id, key: x.object_key, size: Number(x.size) }));
}

/** Deletes at most `limit` rows of `child` that belong to these executions. */
export async function deleteExecutionRows(db: Queryable, child: ExecutionChildTable, executionIds: string[], limit: number): Promise<number> {
  // Table and column come from the constant list above, never from input.
  const r = await db.query(`DELETE FROM ${child.table} WHERE ctid = ANY(ARRAY(SELECT ctid FROM ${child.table} WHERE ${child.column} = ANY($1) LIMIT $2))`, [executionIds, limit]);
  return r.rowCount ?? 0;
}

/** Deletes these executions when they still ended before `cutoff`; returns the ids deleted. */
export async function deleteExecutions(db: Queryable, executionIds: string[], cutoff: Date): Promise<string[]> {
  const r = await db.query<{ id: string }>(`DELETE FROM executions WHERE id = ANY($1) AND ended_at < $2 RETURNING id`, [executionIds, cutoff]);
  return r.rows.map((x) => x.id);
}

/** Audit events older than `cutoff` (at most `limit`). */
export async function deleteAuditEventsBefore(db: Queryable, cutoff: Date, limit: number): Promise<number> {
  const r = await db.query(`DELETE FROM audit_events WHERE id IN (SELECT id FROM audit_events WHERE at < $1 ORDER BY at LIMIT $2)`, [cutoff, limit]);
  return r.rowCount ?? 0;
}

/** Instance rows whose last heartbeat is older than `cutoff` (at most `limit`). */
export async function deleteSilentInstances(db: Queryable, cutoff: Date, limit: number): Promise<number> {
  const r = await db.query(`DELETE FROM instances WHERE id IN (SELECT id FROM instances WHERE last_heartbeat_at < $1 LIMIT $2)`, [cutoff, limit]);
  return r.rowCount ?? 0;
}

/** Login attempts older than `cutoff` (at most `limit`). */
export async function deleteLoginAttemptsBefore(db: Queryable, cutoff: Date, limit: number): Promise<number> {
  const r = await db.query(`DELETE FROM login_attempts WHERE id IN (SELECT id FROM login_attempts WHERE at < $1 ORDER BY at LIMIT $2)`, [cutoff, limit]);
  return r.rowCount ?? 0;
}

/** Sessions that expired before `now` (at most `limit`). */
export async function deleteExpiredSessions(db: Queryable, now: Date, limit: number): Promise<number> {
  const r = await db.query(`DELETE FROM sessions WHERE id IN (SELECT id FROM sessions WHERE expires_at < $1 LIMIT $2)`, [now, limit]);
  return r.rowCount ?? 0;
}

/** Organization emails accepted before `cutoff`, whatever their status (at most `limit`). */
export async function deleteEmailsBefore(db: Queryable, cutoff: Date, limit: number): Promise<number> {
  const r = await db.query(`DELETE FROM emails WHERE id IN (SELECT id FROM emails WHERE created_at < $1 ORDER BY created_at LIMIT $2)`, [cutoff, limit]);
  return r.rowCount ?? 0;
}

/** Alert deliveries (with their attempts, by cascade) made before `cutoff` and no longer being tried (at most `limit`). */
export async function deleteAlertDeliveriesBefore(db: Queryable, cutoff: Date, limit: number): Promise<number> {
  const r = await db.query(
    `DELETE FROM alert_deliveries WHERE id IN (SELECT id FROM alert_deliveries WHERE created_at < $1 AND status NOT IN ('pending', 'sending') ORDER BY created_at LIMIT $2)`,
    [cutoff, limit],
  );
  return r.rowCount ?? 0;
}

/** Daily quota counters of UTC days that ended before `cutoff` (at most `limit`). */
export async function deleteEmailUsageBefore(db: Queryable, cutoff: Date, limit: number): Promise<number> {
  const r = await db.query(
    `DELETE FROM org_email_usage WHERE (organization_id, day) IN (
       SELECT organization_id, day FROM org_email_usage WHERE day + 1 < ($1::timestamptz AT TIME ZONE 'UTC')::date ORDER BY day LIMIT $2)`,
    [cutoff, limit],
  );
  return r.rowCount ?? 0;
}

/**
 * Daily AI usage counters (`ai_usage`, one row per user and UTC day) of days
 * that ended before `cutoff` (at most `limit`). Only today's row is ever
 * read for the limits; older ones serve the admins' look back (getAIUsage).
 */
export async function deleteAiUsageBefore(db: Queryable, cutoff: Date, limit: number): Promise<number> {
  const r = await db.query(
    `DELETE FROM ai_usage WHERE (user_id, day) IN (
       SELECT user_id, day FROM ai_usage WHERE day + 1 <= ($1::timestamptz AT TIME ZONE 'UTC')::date ORDER BY day LIMIT $2)`,
    [cutoff, limit],
  );
  return r.rowCount ?? 0;
}
