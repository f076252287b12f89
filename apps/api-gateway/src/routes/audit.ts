// listAuditEvents and exportAuditEvents, and the actor/IP/request fields every
// audited handler passes.
import { newId, type Db } from '@svc/db';
import type { StartAudit } from '@svc/engine';
import { validationFailed, type HandlerContext, type OperationHandlers } from '@svc/http';
import { findUserIdByIdOrEmail, listAudit, type AuditActor, type AuditQuery, type AuditRow } from '@svc/identity';
import type { AuthPrincipal } from '../identity/principal.js';
import type { Answer, Schemas } from '@svc/api-spec';
import { writeDrained } from './logs.js';

/** The audit fields of a request: its principal as actor, client IP, request id. */
export function auditContext(ctx: HandlerContext<AuthPrincipal>): { actor: AuditActor; ip: string; requestId: string } {
  const p = ctx.principal;
  return {
    actor: p ? { id: p.userId, type: p.authType === 'token' ? 'token' : 'user' } : { id: null, type: 'anonymous' },
    ip: ctx.req.ip ?? '',
    requestId: ctx.requestId,
  };
}

/**
 * The audit event of an execution a request starts (execution.trigger, file.run): the engine writes it
 * with the execution, in the start statement, so the trigger path has no extra round trip. Its target
 * is the execution.
 */
export function startAudit(ctx: HandlerContext<AuthPrincipal>, action: string, details: Record<string, unknown>): StartAudit {
  const a = auditContext(ctx);
  return { id: newId(), action, actorId: a.actor.id, actorType: a.actor.type, ip: a.ip, requestId: a.requestId, details };
}

/** Rows per database read of the export. */
const EXPORT_BATCH = 1000;

type AuditFilters = { action?: string; actor?: string; resource?: string; namespace?: string; from?: string; to?: string };

/** The filters of a list or export request as listAudit reads them (an unknown actor email matches nothing). */
async function auditFilters(db: Db, q: AuditFilters): Promise<Omit<AuditQuery, 'limit' | 'after'>> {
  const date = (v: string | undefined, field: string) => {
    if (v === undefined) return undefined;
    const d = new Date(v);
    if (Number.isNaN(d.getTime())) throw validationFailed([{ field, message: 'must be a date-time' }]);
    return d;
  };
  const from = date(q.from, 'from');
  const to = date(q.to, 'to');
  const actorId = q.actor ? ((await findUserIdByIdOrEmail(db.prisma, q.actor)) ?? q.actor) : undefined;
  // `type` or `type:id`, as `target` reads.
  const colon = q.resource ? q.resource.indexOf(':') : -1;
  const targetType = q.resource ? (colon < 0 ? q.resource : q.resource.slice(0, colon)) : undefined;
  const targetId = q.resource && colon >= 0 ? q.resource.slice(colon + 1) : undefined;
  return {
    action: q.action,
    actorId,
    targetType: targetType || undefined,
    targetId: targetId || undefined,
    ...(q.namespace ? { namespace: q.namespace } : {}),
    from,
    to,
  };
}

function auditBody(r: AuditRow): Schemas['AuditEvent'] {
  return {
    id: r.id,
    action: r.action,
    actor: r.actor_email ?? r.actor_id ?? r.actor_type,
    actor_id: r.actor_id,
    actor_type: r.actor_type,
    ...(r.target_id ? { target: `${r.target_type}:${r.target_id}` } : {}),
    payload: r.details,
    ip: r.ip,
    request_id: r.request_id,
    created_at: r.at.toISOString(),
  };
}

export function auditHandlers(deps: { db: Db; now: () => Date }) {
  return {
    async listAuditEvents({ query, cursor, encodeCursor }) {
      const q = query;
      const rows = await listAudit(deps.db.prisma, { ...(await auditFilters(deps.db, q)), limit: q.limit, after: cursor });
      const page = rows.slice(0, q.limit);
      const last = page[page.length - 1];
      return {
        items: page.map(auditBody),
        ...(rows.length > q.limit && last ? { next_cursor: encodeCursor({ at: last.at.toISOString(), id: last.id }) } : {}),
      } satisfies Answer<'listAuditEvents'>;
    },

    // Keyset batches of the list's own query, each written before the next is read: the export never
    // holds more than one batch, and no connection waits on a slow client.
    async exportAuditEvents({ query, res }) {
      const filters = await auditFilters(deps.db, query);
      res.status(200);
      res.setHeader('Content-Type', 'application/x-ndjson; charset=utf-8');
      res.setHeader('Content-Disposition', `attachment; filename="audit-${deps.now().toISOString().replace(/[:.]/g, '-')}.ndjson"`);
      res.setHeader('Cache-Control', 'no-cache');
      let after: { at: string; id: string } | undefined;
      for (;;) {
        const rows = await listAudit(deps.db.prisma, { ...filters, limit: EXPORT_BATCH, after });
        const batch = rows.slice(0, EXPORT_BATCH);
        let text = '';
        for (const r of batch) text += `${JSON.stringify(auditBody(r))}\n`;
        if (text && !(await writeDrained(res, text))) return;
        const last = batch[batch.length - 1];
        if (rows.length <= EXPORT_BATCH || !last) break;
        after = { at: last.at.toISOString(), id: last.id };
      }
      res.end();
    },
  } satisfies OperationHandlers<AuthPrincipal>;
}
