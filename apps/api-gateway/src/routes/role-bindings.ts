// Role bindings (docs/operating/roles.md; beyond the spec's operation index, see
// EXTENSION_OPERATION_IDS): a user or an IdP group gets a role on a
// namespace and its children. Admin only (global role: the operations are
// globalRoleOnly); every change is audited with the binding's fields.
import type { Db } from '@svc/db';
import type { components } from '@svc/api-spec';
import { conflict, notFound, reply, validationFailed, type HandlerContext, type OperationHandlers } from '@svc/http';
import { createRoleBinding, deleteRoleBinding, findUserIdByIdOrEmail, listRoleBindings, recordAudit, RoleBindingExistsError, type RoleBindingRow } from '@svc/identity';
import type { AuthPrincipal } from '../identity/principal.js';
import { auditContext } from './audit.js';

type Ctx = HandlerContext<AuthPrincipal>;
type RoleBinding = components['schemas']['RoleBinding'];
export function bindingBody(b: RoleBindingRow): RoleBinding {
  return {
    id: b.id,
    namespace: b.namespace,
    user_id: b.user_id,
    user_email: b.user_email,
    group: b.group_name,
    role: b.role,
    created_by: b.created_by,
    created_at: b.created_at.toISOString(),
  };
}

export function roleBindingHandlers(deps: { db: Db; now: () => Date }) {
  const { db } = deps;
  const pool = db.pool;
  const audit = (ctx: Ctx, action: string, b: RoleBindingRow) =>
    recordAudit(db.prisma, {
      action,
      ...auditContext(ctx),
      targetType: 'role_binding',
      targetId: b.id,
      details: { namespace: b.namespace, ...(b.user_id ? { user_id: b.user_id, user_email: b.user_email } : { group: b.group_name }), role: b.role },
      at: deps.now(),
    });

  return {
    async listRoleBindings({ query }) {
      const q = query;
      let userId: string | undefined;
      if (q.user !== undefined) {
        userId = await findUserIdByIdOrEmail(db.prisma, q.user);
        if (userId === undefined) return { items: [] } satisfies components['schemas']['RoleBindingList'];
      }
      const rows = await listRoleBindings(pool, { ...(q.namespace ? { namespace: q.namespace } : {}), ...(userId ? { userId } : {}), ...(q.group ? { group: q.group } : {}) });
      return { items: rows.map(bindingBody) } satisfies components['schemas']['RoleBindingList'];
    },

    async createRoleBinding(ctx) {
      const b = ctx.body;
      if ((b.user === undefined) === (b.group === undefined)) {
        throw validationFailed([{ field: 'user', message: 'give exactly one of user and group' }]);
      }
      let userId: string | undefined;
      if (b.user !== undefined) {
        userId = await findUserIdByIdOrEmail(db.prisma, b.user);
        if (userId === undefined) throw notFound(`no user ${b.user}`);
      }
      try {
        const row = await createRoleBinding(
          pool,
          { namespace: b.namespace, ...(userId ? { userId } : { group: b.group! }), role: b.role, createdBy: ctx.principal.email },
          deps.now(),
        );
        await audit(ctx, 'role_binding.create', row);
        return reply(201, bindingBody(row));
      } catch (err) {
        if (err instanceof RoleBindingExistsError) throw conflict('conflict', err.message);
        throw err;
      }
    },

    async deleteRoleBinding(ctx) {
      const { bindingId } = ctx.params;
      const row = await deleteRoleBinding(pool, bindingId);
      if (!row) throw notFound(`no role binding ${bindingId}`);
      await audit(ctx, 'role_binding.delete', row);
      return reply(204);
    },
  } satisfies OperationHandlers<AuthPrincipal>;
}
