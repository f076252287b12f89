// Platform secrets (admin only; docs/operating/security.md, "Platform credentials"): the credentials of the git
// sources and of single sign-on, in a store that `secret()` and every other
// resolver of secret references never read. Values go in and never come
// out; every set and delete is audited with the name, never the value.
import { notFound, reply, type OperationHandlers } from '@svc/http';
import { recordAudit } from '@svc/identity';
import { BuiltinProviderDisabledError, PlatformSecretStore, type PlatformSecretListed } from '@svc/secrets';
import type { AuthPrincipal } from '../identity/principal.js';
import { auditContext } from './audit.js';
import { secretHttpError, type SecretRouteDeps } from './secrets.js';
import type { Answer, Schemas } from '@svc/api-spec';

function platformSecretBody(m: PlatformSecretListed): Schemas['PlatformSecret'] {
  return {
    name: m.name,
    key_id: m.keyId,
    upgraded_from_global: m.sealedAs === 'global_secret',
    global_copy: m.globalCopy,
    created_at: m.createdAt.toISOString(),
    updated_at: m.updatedAt.toISOString(),
    updated_by: m.updatedBy,
  };
}

export function platformSecretHandlers(deps: Pick<SecretRouteDeps, 'db' | 'now' | 'masterKeys'>) {
  const { db } = deps;
  const store = new PlatformSecretStore({ db: db.pool, keys: deps.masterKeys });

  return {
    async listPlatformSecrets(ctx) {
      const { limit } = ctx.query;
      const after = ctx.cursor;
      const rows = await store.list({ limit, ...(after ? { afterName: after.name } : {}) });
      const page = rows.slice(0, limit);
      return {
        items: page.map(platformSecretBody),
        ...(rows.length > limit ? { next_cursor: ctx.encodeCursor({ name: page[page.length - 1].name }) } : {}),
      } satisfies Answer<'listPlatformSecrets'>;
    },

    async putPlatformSecret(ctx) {
      const { name } = ctx.params;
      const { value } = ctx.body;
      if (deps.masterKeys.length === 0) throw secretHttpError(new BuiltinProviderDisabledError());
      const now = deps.now();
      const { secret } = await db.prisma.$transaction(async (tx) => {
        const out = await store.withDb(tx).put(name, value, { by: ctx.principal.userId, now });
        await recordAudit(tx, {
          action: 'platform_secret.set',
          ...auditContext(ctx),
          targetType: 'platform_secret',
          targetId: name,
          details: { name, created: out.created, key_id: out.secret.keyId },
          at: now,
        });
        return out;
      });
      return platformSecretBody((await store.head(name)) ?? { ...secret, globalCopy: false });
    },

    async deletePlatformSecret(ctx) {
      const { name } = ctx.params;
      const now = deps.now();
      const deleted = await db.prisma.$transaction(async (tx) => {
        if (!(await store.withDb(tx).delete(name))) return false;
        await recordAudit(tx, { action: 'platform_secret.delete', ...auditContext(ctx), targetType: 'platform_secret', targetId: name, details: { name }, at: now });
        return true;
      });
      if (!deleted) throw notFound(`no platform secret ${name}`);
      return reply(204);
    },
  } satisfies OperationHandlers<AuthPrincipal>;
}
