// Namespace-scoped roles: a user, or an IdP group, gets a role on
// a namespace and its children. A caller's role for a namespace is the highest
// of its global role and the bindings that cover it (the namespace itself or
// an ancestor: `a.b` covers `a.b.c`); a token's is then lowered to the
// token's role. Bindings only raise a role: without them, every rule stays as it
// was (docs/operating/roles.md). A caller whose global role is `none` reads
// only the namespaces its bindings cover (readableNamespaces). Raw SQL on the
// pool.
import type pg from 'pg';
import { newId } from '@svc/db';
import { namespaceCovers } from '@svc/vocabulary';
import { lowerRole, ROLES, type BindingRole, type Role } from './users.js';

export interface RoleBindingRow {
  id: string;
  namespace: string;
  user_id: string | null;
  /** The user's email, for a user binding. */
  user_email: string | null;
  group_name: string | null;
  role: BindingRole;
  created_by: string;
  created_at: Date;
}

/** The higher of two roles. */
export function higherRole<R extends Role>(a: R, b: R): R {
  return ROLES.indexOf(a) >= ROLES.indexOf(b) ? a : b;
}

/** `a.b.c` → [`a`, `a.b`, `a.b.c`]: the namespaces whose bindings cover it. */
export function coveringNamespaces(namespace: string): string[] {
  const parts = namespace.split('.');
  return parts.map((_, i) => parts.slice(0, i + 1).join('.'));
}

const SELECT = `SELECT b.id, b.namespace, b.user_id, u.email AS user_email, b.group_name, b.role, b.created_by, b.created_at
  FROM role_bindings b LEFT JOIN users u ON u.id = b.user_id`;

export async function listRoleBindings(pool: pg.Pool, q: { namespace?: string; userId?: string; group?: string } = {}): Promise<RoleBindingRow[]> {
  const where: string[] = [];
  const args: unknown[] = [];
  if (q.namespace !== undefined) where.push(`b.namespace = $${args.push(q.namespace)}`);
  if (q.userId !== undefined) where.push(`b.user_id = $${args.push(q.userId)}`);
  if (q.group !== undefined) where.push(`b.group_name = $${args.push(q.group)}`);
  const r = await pool.query<RoleBindingRow>(`${SELECT}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY b.namespace, u.email NULLS LAST, b.group_name, b.id`, args);
  return r.rows;
}

export async function findRoleBinding(pool: pg.Pool, id: string): Promise<RoleBindingRow | null> {
  const r = await pool.query<RoleBindingRow>(`${SELECT} WHERE b.id = $1`, [id]);
  return r.rows[0] ?? null;
}

export class RoleBindingExistsError extends Error {
  constructor() {
    super('this user or group already has a binding on this namespace');
    this.name = 'RoleBindingExistsError';
  }
}

