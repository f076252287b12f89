// Plain variables of namespaces and of the global scope, read by flows as
// `vars` (precedence in @svc/secrets' VariableStore.resolveVars).
import type { Db } from '@svc/db';
import { notFound, reply, type HandlerContext, type OperationHandlers } from '@svc/http';
import { recordAudit } from '@svc/identity';
import { GLOBAL_SCOPE, VariableStore, type VariableRecord } from '@svc/secrets';
import type { AuthPrincipal } from '../identity/principal.js';
import { auditContext } from './audit.js';
import { assertNamespace } from './secrets.js';
import type { Answer, Schemas } from '@svc/api-spec';

type Ctx = HandlerContext<AuthPrincipal>;

function variableBody(v: VariableRecord): Schemas['Variable'] {
  return {
    key: v.key,
    value: v.value,
    namespace: v.namespace === GLOBAL_SCOPE ? null : v.namespace,
    created_at: v.createdAt.toISOString(),
    updated_at: v.updatedAt.toISOString(),
    updated_by: v.updatedBy,
  };
}

export function variableHandlers(deps: { db: Db; now: () => Date }) {
  const { db } = deps;
  const variables = new VariableStore(db.pool);

  async function list(namespace: string, ctx: HandlerContext<AuthPrincipal, 'listNamespaceVariables' | 'listGlobalVariables'>) {
    const { limit } = ctx.query;
    const after = ctx.cursor;
    const rows = await variables.list(namespace, { limit, ...(after ? { afterKey: after.key } : {}) });
    const page = rows.slice(0, limit);
    return {
      items: page.map(variableBody),
      ...(rows.length > limit ? { next_cursor: ctx.encodeCursor({ key: page[page.length - 1].key }) } : {}),
    } satisfies Answer<'listNamespaceVariables'>;
  }

  async function put(namespace: string, ctx: HandlerContext<AuthPrincipal, 'putNamespaceVariable' | 'putGlobalVariable'>) {
    const { key } = ctx.params;
    const { value } = ctx.body;
    const now = deps.now();
    const { variable } = await db.prisma.$transaction(async (tx) => {
      const out = await new VariableStore(tx).put(namespace, key, value, { by: ctx.principal.userId, now });
      // The value is left out like a secret's: variables often hold hosts and account names people would rather not spread.
      await recordAudit(tx, {
        action: 'variable.put',
        ...auditContext(ctx),
        targetType: 'variable',
        targetId: namespace === GLOBAL_SCOPE ? key : `${namespace}/${key}`,
        details: { namespace: namespace === GLOBAL_SCOPE ? null : namespace, key, created: out.created },
        at: now,
      });
      return out;
    });
    return variableBody(variable);
  }

  async function remove(namespace: string, ctx: Ctx) {
    const { key } = ctx.params;
    const now = deps.now();
    const deleted = await db.prisma.$transaction(async (tx) => {
      if (!(await new VariableStore(tx).delete(namespace, key))) return false;
      await recordAudit(tx, {
        action: 'variable.delete',
        ...auditContext(ctx),
        targetType: 'variable',
        targetId: namespace === GLOBAL_SCOPE ? key : `${namespace}/${key}`,
        details: { namespace: namespace === GLOBAL_SCOPE ? null : namespace, key },
        at: now,
      });
      return true;
    });
    if (!deleted) throw notFound(namespace === GLOBAL_SCOPE ? `no global variable ${key}` : `no variable ${key} in namespace ${namespace}`);
    return reply(204);
  }

  return {
    async listNamespaceVariables(ctx) {
      const { namespace } = ctx.params;
      await assertNamespace(db, namespace);
      return list(namespace, ctx);
    },
    async putNamespaceVariable(ctx) {
      const { namespace } = ctx.params;
      await assertNamespace(db, namespace);
      return put(namespace, ctx);
    },
    async deleteNamespaceVariable(ctx) {
      const { namespace } = ctx.params;
      await assertNamespace(db, namespace);
      return remove(namespace, ctx);
    },
    listGlobalVariables: (ctx) => list(GLOBAL_SCOPE, ctx),
    putGlobalVariable: (ctx) => put(GLOBAL_SCOPE, ctx),
    deleteGlobalVariable: (ctx) => remove(GLOBAL_SCOPE, ctx),
  } satisfies OperationHandlers<AuthPrincipal>;
}
