// Users of single sign-on (issue #34): created or updated from an IdP's claims
// at each login, linked to the IdP subject they signed in as (sso_identities),
// their global role re-computed from their groups. Raw SQL on the pool; the
// role change goes through updateUser, so the last-admin rule holds.
import type pg from 'pg';
import { randomBytes } from 'node:crypto';
import { createUser, findUserByEmail, findUserById, LastAdminError, normalizeEmail, ROLES, updateUser, type Role, type UserRow } from './users.js';

export interface GroupRole {
  group: string;
  role: Role;
}

/** The highest role any of the groups maps to, else the default. */
export function roleForGroups(groups: readonly string[], mapping: readonly GroupRole[], defaultRole: Role): Role {
  const have = new Set(groups);
  let best = -1;
  for (const m of mapping) if (have.has(m.group)) best = Math.max(best, ROLES.indexOf(m.role));
  return best >= 0 ? ROLES[best] : defaultRole;
}

export interface SsoClaims {
  issuer: string;
  subject: string;
  email: string;
  name: string;
  role: Role;
}

export interface SsoUpsert {
  user: UserRow;
  created: boolean;
  /** The role before, when this login changed it. */
  roleBefore?: Role;
  /** The role the groups asked for but the last-admin rule kept. */
  roleKept?: Role;
}

export class SsoEmailTakenError extends Error {
  constructor(email: string) {
    super(`${email} belongs to a user linked to another IdP subject`);
    this.name = 'SsoEmailTakenError';
  }
}

/**
 * The user of an SSO login: the one linked to (issuer, subject), else the one
 * with the (verified) email, else a new one with a password nobody knows.
 * Their role and name follow the claims. A disabled user is returned as is:
 * the caller refuses them.
 */
export async function upsertSsoUser(pool: pg.Pool, c: SsoClaims, now: Date): Promise<SsoUpsert> {
  const email = normalizeEmail(c.email);
  const linked = await pool.query<{ user_id: string }>(`SELECT user_id FROM sso_identities WHERE issuer = $1 AND subject = $2`, [c.issuer, c.subject]);
  let user: UserRow | null = linked.rows[0] ? await findUserById(pool, linked.rows[0].user_id) : null;
  let created = false;
  if (!user) {
    user = await findUserByEmail(pool, email);
    if (user) {
      const other = await pool.query(`SELECT 1 FROM sso_identities WHERE user_id = $1 AND issuer = $2 AND subject <> $3`, [user.id, c.issuer, c.subject]);
      if (other.rowCount) throw new SsoEmailTakenError(email);
    } else {
      user = (await createUser(pool, { email, role: c.role, name: c.name, password: randomBytes(32).toString('base64url'), mustChangePassword: false }, now)).user;
      created = true;
    }
  }
  await pool.query(
    `INSERT INTO sso_identities (issuer, subject, user_id, created_at, last_login_at) VALUES ($1, $2, $3, $4, $4)
     ON CONFLICT (issuer, subject) DO UPDATE SET last_login_at = EXCLUDED.last_login_at`,
    [c.issuer, c.subject, user.id, now],
  );
  if (user.disabled || created) return { user, created };
  const out: SsoUpsert = { user, created };
  const name = c.name && c.name !== user.display_name ? c.name : undefined;
  if (c.role !== user.role || name !== undefined) {
    try {
      out.user = (await updateUser(pool, user.id, { role: c.role, ...(name !== undefined ? { name } : {}) }, now)).after;
      if (c.role !== user.role) out.roleBefore = user.role;
    } catch (err) {
      if (!(err instanceof LastAdminError)) throw err;
      out.roleKept = user.role;
      if (name !== undefined) out.user = (await updateUser(pool, user.id, { name }, now)).after;
    }
  }
  return out;
}

/** Whether the password login is refused for this user: an SSO user while the settings say so. */
export async function passwordLoginRefused(pool: pg.Pool, userId: string): Promise<boolean> {
  const r = await pool.query(`SELECT 1 FROM sso_identities i JOIN sso_settings s ON s.id = 'oidc' AND s.password_login_disabled WHERE i.user_id = $1 LIMIT 1`, [userId]);
  return (r.rowCount ?? 0) > 0;
}

/** What an authorization request must find again at its callback: PKCE verifier, `state` and `nonce`. */
export interface SsoLoginState {
  code_verifier: string;
  state: string;
  nonce: string;
}

/** Stores a login's state under the hash of its cookie's id, first deleting states older than `ttlMs`. */
export async function saveSsoLoginState(pool: pg.Pool, idHash: string, s: SsoLoginState, now: Date, ttlMs: number): Promise<void> {
  await pool.query(`DELETE FROM sso_login_states WHERE created_at < $1`, [new Date(now.getTime() - ttlMs)]);
  await pool.query(`INSERT INTO sso_login_states (id_hash, code_verifier, state, nonce, created_at) VALUES ($1, $2, $3, $4, $5)`, [idHash, s.code_verifier, s.state, s.nonce, now]);
}

/** Takes a login's state once (a replayed callback finds none); undefined when missing or older than `ttlMs`. */
export async function takeSsoLoginState(pool: pg.Pool, idHash: string, now: Date, ttlMs: number): Promise<SsoLoginState | undefined> {
  const r = await pool.query<SsoLoginState & { created_at: Date }>(`DELETE FROM sso_login_states WHERE id_hash = $1 RETURNING code_verifier, state, nonce, created_at`, [idHash]);
  const row = r.rows[0];
  if (!row || now.getTime() - row.created_at.getTime() > ttlMs) return undefined;
  return { code_verifier: row.code_verifier, state: row.state, nonce: row.nonce };
}

/** True when the user has signed in through single sign-on at least once. */
export async function hasSsoIdentity(pool: pg.Pool, userId: string): Promise<boolean> {
  const r = await pool.query(`SELECT 1 FROM sso_identities WHERE user_id = $1 LIMIT 1`, [userId]);
  return (r.rowCount ?? 0) > 0;
}
