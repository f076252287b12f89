// Users of single sign-on: created or updated from an IdP's claims
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

/** The sign-up rules of the settings that decide what a login of an unlinked identity may do (docs/operating/sso.md). */
export interface SsoLinkRules {
  /** Link an unlinked identity to the non-admin user with its verified email. Off: refused (link_required). */
  linkByEmail: boolean;
  /** Create no user: an identity that is not linked (and not linked now by email) is refused (no_account). */
  existingUsersOnly: boolean;
}

export interface SsoUpsert {
  user: UserRow;
  created: boolean;
  /** True when this login linked the identity to an existing user by email (link_by_email). */
  linkedByEmail?: boolean;
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
 * An unlinked identity whose email is an existing user's, and linking by
 * email is off or the user is an admin: the user links it from their profile.
 */
export class SsoLinkRequiredError extends Error {
  constructor(
    readonly email: string,
    readonly admin: boolean,
  ) {
    super(
      admin
        ? `${email} is an admin account: an IdP identity is never linked to it by email; the admin links it from their profile`
        : `${email} is an existing account: sign in with its password and link the IdP identity from the profile`,
    );
    this.name = 'SsoLinkRequiredError';
  }
}

/** existing_users_only: the identity is no user's, and no user is created. */
export class SsoNoAccountError extends Error {
  constructor(readonly email: string) {
    super(`no user is linked to this IdP identity nor has the email ${email}, and the settings create no users`);
    this.name = 'SsoNoAccountError';
  }
}

/** The identity is linked to another user (a profile link). */
export class SsoIdentityTakenError extends Error {
  constructor() {
    super('this IdP identity is linked to another user');
    this.name = 'SsoIdentityTakenError';
  }
}

/** The user already has another identity at this issuer (a profile link). */
export class SsoAlreadyLinkedError extends Error {
  constructor() {
    super('the account is already linked to another identity of this IdP');
    this.name = 'SsoAlreadyLinkedError';
  }
}

async function linkIdentity(pool: pg.Pool, c: Pick<SsoClaims, 'issuer' | 'subject'>, userId: string, now: Date): Promise<void> {
  await pool.query(
    `INSERT INTO sso_identities (issuer, subject, user_id, created_at, last_login_at) VALUES ($1, $2, $3, $4, $4)
     ON CONFLICT (issuer, subject) DO UPDATE SET last_login_at = EXCLUDED.last_login_at`,
    [c.issuer, c.subject, userId, now],
  );
}

/**
 * The user of an SSO login: the one linked to (issuer, subject); else, with
 * `linkByEmail`, the non-admin user with the (verified) email, linked now;
 * else a new one with a password nobody knows, unless `existingUsersOnly`.
 * An existing user with the email is never linked otherwise
 * (SsoLinkRequiredError): an IdP account with an admin's email must not
 * become that admin. Their role and name follow the claims. A disabled user
 * is returned as is: the caller refuses them.
 */
export async function upsertSsoUser(pool: pg.Pool, c: SsoClaims, rules: SsoLinkRules, now: Date): Promise<SsoUpsert> {
  const email = normalizeEmail(c.email);
  const linked = await pool.query<{ user_id: string }>(`SELECT user_id FROM sso_identities WHERE issuer = $1 AND subject = $2`, [c.issuer, c.subject]);
  let user: UserRow | null = linked.rows[0] ? await findUserById(pool, linked.rows[0].user_id) : null;
  let created = false;
  let linkedByEmail = false;
  if (!user) {
    user = await findUserByEmail(pool, email);
    if (user) {
      if (!rules.linkByEmail || user.role === 'admin') throw new SsoLinkRequiredError(email, user.role === 'admin');
      const other = await pool.query(`SELECT 1 FROM sso_identities WHERE user_id = $1 AND issuer = $2 AND subject <> $3`, [user.id, c.issuer, c.subject]);
      if (other.rowCount) throw new SsoEmailTakenError(email);
      linkedByEmail = true;
    } else {
      if (rules.existingUsersOnly) throw new SsoNoAccountError(email);
      user = (await createUser(pool, { email, role: c.role, name: c.name, password: randomBytes(32).toString('base64url'), mustChangePassword: false }, now)).user;
      created = true;
    }
  }
  await linkIdentity(pool, c, user.id, now);
  if (user.disabled || created) return { user, created };
  const out: SsoUpsert = { user, created, ...(linkedByEmail ? { linkedByEmail } : {}) };
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

/**
 * Links an IdP identity to a signed-in user who asked for it from their
 * profile (the only way an existing admin gets one). Refused when the
 * identity is another user's, or the user has another identity at this
 * issuer. Returns false when it was already this user's.
 */
export async function linkSsoIdentityToUser(pool: pg.Pool, c: Pick<SsoClaims, 'issuer' | 'subject'>, userId: string, now: Date): Promise<boolean> {
  const linked = await pool.query<{ user_id: string }>(`SELECT user_id FROM sso_identities WHERE issuer = $1 AND subject = $2`, [c.issuer, c.subject]);
  if (linked.rows[0]) {
    if (linked.rows[0].user_id !== userId) throw new SsoIdentityTakenError();
    return false;
  }
  const other = await pool.query(`SELECT 1 FROM sso_identities WHERE user_id = $1 AND issuer = $2`, [userId, c.issuer]);
  if (other.rowCount) throw new SsoAlreadyLinkedError();
  await pool.query(`INSERT INTO sso_identities (issuer, subject, user_id, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (issuer, subject) DO NOTHING`, [
    c.issuer,
    c.subject,
    userId,
    now,
  ]);
  const again = await pool.query<{ user_id: string }>(`SELECT user_id FROM sso_identities WHERE issuer = $1 AND subject = $2`, [c.issuer, c.subject]);
  if (again.rows[0]?.user_id !== userId) throw new SsoIdentityTakenError();
  return true;
}

/** The identities linked to a user (issuer and when linked), oldest first. */
export async function ssoIdentitiesOf(pool: pg.Pool, userId: string): Promise<{ issuer: string; created_at: Date; last_login_at: Date | null }[]> {
  const r = await pool.query<{ issuer: string; created_at: Date; last_login_at: Date | null }>(
    `SELECT issuer, created_at, last_login_at FROM sso_identities WHERE user_id = $1 ORDER BY created_at, issuer`,
    [userId],
  );
  return r.rows;
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
  /** Set when a signed-in user started the login to link the identity to their account. */
  link_user_id?: string;
}

/** Stores a login's state under the hash of its cookie's id, first deleting states older than `ttlMs`. */
export async function saveSsoLoginState(pool: pg.Pool, idHash: string, s: SsoLoginState, now: Date, ttlMs: number): Promise<void> {
  await pool.query(`DELETE FROM sso_login_states WHERE created_at < $1`, [new Date(now.getTime() - ttlMs)]);
  await pool.query(`INSERT INTO sso_login_states (id_hash, code_verifier, state, nonce, link_user_id, created_at) VALUES ($1, $2, $3, $4, $5, $6)`, [
    idHash,
    s.code_verifier,
    s.state,
    s.nonce,
    s.link_user_id ?? null,
    now,
  ]);
}

/** Takes a login's state once (a replayed callback finds none); undefined when missing or older than `ttlMs`. */
export async function takeSsoLoginState(pool: pg.Pool, idHash: string, now: Date, ttlMs: number): Promise<SsoLoginState | undefined> {
  const r = await pool.query<Omit<SsoLoginState, 'link_user_id'> & { link_user_id: string | null; created_at: Date }>(
    `DELETE FROM sso_login_states WHERE id_hash = $1 RETURNING code_verifier, state, nonce, link_user_id, created_at`,
    [idHash],
  );
  const row = r.rows[0];
  if (!row || now.getTime() - row.created_at.getTime() > ttlMs) return undefined;
  return { code_verifier: row.code_verifier, state: row.state, nonce: row.nonce, ...(row.link_user_id ? { link_user_id: row.link_user_id } : {}) };
}

/** True when the user has signed in through single sign-on at least once. */
export async function hasSsoIdentity(pool: pg.Pool, userId: string): Promise<boolean> {
  const r = await pool.query(`SELECT 1 FROM sso_identities WHERE user_id = $1 LIMIT 1`, [userId]);
  return (r.rowCount ?? 0) > 0;
}
