// The admin's OpenID Connect settings of single sign-on (sso_settings, one
// row with id 'oidc'): read, written and deleted here only; the gateway's OIDC
// client (apps/api-gateway/src/identity/oidc.ts) and routes call these.
import type pg from 'pg';
import type { GroupRole } from './sso.js';
import type { Role } from './users.js';

export interface OidcSettingsRow {
  enabled: boolean;
  displayName: string;
  issuerUrl: string;
  clientId: string;
  clientSecretSecret: string;
  scopes: string[];
  groupsClaim: string;
  passwordLoginDisabled: boolean;
  defaultRole: Role;
  groupRoles: GroupRole[];
  /** Sign-up controls (docs/operating/sso.md, "Who may sign in"). */
  linkByEmail: boolean;
  allowedEmailDomains: string[];
  googleHd: string;
  entraTid: string;
  existingUsersOnly: boolean;
  sessionMaxAgeSeconds: number | null;
  updatedBy: string;
  updatedAt: Date;
}

interface DbRow {
  enabled: boolean;
  display_name: string;
  issuer_url: string;
  client_id: string;
  client_secret_secret: string;
  scopes: string[] | null;
  groups_claim: string;
  password_login_disabled: boolean;
  default_role: string;
  group_roles: GroupRole[];
  link_by_email: boolean;
  allowed_email_domains: string[] | null;
  google_hd: string;
  entra_tid: string;
  existing_users_only: boolean;
  session_max_age_seconds: number | null;
  updated_by: string;
  updated_at: Date;
}

const fromDb = (r: DbRow): OidcSettingsRow => ({
  enabled: r.enabled,
  displayName: r.display_name,
  issuerUrl: r.issuer_url,
  clientId: r.client_id,
  clientSecretSecret: r.client_secret_secret,
  scopes: r.scopes ?? [],
  groupsClaim: r.groups_claim,
  passwordLoginDisabled: r.password_login_disabled,
  defaultRole: r.default_role as Role,
  groupRoles: r.group_roles,
  linkByEmail: r.link_by_email,
  allowedEmailDomains: r.allowed_email_domains ?? [],
  googleHd: r.google_hd,
  entraTid: r.entra_tid,
  existingUsersOnly: r.existing_users_only,
  sessionMaxAgeSeconds: r.session_max_age_seconds,
  updatedBy: r.updated_by,
  updatedAt: r.updated_at,
});

export async function readOidcSettings(pool: pg.Pool): Promise<OidcSettingsRow | undefined> {
  const r = await pool.query<DbRow>(`SELECT * FROM sso_settings WHERE id = 'oidc'`);
  return r.rows[0] ? fromDb(r.rows[0]) : undefined;
}

export async function writeOidcSettings(pool: pg.Pool, s: Omit<OidcSettingsRow, 'updatedAt'>, now: Date): Promise<OidcSettingsRow> {
  const r = await pool.query<DbRow>(
    `INSERT INTO sso_settings (id, enabled, display_name, issuer_url, client_id, client_secret_secret, scopes, groups_claim, password_login_disabled, default_role, group_roles, updated_by, created_at, updated_at,
       link_by_email, allowed_email_domains, google_hd, entra_tid, existing_users_only, session_max_age_seconds)
     VALUES ('oidc', $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12, $13, $14, $15, $16, $17, $18)
     ON CONFLICT (id) DO UPDATE SET enabled = $1, display_name = $2, issuer_url = $3, client_id = $4, client_secret_secret = $5, scopes = $6, groups_claim = $7,
       password_login_disabled = $8, default_role = $9, group_roles = $10, updated_by = $11, updated_at = $12,
       link_by_email = $13, allowed_email_domains = $14, google_hd = $15, entra_tid = $16, existing_users_only = $17, session_max_age_seconds = $18
     RETURNING *`,
    [
      s.enabled,
      s.displayName,
      s.issuerUrl,
      s.clientId,
      s.clientSecretSecret,
      s.scopes,
      s.groupsClaim,
      s.passwordLoginDisabled,
      s.defaultRole,
      JSON.stringify(s.groupRoles),
      s.updatedBy,
      now,
      s.linkByEmail,
      s.allowedEmailDomains,
      s.googleHd,
      s.entraTid,
      s.existingUsersOnly,
      s.sessionMaxAgeSeconds,
    ],
  );
  return fromDb(r.rows[0]);
}

export async function deleteOidcSettings(pool: pg.Pool): Promise<boolean> {
  return ((await pool.query(`DELETE FROM sso_settings WHERE id = 'oidc'`)).rowCount ?? 0) > 0;
}