/** Creates a binding for exactly one of `userId`, `group`; a second one for the same subject and namespace is refused. */
export async function createRoleBinding(
  pool: pg.Pool,
  b: { namespace: string; userId?: string; group?: string; role: BindingRole; createdBy: string },
  now: Date,
): Promise<RoleBindingRow> {
  const id = newId();
  try {
    await pool.query(`INSERT INTO role_bindings (id, namespace, user_id, group_name, role, created_by, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
      id,
      b.namespace,
      b.userId ?? null,
      b.group ?? null,
      b.role,
      b.createdBy,
      now,
    ]);
  } catch (err) {
    if ((err as { code?: string }).code === '23505') throw new RoleBindingExistsError();
    throw err;
  }
  // There is a binding now: this process stops believing there is none (raisedNamespaces).
  emptyUntil.delete(pool);
  return (await findRoleBinding(pool, id))!;
}

/** Deletes a binding; the deleted row, or null when there was none. */
export async function deleteRoleBinding(pool: pg.Pool, id: string): Promise<RoleBindingRow | null> {
  const row = await findRoleBinding(pool, id);
  if (!row) return null;
  const r = await pool.query(`DELETE FROM role_bindings WHERE id = $1`, [id]);
  return r.rowCount ? row : null;
}

/** Replaces the IdP groups of a user (called at each single sign-on with the groups claim). */
export async function setUserGroups(pool: pg.Pool, userId: string, groups: readonly string[]): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(`DELETE FROM user_groups WHERE user_id = $1`, [userId]);
    const unique = [...new Set(groups.filter((g) => g.length > 0))];
    if (unique.length) await client.query(`INSERT INTO user_groups (user_id, group_name) SELECT $1, unnest($2::text[])`, [userId, unique]);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

export async function userGroups(pool: pg.Pool, userId: string): Promise<string[]> {
  const r = await pool.query<{ group_name: string }>(`SELECT group_name FROM user_groups WHERE user_id = $1 ORDER BY group_name`, [userId]);
  return r.rows.map((x) => x.group_name);
}

/** Who is asking: the user's own global role and, for an API token, the token's role. */
export interface RoleSubject {
  userId: string;
  userRole: Role;
  tokenRole?: Role;
}

/**
 * The highest role a binding gives the user (directly or through a group) on
 * one of `namespaces` or an ancestor of it; null when none covers them.
 * Without `namespaces`, over every binding the user has (anywhere).
 */
export async function boundRole(pool: pg.Pool, userId: string, namespace?: string): Promise<Role | null> {
  const args: unknown[] = [userId];
  const scope = namespace === undefined ? '' : ` AND b.namespace = ANY($${args.push(coveringNamespaces(namespace))}::text[])`;
  const r = await pool.query<{ role: Role }>(
    `SELECT b.role FROM role_bindings b
      WHERE (b.user_id = $1 OR b.group_name IN (SELECT group_name FROM user_groups WHERE user_id = $1))${scope}`,
    args,
  );
  let best: Role | null = null;
  for (const { role } of r.rows) best = best === null ? role : higherRole(best, role);
  return best;
}

/**
 * The caller's role on `namespace` (or, without one, the highest it has on
 * any namespace): the higher of its global role and the bindings covering
 * it, lowered to the token's role for a token.
 */
export async function namespaceRole(pool: pg.Pool, s: RoleSubject, namespace?: string): Promise<Role> {
  const bound = s.userRole === 'admin' ? null : await boundRole(pool, s.userId, namespace);
  const own = bound === null ? s.userRole : higherRole(s.userRole, bound);
  return s.tokenRole === undefined ? own : lowerRole(s.tokenRole, own);
}

export interface NamespaceRoleGrant {
  namespace: string;
  role: BindingRole;
}

/** How long "there is no binding at all" is believed before asking again; for what to show only (getMe), never for a check. */
const EMPTY_TTL_MS = 5_000;
const emptyUntil = new WeakMap<pg.Pool, number>();

/**
 * The namespaces where a binding raises the caller above its global role
 * (its own bindings and its groups'), each with the role it has there (lowered
 * to a token's role); a namespace whose role the global one already gives is
 * left out. No query for an admin, nor (for a few seconds after one saw none,
 * and not for a `none` caller) while there is no binding at all. For showing what a caller may do (the web
 * UI's buttons); the role check itself is namespaceRole's.
 */
export async function raisedNamespaces(pool: pg.Pool, s: RoleSubject): Promise<NamespaceRoleGrant[]> {
  const own = s.tokenRole === undefined ? s.userRole : lowerRole(s.tokenRole, s.userRole);
  if (s.userRole === 'admin' || own === 'admin') return [];
  // A `none` caller reads only what these name: never from the "no binding at all" shortcut, which may be a few seconds old.
  if (own !== 'none' && Date.now() < (emptyUntil.get(pool) ?? 0)) return [];
  const any = await pool.query(`SELECT 1 FROM role_bindings LIMIT 1`);
  if (!any.rowCount) {
    emptyUntil.set(pool, Date.now() + EMPTY_TTL_MS);
    return [];
  }
  const r = await pool.query<{ namespace: string; role: BindingRole }>(
    `SELECT b.namespace, b.role FROM role_bindings b
      WHERE b.user_id = $1 OR b.group_name IN (SELECT group_name FROM user_groups WHERE user_id = $1)`,
    [s.userId],
  );
  const best = new Map<string, BindingRole>();
  for (const { namespace, role } of r.rows) {
    const capped = s.tokenRole === undefined ? role : lowerRole(s.tokenRole, role);
    // A `none` token caps every binding to nothing: no grant.
    if (capped === 'none') continue;
    const prev = best.get(namespace);
    best.set(namespace, prev === undefined ? capped : higherRole(prev, capped));
  }
  return [...best]
    .filter(([, role]) => ROLES.indexOf(role) > ROLES.indexOf(own))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([namespace, role]) => ({ namespace, role }));
}

/**
 * The namespaces (each with its children) where the caller holds at least
 * `min`, for an operation that acts only there (bulkExecutions): null when its
 * own role (for a token, the lower of the token's and the owner's) is `min` or
 * more, which holds it everywhere (no query). Otherwise the namespaces of its
 * bindings and its groups' whose role (lowered to a token's) reaches `min`,
 * without those another one covers. Always asked of the table, never of the
 * "no binding at all" shortcut: it decides what an operation touches.
 */
export async function namespacesWithRole(pool: pg.Pool, s: RoleSubject, min: Role): Promise<string[] | null> {
  const own = s.tokenRole === undefined ? s.userRole : lowerRole(s.tokenRole, s.userRole);
  if (ROLES.indexOf(own) >= ROLES.indexOf(min)) return null;
  const r = await pool.query<{ namespace: string; role: BindingRole }>(
    `SELECT b.namespace, b.role FROM role_bindings b
      WHERE b.user_id = $1 OR b.group_name IN (SELECT group_name FROM user_groups WHERE user_id = $1)`,
    [s.userId],
  );
  const all = r.rows.filter((b) => ROLES.indexOf(s.tokenRole === undefined ? b.role : lowerRole(s.tokenRole, b.role)) >= ROLES.indexOf(min)).map((b) => b.namespace);
  return [...new Set(all)].filter((n) => !all.some((m) => m !== n && namespaceCovers(m, n))).sort();
}

/**
 * The namespaces a caller may read, each with its children: null when its
 * role (for a token, the lower of the token's and the owner's) is at least
 * `viewer`, which reads every namespace (no query). Otherwise (global role
 * `none`) the namespaces of its bindings and its groups' (every binding gives
 * at least viewer), without those another one covers; empty for a `none`
 * token, which reads nothing.
 */
export async function readableNamespaces(pool: pg.Pool, s: RoleSubject): Promise<string[] | null> {
  const own = s.tokenRole === undefined ? s.userRole : lowerRole(s.tokenRole, s.userRole);
  if (own !== 'none') return null;
  if (s.tokenRole === 'none') return [];
  const r = await pool.query<{ namespace: string }>(
    `SELECT DISTINCT b.namespace FROM role_bindings b
      WHERE b.user_id = $1 OR b.group_name IN (SELECT group_name FROM user_groups WHERE user_id = $1)`,
    [s.userId],
  );
  const all = r.rows.map((x) => x.namespace);
  return all.filter((n) => !all.some((m) => m !== n && namespaceCovers(m, n))).sort();
}
