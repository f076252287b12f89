// Users: creation, role and status changes with the last-admin rule, password
// resets. Used by the API and by the CLI's recovery commands alike. Ordinary
// reads and writes through Prisma; the last-admin rule locks rows (sql/locks.ts).
import { newId, prismaOf, type PrismaClient, type PrismaDb } from '@svc/db';
import type pg from 'pg';
import { generatePassword, hashPassword } from './passwords.js';
import { insertFirstUser } from './sql/bootstrap-admin.js';
import { lockOtherEnabledAdmins, lockUser } from './sql/locks.js';
import type { UserRow } from './user-row.js';

// The roles are @svc/vocabulary's: `none` is below the spec's four and reads only the namespaces a role binding opens (role-bindings.ts).
import { ROLES, isRole, lowerRole, type Role } from '@svc/vocabulary';

export { ROLES, isRole, lowerRole, type Role };
/** A role a binding gives on a namespace: never `none`. */
export type BindingRole = Exclude<Role, 'none'>;

export type { UserRow };

export class LastAdminError extends Error {
  override readonly name = 'LastAdminError';
  constructor() {
    super('this change would leave no enabled admin');
  }
}

export class EmailTakenError extends Error {
  override readonly name = 'EmailTakenError';
  constructor(readonly email: string) {
    super(`a user with email ${email} already exists`);
  }
}

