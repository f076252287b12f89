// Builtin secrets of namespaces and of the global scope. Values go in and
// are never sent back: lists and puts show metadata, checks say where a key
// resolves. Every write and delete leaves an audit event (without the value).
import { assertNever } from '@svc/assert';
import type { MasterKey } from '@svc/config';
import type { Db } from '@svc/db';
import { conflict, notFound, reply, validationFailed, type HandlerContext, type OperationHandlers } from '@svc/http';
import { recordAudit } from '@svc/identity';
import { namespaceExists } from '@svc/namespaces';
import {
  BuiltinProviderDisabledError,
  GLOBAL_SCOPE,
  MasterKeyMissingError,
  ProviderConfigError,
  ProviderExistsError,
  ProviderNotFoundError,
  ProviderStore,
  SecretReferenceError,
  SecretStore,
  type ProviderDeps,
  type SecretCheckResult,
  type SecretMeta,
} from '@svc/secrets';
import type { AuthPrincipal } from '../identity/principal.js';
import { auditContext } from './audit.js';
import type { Answer, Schemas } from '@svc/api-spec';

type Ctx = HandlerContext<AuthPrincipal>;

export interface SecretRouteDeps {
  db: Db;
  now: () => Date;
  /** `SVC_MASTER_KEYS`; empty refuses secret writes with 409 `builtin_provider_disabled`. */
  masterKeys: MasterKey[];
  /** Environment and fetch of the env and vault providers. Default: the process's. */
  providerDeps?: ProviderDeps;
}

/** 404 `not_found` unless the namespace exists. */
export async function assertNamespace(db: Db, namespace: string): Promise<void> {
  if (!(await namespaceExists(db.prisma, namespace))) throw notFound(`no namespace ${namespace}`);
}

/**
 * The HTTP error of this package's failures. Their messages name keys,
 * providers and key ids, never values, so they can be shown as they are.
 */
export function secretHttpError(err: unknown): unknown {
  if (err instanceof BuiltinProviderDisabledError) return conflict('builtin_provider_disabled', 'SVC_MASTER_KEYS is empty, so secrets and provider credentials cannot be stored');
  if (err instanceof MasterKeyMissingError) return conflict('master_key_missing', err.message);
  if (err instanceof ProviderNotFoundError) return notFound(err.message);
  if (err instanceof ProviderExistsError) return conflict('conflict', err.message);
  if (err instanceof ProviderConfigError) return validationFailed(err.problems);
  if (err instanceof SecretReferenceError) return validationFailed([{ field: 'key', message: err.problem }]);
  return err;
}

export function secretBody(m: SecretMeta): Schemas['SecretKey'] {
  return {
    key: m.key,
    namespace: m.namespace === GLOBAL_SCOPE ? null : m.namespace,
    provider: 'builtin',
    key_id: m.keyId,
    created_at: m.createdAt.toISOString(),
    updated_at: m.updatedAt.toISOString(),
    updated_by: m.updatedBy,
  };
}

function checkBody(key: string, c: SecretCheckResult): Schemas['SecretCheck'] {
  if (!c.ok) return { ok: false, key, error: c.reason, message: c.message };
  const s = c.scope;
  switch (s.type) {
    case 'namespace':
      return { ok: true, key, scope: 'namespace', namespace: s.namespace };
    case 'global':
      return { ok: true, key, scope: 'global' };
    case 'provider':
      return { ok: true, key, scope: 'provider', provider: s.provider };
    default:
      return assertNever(s, 'secret scope');
  }
}

/** Audit target of a secret: `namespace/key`, or the bare key for the global scope (keys never contain `/`). */
function target(namespace: string, key: string): string {
  return namespace === GLOBAL_SCOPE ? key : `${namespace}/${key}`;
}

