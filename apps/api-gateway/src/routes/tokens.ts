// API tokens: created for oneself, shown once, stored as a hash.
import type { Db } from '@svc/db';
import { newId } from '@svc/db';
import { forbidden, notFound, reply, roleAtLeast, type OperationHandlers } from '@svc/http';
import { createApiToken, generateApiToken, listApiTokens, namespaceRole, recordAudit, revokeApiToken, type TokenRow } from '@svc/identity';
import type { AuthPrincipal } from '../identity/principal.js';
import { roleSubject } from '../identity/namespace-roles.js';
import { auditContext } from './audit.js';
import type { Answer, Schemas } from '@svc/api-spec';

const DAY_MS = 86_400_000;

function tokenBody(t: TokenRow, now: Date): Schemas['ApiToken'] {
  return {
    id: t.id,
    name: t.name,
    role: t.role,
    prefix: t.prefix,
    user_id: t.user_id,
    user_email: t.email,
    created_at: t.created_at.toISOString(),
    expires_at: t.expires_at?.toISOString() ?? null,
    last_used_at: t.last_used_at?.toISOString() ?? null,
    revoked_at: t.revoked_at?.toISOString() ?? null,
    active: !t.revoked_at && (!t.expires_at || t.expires_at > now),
  };
}

export function tokenHandlers(deps: { db: Db; now: () => Date }) {
  const { db } = deps;
  return {
    async createToken(ctx) {
      const p = ctx.principal;
      const body = ctx.body;
      const { name, expires_in_days } = body;
      const subject = roleSubject(p);
      // Default: the caller's own role (a session's is the owner's current role). A token never mints a stronger one than the credential it was made with.
      // For a caller whose role is `none` (docs/operating/roles.md), the highest role its bindings give it: a `none` token would read nothing.
      const role = body.role ?? (p.role === 'none' ? await namespaceRole(db.pool, subject) : p.role);
      // Up to the highest role the caller's role bindings give it on some namespace: such a
      // token is still the owner's global role everywhere else, and never more than its binding where one applies.
      const reach = roleAtLeast(p.role, role) ? p.role : await namespaceRole(db.pool, subject);
      if (!roleAtLeast(reach, role)) throw forbidden(`a ${p.authType === 'token' ? 'token' : 'user'} with the ${p.role} role cannot create a token with the ${role} role`);
      const now = deps.now();
      const { secret, hash, prefix } = generateApiToken();
      const expires = expires_in_days ? new Date(now.getTime() + expires_in_days * DAY_MS) : null;
      const id = newId();
      await createApiToken(db.prisma, { id, userId: p.userId, name, hash, prefix, role, expiresAt: expires, now });
      await recordAudit(db.prisma, {
        action: 'token.create',
        ...auditContext(ctx),
        targetType: 'token',
        targetId: id,
        details: { name, role, expires_at: expires?.toISOString() ?? null },
        at: now,
      });
      const row: TokenRow = { id, user_id: p.userId, email: p.email, name, prefix, role, created_at: now, expires_at: expires, last_used_at: null, revoked_at: null };
      // The secret is in this response only; the database keeps its SHA-256.
      return reply(201, { ...tokenBody(row, now), secret } satisfies Answer<'createToken', 201>);
    },

    async listTokens({ principal, query, cursor, encodeCursor }) {
      const q = query;
      const all = q.all === true && principal.role === 'admin';
      const rows = await listApiTokens(db.prisma, { userId: principal.userId, all, limit: q.limit, ...(cursor ? { beforeId: cursor.id } : {}) });
      const page = rows.slice(0, q.limit);
      const now = deps.now();
      return {
        items: page.map((t) => tokenBody(t, now)),
        ...(rows.length > q.limit ? { next_cursor: encodeCursor({ id: page[page.length - 1].id }) } : {}),
      } satisfies Answer<'listTokens'>;
    },

    async revokeToken(ctx) {
      const p = ctx.principal;
      const { tokenId } = ctx.params;
      const now = deps.now();
      // Someone else's token is "not found" unless the caller is an admin: no probing for ids.
      const ownerId = await revokeApiToken(db.prisma, { id: tokenId, userId: p.userId, asAdmin: p.role === 'admin', now });
      if (ownerId === null) throw notFound(`no token ${tokenId}`);
      await recordAudit(db.prisma, { action: 'token.revoke', ...auditContext(ctx), targetType: 'token', targetId: tokenId, details: { owner_id: ownerId }, at: now });
      return reply(204);
    },
  } satisfies OperationHandlers<AuthPrincipal>;
}
