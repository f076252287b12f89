// The audit log: one helper writes every event, so every operation that must
// leave a trace (logins, tokens, users, secrets, execution actions) writes the
// same shape.
import { newId, prismaOf, type Prisma } from '@svc/db';
import type { IdentityDb } from './users.js';

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

/** The row of one audit event. */
function auditRow(e: AuditRecord, id: string) {
  return {
    id,
    at: e.at,
    actorId: e.actor.id,
    actorType: e.actor.type,
    action: e.action,
    targetType: e.targetType ?? '',
    targetId: e.targetId ?? '',
    ip: e.ip ?? '',
    requestId: e.requestId ?? '',
    details: (e.details ?? {}) as Prisma.InputJsonObject,
  };
}

/** Appends one audit event; pass the Prisma transaction of the change it records when there is one. */
export async function recordAudit(db: IdentityDb, e: AuditRecord): Promise<string> {
  const id = newId();
  await prismaOf(db).auditEvent.create({ data: auditRow(e, id) });
  return id;
}

/** Appends several audit events in one statement (a bulk action's, one per execution it changed); `id` when the caller named the event already. */
export async function recordAudits(db: IdentityDb, events: (AuditRecord & { id?: string })[]): Promise<void> {
  if (!events.length) return;
  await prismaOf(db).auditEvent.createMany({
    data: events.map((e) => auditRow(e, e.id ?? newId())),
  });
}

export interface AuditQuery {
  /** Exact, or a prefix when it ends in `*`. */
  action?: string;
  actorId?: string;
  targetType?: string;
  targetId?: string;
  /** Events whose `details.namespace` is this namespace or one below it (`team-a` takes `team-a.etl`). */
  namespace?: string;
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

/** `text` matched literally by a LIKE prefix (Prisma's startsWith passes `%` and `_` through as wildcards). */
const likeLiteral = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Newest first; one row more than `limit` tells the caller another page follows. */
export async function listAudit(db: IdentityDb, q: AuditQuery): Promise<AuditRow[]> {
  const prisma = prismaOf(db);
  const at = q.after ? new Date(q.after.at) : undefined;
  const and: Prisma.AuditEventWhereInput[] = [];
  if (q.namespace !== undefined) {
    and.push({ OR: [{ details: { path: ['namespace'], equals: q.namespace } }, { details: { path: ['namespace'], string_starts_with: likeLiteral(`${q.namespace}.`) } }] });
  }
  if (q.after) and.push({ OR: [{ at: { lt: at } }, { at, id: { lt: q.after.id } }] });
  const rows = await prisma.auditEvent.findMany({
    where: {
      ...(q.action ? { action: q.action.endsWith('*') ? { startsWith: likeLiteral(q.action.slice(0, -1)) } : q.action } : {}),
      ...(q.actorId ? { actorId: q.actorId } : {}),
      ...(q.targetType ? { targetType: q.targetType } : {}),
      ...(q.targetId ? { targetId: q.targetId } : {}),
      ...(q.from || q.to ? { at: { ...(q.from ? { gte: q.from } : {}), ...(q.to ? { lt: q.to } : {}) } } : {}),
      ...(and.length ? { AND: and } : {}),
    },
    orderBy: [{ at: 'desc' }, { id: 'desc' }],
    take: q.limit + 1,
  });
  // Actors are shown by email; audit rows keep only the id (a deleted user's events stay).
  const actorIds = [...new Set(rows.map((r) => r.actorId).filter((x): x is string => x !== null))];
  const users = actorIds.length ? await prisma.user.findMany({ where: { id: { in: actorIds } }, select: { id: true, email: true } }) : [];
  const emails = new Map(users.map((u) => [u.id, u.email]));
  return rows.map((r) => ({
    id: r.id,
    at: r.at,
    actor_id: r.actorId,
    actor_type: r.actorType,
    actor_email: r.actorId === null ? null : (emails.get(r.actorId) ?? null),
    action: r.action,
    target_type: r.targetType,
    target_id: r.targetId,
    ip: r.ip,
    request_id: r.requestId,
    details: r.details as Record<string, unknown>,
  }));
}
