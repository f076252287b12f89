// Retention statements (spec, Limits: retention and cleanup) of the tables
// maintenance owns or no other package writes. An execution and its rows are
// the engine's (Engine.retention), the email queue @svc/identity's
// (deleteEmailsBefore, deleteEmailUsageBefore), the AI usage counters
// @svc/ai-data's (deleteAiUsageBefore). Every statement deletes a
// bounded number of rows, so no single statement holds locks for long on
// tables that users and runners write; callers loop.
import type { Queryable } from '@svc/db';

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

/** Alert deliveries (with their attempts, by cascade) made before `cutoff` and no longer being tried (at most `limit`). */
export async function deleteAlertDeliveriesBefore(db: Queryable, cutoff: Date, limit: number): Promise<number> {
  const r = await db.query(
    `DELETE FROM alert_deliveries WHERE id IN (SELECT id FROM alert_deliveries WHERE created_at < $1 AND status NOT IN ('pending', 'sending') ORDER BY created_at LIMIT $2)`,
    [cutoff, limit],
  );
  return r.rowCount ?? 0;
}
