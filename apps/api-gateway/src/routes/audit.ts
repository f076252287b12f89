// listAuditEvents, and the actor/IP/request fields every audited handler passes.
import type { Db } from '@svc/db';
import { encodeCursor, validationFailed, type HandlerContext, type OperationHandlers } from '@svc/http';
import { findUserIdByIdOrEmail, listAudit, type AuditActor } from '@svc/identity';
import type { AuthPrincipal } from '../identity/principal.js';
import type { Answer } from './api-types.js';

/** The audit fields of a request: its principal as actor, client IP, request id. */
export function auditContext(ctx: HandlerContext<AuthPrincipal>): { actor: AuditActor; ip: string; requestId: string } {
  const p = ctx.principal;
  return {
    actor: p ? { id: p.userId, type: p.authType === 'token' ? 'token' : 'user' } : { id: null, type: 'anonymous' },
    ip: ctx.req.ip ?? '',
    requestId: ctx.requestId,
  };
}

export function auditHandlers(deps: { db: Db }): OperationHandlers<AuthPrincipal> {
  return {
    async listAuditEvents({ query, cursor }) {
      const q = query as { limit: number; action?: string; actor?: string; resource?: string; from?: string; to?: string };
      let actorId: string | undefined;
      if (q.actor) actorId = (await findUserIdByIdOrEmail(deps.db.prisma, q.actor)) ?? q.actor;
      const date = (v: string | undefined, field: string) => {
        if (v === undefined) return undefined;
        const d = new Date(v);
        if (Number.isNaN(d.getTime())) throw validationFailed([{ field, message: 'must be a date-time' }]);
        return d;
      };
      // `type` or `type:id`, as `target` reads.
      const colon = q.resource ? q.resource.indexOf(':') : -1;
      const targetType = q.resource ? (colon < 0 ? q.resource : q.resource.slice(0, colon)) : undefined;
      const targetId = q.resource && colon >= 0 ? q.resource.slice(colon + 1) : undefined;
      const after = cursor as { at: string; id: string } | undefined;
      const rows = await listAudit(deps.db.prisma, {
        action: q.action,
        actorId,
        targetType: targetType || undefined,
        targetId: targetId || undefined,
        from: date(q.from, 'from'),
        to: date(q.to, 'to'),
        limit: q.limit,
        after,
      });
      const page = rows.slice(0, q.limit);
      const last = page[page.length - 1];
      return {
        items: page.map((r) => ({
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
        })),
        ...(rows.length > q.limit && last ? { next_cursor: encodeCursor({ at: last.at.toISOString(), id: last.id }) } : {}),
      } satisfies Answer<'listAuditEvents'>;
    },
  };
}
