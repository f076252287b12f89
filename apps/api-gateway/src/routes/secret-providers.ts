// External secret providers (admin). Credentials are write-only: accepted in
// create and update, stored sealed, never returned or audited. `namespaces`
// says which namespaces' flows may use a provider (docs/using/secrets-and-variables.md,
// "Secret providers serve listed namespaces"); it is audited.
import { reply, type OperationHandlers } from '@svc/http';
import { recordAudit } from '@svc/identity';
import { ProviderNotFoundError, ProviderStore, type ProviderChange, type ProviderInfo } from '@svc/secrets';
import type { AuthPrincipal } from '../identity/principal.js';
import { auditContext } from './audit.js';
import { secretHttpError, type SecretRouteDeps } from './secrets.js';
import type { Answer, Schemas } from '@svc/api-spec';

function providerBody(p: ProviderInfo): Schemas['SecretProvider'] {
  return {
    name: p.name,
    type: p.type,
    config: p.config,
    enabled: p.enabled,
    namespaces: p.namespaces,
    has_credentials: p.hasCredentials,
    credentials_key_id: p.credentialsKeyId,
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
  };
}

/** What the audit log keeps of a provider: its settings and whether credentials changed, never the credentials. */
function auditDetails(p: ProviderInfo, credentialsChanged: boolean) {
  return { type: p.type, config: p.config, enabled: p.enabled, namespaces: p.namespaces, has_credentials: p.hasCredentials, credentials_changed: credentialsChanged };
}

export function secretProviderHandlers(deps: SecretRouteDeps) {
  const { db } = deps;
  const providers = new ProviderStore({ db: db.pool, keys: deps.masterKeys, ...(deps.providerDeps ? { providerDeps: deps.providerDeps } : {}) });

  async function guarded<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw secretHttpError(err);
    }
  }

  return {
    async listSecretProviders(ctx) {
      const { limit } = ctx.query;
      const after = ctx.cursor;
      const rows = await providers.list({ limit, ...(after ? { afterName: after.name } : {}) });
      const page = rows.slice(0, limit);
      return {
        items: page.map(providerBody),
        ...(rows.length > limit ? { next_cursor: ctx.encodeCursor({ name: page[page.length - 1].name }) } : {}),
      } satisfies Answer<'listSecretProviders'>;
    },

    async createSecretProvider(ctx) {
      const b = ctx.body;
      const now = deps.now();
      const info = await guarded(() =>
        db.prisma.$transaction(async (tx) => {
          const created = await providers.withDb(tx).create(
            {
              name: b.name,
              type: b.type,
              ...(b.config ? { config: b.config } : {}),
              ...(b.credentials ? { credentials: b.credentials } : {}),
              ...(b.enabled !== undefined ? { enabled: b.enabled } : {}),
              ...(b.namespaces !== undefined ? { namespaces: b.namespaces } : {}),
            },
            now,
          );
          await recordAudit(tx, {
            action: 'secret_provider.create',
            ...auditContext(ctx),
            targetType: 'secret_provider',
            targetId: created.name,
            details: auditDetails(created, created.hasCredentials),
            at: now,
          });
          return created;
        }),
      );
      return reply(201, providerBody(info));
    },

    async updateSecretProvider(ctx) {
      const { name } = ctx.params;
      const b = ctx.body;
      const change: ProviderChange = {
        ...(b.type !== undefined ? { type: b.type } : {}),
        ...(b.config !== undefined ? { config: b.config } : {}),
        ...(b.credentials !== undefined ? { credentials: b.credentials } : {}),
        ...(b.enabled !== undefined ? { enabled: b.enabled } : {}),
        ...(b.namespaces !== undefined ? { namespaces: b.namespaces } : {}),
      };
      const now = deps.now();
      const info = await guarded(() =>
        db.prisma.$transaction(async (tx) => {
          const updated = await providers.withDb(tx).update(name, change, now);
          await recordAudit(tx, {
            action: 'secret_provider.update',
            ...auditContext(ctx),
            targetType: 'secret_provider',
            targetId: name,
            details: auditDetails(updated, b.credentials !== undefined),
            at: now,
          });
          return updated;
        }),
      );
      return providerBody(info);
    },

    async deleteSecretProvider(ctx) {
      const { name } = ctx.params;
      const now = deps.now();
      await guarded(() =>
        db.prisma.$transaction(async (tx) => {
          if (!(await providers.withDb(tx).delete(name))) throw new ProviderNotFoundError(name);
          await recordAudit(tx, { action: 'secret_provider.delete', ...auditContext(ctx), targetType: 'secret_provider', targetId: name, at: now });
        }),
      );
      return reply(204);
    },

    async checkSecretProvider(ctx) {
      const { name } = ctx.params;
      return guarded(() => providers.check(name));
    },
  } satisfies OperationHandlers<AuthPrincipal>;
}
