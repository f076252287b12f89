// Retention statements of identity's tables (maintenance runs them, spec:
// Limits: retention and cleanup): each deletes a bounded number of rows, so
// no statement holds locks for long on tables logins write; callers loop.
import type { Queryable } from '@svc/db';

/** Audit events older than `cutoff` (at most `limit`). */
export async function deleteAuditEventsBefore(db: Queryable, cutoff: Date, limit: number): Promise<number> {
  const r = await db.query(`DELETE FROM audit_events WHERE id IN (SELECT id FROM audit_events WHERE at < $1 ORDER BY at LIMIT $2)`, [cutoff, limit]);
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
