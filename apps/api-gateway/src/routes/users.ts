// User administration (admin).
import type { Db } from '@svc/db';
import { conflict, notFound, reply, validationFailed, type OperationHandlers } from '@svc/http';
import {
  createUser,
  EmailTakenError,
  findUserById,
  generatePassword,
  listUsers,
  LastAdminError,
  passwordProblem,
  recordAudit,
  setPassword,
  updateUser,
  UserNotFoundError,
  type UserRow,
} from '@svc/identity';
import type { AuthPrincipal } from '../identity/principal.js';
import { auditContext } from './audit.js';
import type { Answer, Schemas } from '@svc/api-spec';

export function userBody(u: UserRow): Schemas['User'] {
  return {
    id: u.id,
    email: u.email,
    name: u.display_name,
    role: u.role,
    disabled: u.disabled,
    must_change_password: u.must_change_password,
    created_at: u.created_at.toISOString(),
    last_login_at: u.last_login_at?.toISOString() ?? null,
  };
}

export function userHandlers(deps: { db: Db; now: () => Date }) {
  const { db } = deps;
  return {
    async listUsers({ query, cursor, encodeCursor }) {
      const q = query;
      const rows = await listUsers(db.prisma, { limit: q.limit, ...(cursor ? { afterEmail: cursor.email } : {}) });
      const page = rows.slice(0, q.limit);
      return { items: page.map(userBody), ...(rows.length > q.limit ? { next_cursor: encodeCursor({ email: page[page.length - 1].email }) } : {}) } satisfies Answer<'listUsers'>;
    },

    async createUser(ctx) {
      const b = ctx.body;
      if (b.password !== undefined) {
        const problem = passwordProblem(b.password);
        if (problem) throw validationFailed([{ field: 'password', message: problem }]);
      }
      const now = deps.now();
      try {
        const { user, temporaryPassword } = await createUser(db.prisma, { email: b.email, role: b.role, name: b.name, password: b.password }, now);
        await recordAudit(db.prisma, {
          action: 'user.create',
          ...auditContext(ctx),
          targetType: 'user',
          targetId: user.id,
          details: { email: user.email, role: user.role },
          at: now,
        });
        return reply(201, { ...userBody(user), ...(temporaryPassword ? { temporary_password: temporaryPassword } : {}) } satisfies Answer<'createUser', 201>);
      } catch (err) {
        if (err instanceof EmailTakenError) throw conflict('conflict', err.message);
        throw err;
      }
    },

    async updateUser(ctx) {
      const { userId } = ctx.params;
      const change = ctx.body;
      const now = deps.now();
      try {
        const { before, after } = await updateUser(db.prisma, userId, change, now);
        const audit = { ...auditContext(ctx), targetType: 'user', targetId: userId, at: now };
        if (before.role !== after.role) await recordAudit(db.prisma, { ...audit, action: 'user.role_change', details: { from: before.role, to: after.role } });
        if (before.disabled !== after.disabled) await recordAudit(db.prisma, { ...audit, action: after.disabled ? 'user.disable' : 'user.enable' });
        if (before.display_name !== after.display_name) await recordAudit(db.prisma, { ...audit, action: 'user.update', details: { name: after.display_name } });
        return userBody(after);
      } catch (err) {
        if (err instanceof LastAdminError) throw conflict('last_admin', 'this change would leave no enabled admin');
        if (err instanceof UserNotFoundError) throw notFound(`no user ${userId}`);
        throw err;
      }
    },

    async resetUserPassword(ctx) {
      const { userId } = ctx.params;
      const user = await findUserById(db.prisma, userId);
      if (!user) throw notFound(`no user ${userId}`);
      const temporary = generatePassword();
      const now = deps.now();
      // The user signs in with it, then must set a new one; their sessions end now.
      await setPassword(db.prisma, userId, temporary, { temporary: true, now });
      await recordAudit(db.prisma, { action: 'user.password_reset', ...auditContext(ctx), targetType: 'user', targetId: userId, at: now });
      return { temporary_password: temporary } satisfies Answer<'resetUserPassword'>;
    },
  } satisfies OperationHandlers<AuthPrincipal>;
}
