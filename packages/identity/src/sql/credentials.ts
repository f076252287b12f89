// The credential lookups every authenticated request makes, and the touches
// that slide a session and stamp a token's last use (at most once a minute).
// Hand-written: they are on the path of every API call, and the token lookup
// is a named prepared statement.
import type { Queryable } from '@svc/db';
import type { Role } from '../users.js';

export interface CredentialRow {
  /** The token's or the session's id. */
  cred_id: string;
  /** A token's own role; null for a session. */
  cred_role: Role | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
  user_id: string;
  email: string;
  display_name: string;
  role: Role;
  disabled: boolean;
  must_change_password: boolean;
}

/** The API token with this SHA-256 and its owner. */
export async function findTokenCredential(db: Queryable, hash: string): Promise<CredentialRow | undefined> {
  const r = await db.query<CredentialRow>({
    name: 'svc-auth-token',
    text: `SELECT t.id AS cred_id, t.role AS cred_role, t.expires_at, t.revoked_at, t.last_used_at,
            u.id AS user_id, u.email, u.display_name, u.role, u.disabled, u.must_change_password
     FROM api_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = $1`,
    values: [hash],
  });
  return r.rows[0];
}

/** The session with this SHA-256 and its user. */
export async function findSessionCredential(db: Queryable, hash: string): Promise<CredentialRow | undefined> {
  const r = await db.query<CredentialRow>(
    `SELECT s.id AS cred_id, NULL AS cred_role, s.expires_at, NULL AS revoked_at, s.last_used_at,
            u.id AS user_id, u.email, u.display_name, u.role, u.disabled, u.must_change_password
     FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.token_hash = $1`,
    [hash],
  );
  return r.rows[0];
}

export async function touchToken(db: Queryable, id: string, now: Date): Promise<void> {
  await db.query(`UPDATE api_tokens SET last_used_at = $2 WHERE id = $1`, [id, now]);
}

/** Stamps the use and moves the expiry (sliding lifetime), never past the session's max_expires_at (LEAST ignores a null). */
export async function touchSession(db: Queryable, id: string, now: Date, expiresAt: Date): Promise<void> {
  await db.query(`UPDATE sessions SET last_used_at = $2, expires_at = LEAST($3, max_expires_at) WHERE id = $1`, [id, now, expiresAt]);
}