export function secretHandlers(deps: SecretRouteDeps) {
  const { db } = deps;
  const providers = new ProviderStore({ db: db.pool, keys: deps.masterKeys, ...(deps.providerDeps ? { providerDeps: deps.providerDeps } : {}) });
  const secrets = new SecretStore({ db: db.pool, keys: deps.masterKeys, providers });

  async function list(namespace: string, ctx: HandlerContext<AuthPrincipal, 'listNamespaceSecrets' | 'listGlobalSecrets'>) {
    const { limit } = ctx.query;
    const after = ctx.cursor;
    const rows = await secrets.list(namespace, { limit, ...(after ? { afterKey: after.key } : {}) });
    const page = rows.slice(0, limit);
    return {
      items: page.map(secretBody),
      ...(rows.length > limit ? { next_cursor: ctx.encodeCursor({ key: page[page.length - 1].key }) } : {}),
    } satisfies Answer<'listNamespaceSecrets'>;
  }

  async function put(namespace: string, ctx: HandlerContext<AuthPrincipal, 'putNamespaceSecret' | 'putGlobalSecret'>) {
    const { key } = ctx.params;
    const { value } = ctx.body;
    // Refused before anything is read or written: nothing to seal with.
    if (deps.masterKeys.length === 0) throw secretHttpError(new BuiltinProviderDisabledError());
    const now = deps.now();
    const p = ctx.principal;
    const { secret } = await db.prisma.$transaction(async (tx) => {
      const out = await secrets.withDb(tx).put(namespace, key, value, { by: p.userId, now });
      await recordAudit(tx, {
        action: 'secret.put',
        ...auditContext(ctx),
        targetType: 'secret',
        targetId: target(namespace, key),
        details: { namespace: namespace === GLOBAL_SCOPE ? null : namespace, key, created: out.created, key_id: out.secret.keyId },
        at: now,
      });
      return out;
    });
    return secretBody(secret);
  }

  async function remove(namespace: string, ctx: Ctx) {
    const { key } = ctx.params;
    const now = deps.now();
    const deleted = await db.prisma.$transaction(async (tx) => {
      if (!(await secrets.withDb(tx).delete(namespace, key))) return false;
      await recordAudit(tx, {
        action: 'secret.delete',
        ...auditContext(ctx),
        targetType: 'secret',
        targetId: target(namespace, key),
        details: { namespace: namespace === GLOBAL_SCOPE ? null : namespace, key },
        at: now,
      });
      return true;
    });
    if (!deleted) throw notFound(namespace === GLOBAL_SCOPE ? `no global secret ${key}` : `no secret ${key} in namespace ${namespace}`);
    return reply(204);
  }

  async function check(namespace: string, ctx: Ctx) {
    const { key } = ctx.params;
    try {
      return checkBody(key, await secrets.check(namespace, key));
    } catch (err) {
      throw secretHttpError(err);
    }
  }

  return {
    async listNamespaceSecrets(ctx) {
      const { namespace } = ctx.params;
      await assertNamespace(db, namespace);
      return list(namespace, ctx);
    },
    async putNamespaceSecret(ctx) {
      const { namespace } = ctx.params;
      await assertNamespace(db, namespace);
      return put(namespace, ctx);
    },
    async deleteNamespaceSecret(ctx) {
      const { namespace } = ctx.params;
      await assertNamespace(db, namespace);
      return remove(namespace, ctx);
    },
    async checkNamespaceSecret(ctx) {
      const { namespace } = ctx.params;
      await assertNamespace(db, namespace);
      return check(namespace, ctx);
    },
    listGlobalSecrets: (ctx) => list(GLOBAL_SCOPE, ctx),
    putGlobalSecret: (ctx) => put(GLOBAL_SCOPE, ctx),
    deleteGlobalSecret: (ctx) => remove(GLOBAL_SCOPE, ctx),
    checkGlobalSecret: (ctx) => check(GLOBAL_SCOPE, ctx),
  } satisfies OperationHandlers<AuthPrincipal>;
}
