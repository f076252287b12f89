// The audit log: one helper writes every event, so every operation that must
// leave a trace (logins, tokens, users, secrets, execution actions) writes the
// same shape.
import { newId, type Queryable } from '@svc/db';

export interface AuditActor {
  /** User id; null for anonymous actors (a failed login). */
  id: string | null;
  /** `user`, `token`, `system` or `anonymous`. */
  type: 'user' | 'token' | 'system' | 'anonymous';
}

export interface AuditRecord {
  action: string;
  actor: AuditActor;
  targetType?: string;
  targetId?: string;
  ip?: string;
  requestId?: string;
  details?: Record<string, unknown>;
  at: Date;
}

/** Appends one audit event; run it in the transaction of the change it records when there is one. */
export async function recordAudit(db: Queryable, e: AuditRecord): Promise<string> {
  const id = newId();
  await db.query(
    `INSERT INTO audit_events (id, at, actor_id, actor_type, action, target_type, target_id, ip, request_id, details)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [id, e.at, e.actor.id, e.actor.type, e.action, e.targetType ?? '', e.targetId ?? '', e.ip ?? '', e.requestId ?? '', JSON.stringify(e.details ?? {})],
  );
  return id;
}

export interface AuditQuery {
  action?: string;
  actorId?: string;
  from?: Date;
  to?: Date;
  limit: number;
  /** Sort key of the last row of the previous page. */
  after?: { at: string; id: string };
}

export interface AuditRow {
  id: string;
  at: Date;
  actor_id: string | null;
  actor_type: string;
  actor_email: string | null;
  action: string;
  target_type: string;
  target_id: string;
  ip: string;
  request_id: string;
  details: Record<string, unknown>;
}

/** Newest first; one row more than `limit` tells the caller another page follows. */
export async function listAudit(db: Queryable, q: AuditQuery): Promise<AuditRow[]> {
  const where: string[] = [];
  const args: unknown[] = [];
  const arg = (v: unknown) => {
    args.push(v);
    return `$${args.length}`;
  };
  if (q.action) where.push(`a.action = ${arg(q.action)}`);
  if (q.actorId) where.push(`a.actor_id = ${arg(q.actorId)}`);
  if (q.from) where.push(`a.at >= ${arg(q.from)}`);
  if (q.to) where.push(`a.at < ${arg(q.to)}`);
  if (q.after) where.push(`(a.at, a.id) < (${arg(q.after.at)}::timestamptz, ${arg(q.after.id)})`);
  const r = await db.query<AuditRow>(
    `SELECT a.id, a.at, a.actor_id, a.actor_type, u.email AS actor_email, a.action, a.target_type, a.target_id, a.ip, a.request_id, a.details
     FROM audit_events a LEFT JOIN users u ON u.id = a.actor_id
     ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY a.at DESC, a.id DESC LIMIT ${arg(q.limit + 1)}`,
    args,
  );
  return r.rows;
}