export class UserNotFoundError extends Error {
  override readonly name = 'UserNotFoundError';
  constructor(readonly key: string) {
    super(`no user ${key}`);
  }
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** A pool (its Prisma client runs on it) or Prisma itself, possibly inside a transaction. */
export type IdentityDb = pg.Pool | PrismaDb;

type UserModel = Awaited<ReturnType<PrismaClient['user']['findUniqueOrThrow']>>;

/** The row shape the API and the CLI use (column names, as before Prisma). */
export function userRow(u: UserModel): UserRow {
  return {
    id: u.id,
    email: u.email,
    display_name: u.displayName,
    password_hash: u.passwordHash,
    role: u.role as Role,
    disabled: u.disabled,
    must_change_password: u.mustChangePassword,
    created_at: u.createdAt,
    last_login_at: u.lastLoginAt,
  };
}

export async function findUserByEmail(db: IdentityDb, email: string): Promise<UserRow | null> {
  const u = await prismaOf(db).user.findUnique({ where: { email: normalizeEmail(email) } });
  return u ? userRow(u) : null;
}

export async function findUserById(db: IdentityDb, id: string): Promise<UserRow | null> {
  const u = await prismaOf(db).user.findUnique({ where: { id } });
  return u ? userRow(u) : null;
}

/** Users by email; one row more than `limit` tells the caller another page follows. */
export async function listUsers(db: IdentityDb, q: { limit: number; afterEmail?: string }): Promise<UserRow[]> {
  const rows = await prismaOf(db).user.findMany({ where: q.afterEmail === undefined ? {} : { email: { gt: q.afterEmail } }, orderBy: { email: 'asc' }, take: q.limit + 1 });
  return rows.map(userRow);
}

/** The id of the user with this id or (case-insensitive) email, if any: how the audit log's `actor` filter names a user. */
export async function findUserIdByIdOrEmail(db: IdentityDb, idOrEmail: string): Promise<string | undefined> {
  const u = await prismaOf(db).user.findFirst({ where: { OR: [{ id: idOrEmail }, { email: idOrEmail.toLowerCase() }] }, select: { id: true } });
  return u?.id;
}

/** Sets a user's own display name (updateMe). */
export async function setDisplayName(db: IdentityDb, id: string, name: string, now: Date): Promise<void> {
  await prismaOf(db).user.updateMany({ where: { id }, data: { displayName: name, updatedAt: now } });
}

export interface NewUser {
  email: string;
  role: Role;
  name?: string;
  /** Absent: a temporary password is generated, returned once, and must be changed at first login. */
  password?: string;
  mustChangePassword?: boolean;
}

export async function createUser(db: IdentityDb, u: NewUser, now: Date): Promise<{ user: UserRow; temporaryPassword?: string }> {
  const temporaryPassword = u.password === undefined ? generatePassword() : undefined;
  const hash = await hashPassword(u.password ?? temporaryPassword!);
  const email = normalizeEmail(u.email);
  // skipDuplicates is INSERT ... ON CONFLICT DO NOTHING: a taken email returns no row
  // instead of failing, so a caller's transaction stays usable.
  const [row] = await prismaOf(db).user.createManyAndReturn({
    data: [
      {
        id: newId(),
        email,
        displayName: u.name ?? '',
        passwordHash: hash,
        role: u.role,
        mustChangePassword: u.mustChangePassword ?? temporaryPassword !== undefined,
        createdAt: now,
        updatedAt: now,
        passwordChangedAt: now,
      },
    ],
    skipDuplicates: true,
  });
  if (!row) throw new EmailTakenError(email);
  return { user: userRow(row), ...(temporaryPassword ? { temporaryPassword } : {}) };
}

export interface UserChange {
  role?: Role;
  disabled?: boolean;
  name?: string;
}

/**
 * Applies a change to a user; refuses (LastAdminError) one that would leave no
 * enabled admin. Disabling a user ends their sessions and revokes their API
 * tokens (enabling them again brings neither back: docs/operating/sso.md,
 * "When someone leaves"). Returns the user before and after.
 */
export async function updateUser(db: pg.Pool | PrismaClient, id: string, change: UserChange, now: Date): Promise<{ before: UserRow; after: UserRow }> {
  return (prismaOf(db) as PrismaClient).$transaction(async (tx) => {
    if (!(await lockUser(tx, id))) throw new UserNotFoundError(id);
    const before = userRow(await tx.user.findUniqueOrThrow({ where: { id } }));
    const role = change.role ?? before.role;
    const disabled = change.disabled ?? before.disabled;
    const wasActiveAdmin = before.role === 'admin' && !before.disabled;
    const staysActiveAdmin = role === 'admin' && !disabled;
    if (wasActiveAdmin && !staysActiveAdmin && (await lockOtherEnabledAdmins(tx, id)) === 0) throw new LastAdminError();
    const after = userRow(await tx.user.update({ where: { id }, data: { role, disabled, ...(change.name !== undefined ? { displayName: change.name } : {}), updatedAt: now } }));
    if (disabled && !before.disabled) {
      await tx.session.deleteMany({ where: { userId: id } });
      await tx.apiToken.updateMany({ where: { userId: id, revokedAt: null }, data: { revokedAt: now } });
    }
    return { before, after };
  });
}

/**
 * Sets a user's password. `temporary`: the user must change it at next login
 * (403 password_change_required elsewhere), and every session of theirs ends.
 */
export async function setPassword(db: IdentityDb, id: string, password: string, opts: { temporary: boolean; now: Date; keepSessionId?: string }): Promise<void> {
  const hash = await hashPassword(password);
  const prisma = prismaOf(db);
  const r = await prisma.user.updateMany({ where: { id }, data: { passwordHash: hash, mustChangePassword: opts.temporary, passwordChangedAt: opts.now, updatedAt: opts.now } });
  if (!r.count) throw new UserNotFoundError(id);
  await prisma.session.deleteMany({ where: { userId: id, ...(opts.keepSessionId !== undefined ? { id: { not: opts.keepSessionId } } : {}) } });
}

/**
 * Creates the first admin when no user exists yet (at start-up, from
 * SVC_ADMIN_EMAIL/SVC_ADMIN_PASSWORD or a generated one). Safe when several
 * instances start at once: one transaction-level lock, one check, one insert
 * (sql/bootstrap-admin.ts). Returns the user when this call created it.
 */
export async function bootstrapAdmin(pool: pg.Pool, admin: { email: string; password: string }, now: Date): Promise<UserRow | null> {
  const passwordHash = await hashPassword(admin.password);
  return insertFirstUser(pool, { email: normalizeEmail(admin.email), name: 'Administrator', passwordHash, role: 'admin', now });
}

/** Enables a user again (the CLI's password recovery: a reset also lifts a disable). */
export async function enableUser(db: IdentityDb, id: string): Promise<void> {
  await prismaOf(db).user.updateMany({ where: { id }, data: { disabled: false } });
}
