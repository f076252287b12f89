// Users: creation, role and status changes with the last-admin rule, password
// resets. Used by the API and by the CLI's recovery commands alike.
import { inTransaction, newId, type Queryable } from '@svc/db';

export { inTransaction };
import type pg from 'pg';
import { generatePassword, hashPassword } from './passwords.js';

export const ROLES = ['viewer', 'operator', 'editor', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(x: unknown): x is Role {
  return typeof x === 'string' && (ROLES as readonly string[]).includes(x);
}

/** The lower of two roles (a token never acts above its owner). */
export function lowerRole(a: Role, b: Role): Role {
  return ROLES.indexOf(a) <= ROLES.indexOf(b) ? a : b;
}

export interface UserRow {
  id: string;
  email: string;
  display_name: string;
  password_hash: string;
  role: Role;
  disabled: boolean;
  must_change_password: boolean;
  created_at: Date;
  last_login_at: Date | null;
}

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

const USER_COLUMNS = 'id, email, display_name, password_hash, role, disabled, must_change_password, created_at, last_login_at';

export async function findUserByEmail(db: Queryable, email: string): Promise<UserRow | null> {
  const r = await db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE email = $1`, [normalizeEmail(email)]);
  return r.rows[0] ?? null;
}

export async function findUserById(db: Queryable, id: string): Promise<UserRow | null> {
  const r = await db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE id = $1`, [id]);
  return r.rows[0] ?? null;
}


export interface NewUser {
  email: string;
  role: Role;
  name?: string;
  /** Absent: a temporary password is generated, returned once, and must be changed at first login. */
  password?: string;
  mustChangePassword?: boolean;
}

export async function createUser(db: Queryable, u: NewUser, now: Date): Promise<{ user: UserRow; temporaryPassword?: string }> {
  const temporaryPassword = u.password === undefined ? generatePassword() : undefined;
  const hash = await hashPassword(u.password ?? temporaryPassword!);
  const email = normalizeEmail(u.email);
  const r = await db.query<UserRow>(
    `INSERT INTO users (id, email, display_name, password_hash, role, must_change_password, created_at, updated_at, password_changed_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $7)
     ON CONFLICT (email) DO NOTHING
     RETURNING ${USER_COLUMNS}`,
    [newId(), email, u.name ?? '', hash, u.role, u.mustChangePassword ?? temporaryPassword !== undefined, now],
  );
  if (!r.rows[0]) throw new EmailTakenError(email);
  return { user: r.rows[0], ...(temporaryPassword ? { temporaryPassword } : {}) };
}

/** Enabled admins other than `exceptId`, counted under a lock so two concurrent demotions cannot both pass. */
async function otherEnabledAdmins(c: pg.PoolClient, exceptId: string): Promise<number> {
  const r = await c.query(`SELECT id FROM users WHERE role = 'admin' AND NOT disabled AND id <> $1 FOR UPDATE`, [exceptId]);
  return r.rowCount ?? 0;
}

export interface UserChange {
  role?: Role;
  disabled?: boolean;
  name?: string;
}

/**
 * Applies a change to a user; refuses (LastAdminError) one that would leave no
 * enabled admin. Disabling a user ends their sessions. Returns the user before
 * and after.
 */
export async function updateUser(pool: pg.Pool, id: string, change: UserChange, now: Date): Promise<{ before: UserRow; after: UserRow }> {
  return inTransaction(pool, async (c) => {
    const before = (await c.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE id = $1 FOR UPDATE`, [id])).rows[0];
    if (!before) throw new UserNotFoundError(id);
    const role = change.role ?? before.role;
    const disabled = change.disabled ?? before.disabled;
    const wasActiveAdmin = before.role === 'admin' && !before.disabled;
    const staysActiveAdmin = role === 'admin' && !disabled;
    if (wasActiveAdmin && !staysActiveAdmin && (await otherEnabledAdmins(c, id)) === 0) throw new LastAdminError();
    const after = (
      await c.query<UserRow>(
        `UPDATE users SET role = $2, disabled = $3, display_name = COALESCE($4, display_name), updated_at = $5 WHERE id = $1 RETURNING ${USER_COLUMNS}`,
        [id, role, disabled, change.name ?? null, now],
      )
    ).rows[0]!;
    if (disabled && !before.disabled) await c.query(`DELETE FROM sessions WHERE user_id = $1`, [id]);
    return { before, after };
  });
}

/**
 * Sets a user's password. `temporary`: the user must change it at next login
 * (403 password_change_required elsewhere), and every session of theirs ends.
 */
export async function setPassword(db: Queryable, id: string, password: string, opts: { temporary: boolean; now: Date; keepSessionId?: string }): Promise<void> {
  const hash = await hashPassword(password);
  const r = await db.query(`UPDATE users SET password_hash = $2, must_change_password = $3, password_changed_at = $4, updated_at = $4 WHERE id = $1`, [id, hash, opts.temporary, opts.now]);
  if (!r.rowCount) throw new UserNotFoundError(id);
  await db.query(`DELETE FROM sessions WHERE user_id = $1 AND id IS DISTINCT FROM $2`, [id, opts.keepSessionId ?? null]);
}

/**
 * Creates the first admin when no user exists yet (at start-up, from
 * SVC_ADMIN_EMAIL/SVC_ADMIN_PASSWORD or a generated one). Safe when several
 * instances start at once: one transaction-level lock, one check, one insert.
 * Returns the user when this call created it.
 */
export async function bootstrapAdmin(pool: pg.Pool, admin: { email: string; password: string }, now: Date): Promise<UserRow | null> {
  return inTransaction(pool, async (c) => {
    await c.query(`SELECT pg_advisory_xact_lock(hashtextextended('svc-bootstrap-admin', 0))`);
    const any = await c.query(`SELECT 1 FROM users LIMIT 1`);
    if (any.rowCount) return null;
    const { user } = await createUser(c, { email: admin.email, role: 'admin', password: admin.password, name: 'Administrator' }, now);
    return user;
  });
}
