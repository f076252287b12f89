// Resolves the credential of a protected operation: a bearer API token, else
// the `svc_session` cookie (with the Origin check), else 401. Every failure of
// a credential is the same 401 `unauthorized`: the caller learns nothing about
// which tokens or sessions exist.
import type { Request, Response } from 'express';
import { parseCookie } from 'cookie';
import type { Operation } from '@svc/api-spec';
import type { Db } from '@svc/db';
import { forbidden, unauthorized } from '@svc/http';
import { API_TOKEN_PATTERN, findSessionCredential, findTokenCredential, lowerRole, SESSION_TOKEN_PATTERN, sha256, touchSession, touchToken, type Role } from '@svc/identity';
import type { AuthPrincipal } from './principal.js';
import { originAllowed } from './origin-check.js';
import { SESSION_COOKIE, setSessionCookie } from './session-cookie.js';

/** Operations a user with a temporary password may still call. */
export const ALLOWED_WITH_TEMPORARY_PASSWORD = new Set(['getMe', 'updateMe', 'changePassword', 'logout']);
/**
 * The account state every transport checks, in this one place: /api/v1
 * through the authenticator, /mcp (which authenticates without an
 * operation) and every operation the assistant or an MCP tool invokes. A
 * user with a temporary password may call only the operations above; with
 * no operation named (a whole transport such as /mcp), nothing.
 */
export function assertAccountUsable(principal: Pick<AuthPrincipal, 'mustChangePassword'>, operationId?: string): void {
  if (principal.mustChangePassword && !(operationId !== undefined && ALLOWED_WITH_TEMPORARY_PASSWORD.has(operationId))) {
    throw forbidden('set a new password first (POST /api/v1/auth/password)', 'password_change_required');
  }
}
/** Last-use stamps (and the sliding session expiry) are written at most this often. */
export const TOUCH_INTERVAL_MS = 60_000;

export interface AuthenticatorDeps {
  db: Db;
  publicUrl: string;
  sessionTtlMs: number;
  now: () => Date;
}

function bearerToken(header: string): string {
  const m = /^Bearer ([^\s]+)$/.exec(header);
  if (!m || !API_TOKEN_PATTERN.test(m[1])) throw unauthorized('invalid credential');
  return m[1];
}

export function createAuthenticator(deps: AuthenticatorDeps) {
  const { db } = deps;

  async function byToken(token: string): Promise<AuthPrincipal> {
    const row = await findTokenCredential(db.pool, sha256(token));
    const now = deps.now();
    if (!row || row.revoked_at || (row.expires_at && row.expires_at <= now) || row.disabled) throw unauthorized('invalid credential');
    if (!row.last_used_at || now.getTime() - row.last_used_at.getTime() > TOUCH_INTERVAL_MS) {
      await touchToken(db.pool, row.cred_id, now);
    }
    return {
      role: lowerRole(row.cred_role as Role, row.role),
      userRole: row.role,
      userId: row.user_id,
      email: row.email,
      name: row.display_name,
      authType: 'token',
      tokenRole: row.cred_role as Role,
      tokenId: row.cred_id,
      mustChangePassword: row.must_change_password,
    };
  }

  async function bySession(token: string, res: Response): Promise<AuthPrincipal> {
    if (!SESSION_TOKEN_PATTERN.test(token)) throw unauthorized('invalid credential');
    const row = await findSessionCredential(db.pool, sha256(token));
    const now = deps.now();
    if (!row || !row.expires_at || row.expires_at <= now || row.disabled) throw unauthorized('invalid credential');
    // Sliding lifetime: each use extends the session to SVC_SESSION_TTL from now
    // (written at most once a minute), and the cookie is refreshed to match.
    if (!row.last_used_at || now.getTime() - row.last_used_at.getTime() > TOUCH_INTERVAL_MS) {
      await touchSession(db.pool, row.cred_id, now, new Date(now.getTime() + deps.sessionTtlMs));
      setSessionCookie(res, token, { publicUrl: deps.publicUrl, ttlMs: deps.sessionTtlMs });
    }
    return {
      role: row.role,
      userRole: row.role,
      userId: row.user_id,
      email: row.email,
      name: row.display_name,
      authType: 'session',
      sessionId: row.cred_id,
      mustChangePassword: row.must_change_password,
    };
  }

  /** Resolves the principal of a request, or throws 401 / 403 in the envelope. */
  return async function authenticate(req: Request, op?: Operation): Promise<AuthPrincipal> {
    const header = req.headers.authorization;
    let principal: AuthPrincipal;
    if (header !== undefined) {
      principal = await byToken(bearerToken(header));
    } else {
      let cookies: Record<string, string | undefined> = {};
      try {
        cookies = parseCookie(req.headers.cookie ?? '');
      } catch {
        throw unauthorized('invalid credential');
      }
      const token = cookies[SESSION_COOKIE];
      if (token === undefined) throw unauthorized('authentication required: a session cookie or a bearer API token');
      if (!originAllowed(req, deps.publicUrl)) throw forbidden('cookie request failed the Origin check', 'csrf_failed');
      principal = await bySession(token, req.res!);
    }
    assertAccountUsable(principal, op?.operationId);
    return principal;
  };
}

export type Authenticate = ReturnType<typeof createAuthenticator>;
