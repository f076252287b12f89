// Single sign-on through OpenID Connect (docs/operating/sso.md). The admin's settings and
// the logout are operations of the catalog (operations/sso.ts); the browser's
// two navigations, to the IdP and back, are plain routes (ssoRouter below):
// they answer with redirects, never JSON.
//
// A login: GET /api/v1/sso/oidc/login runs passport with openid-client's
// strategy, which builds the authorization URL (PKCE S256, state, nonce); the
// verifier, state and nonce go in sso_login_states under the hash of a random
// `svc_oidc` cookie (HttpOnly, 10 minutes, path of the callback). The IdP sends
// the browser to /callback: the row is taken (deleted, so it serves once), and
// the strategy checks state, exchanges the code with the verifier and checks
// the ID token (signature with the issuer's keys, iss, aud, exp, nonce). The
// user is then found, linked or created from the claims under the sign-up
// controls (email_verified required; no automatic link by email unless
// link_by_email, and never to an admin) and gets an svc session like a
// password login's, capped by session_max_age_seconds.
//
// A link (POST /api/v1/sso/oidc/link, from a signed-in user's profile) starts
// the same login with the user's id in its state row; its callback links the
// identity that signed in at the IdP to that user, provided the browser still
// holds that user's session, and sends the browser back to /profile.
import { randomBytes } from 'node:crypto';
import express, { type Request, type Response, type Router } from 'express';
import { parseCookie, stringifySetCookie } from 'cookie';
import { Passport } from 'passport';
import * as client from 'openid-client';
import type { Db } from '@svc/db';
import { newId } from '@svc/db';
import type { MasterKey } from '@svc/config';
import { conflict, notFound, reply, validationFailed, type OperationHandlers } from '@svc/http';
import { PlatformSecretStore } from '@svc/secrets';
import {
  createSession,
  deleteSession,
  findSessionCredential,
  generateSessionToken,
  hasSsoIdentity,
  linkSsoIdentityToUser,
  recordAudit,
  roleForGroups,
  saveSsoLoginState,
  SESSION_TOKEN_PATTERN,
  setUserGroups,
  sha256,
  SsoAlreadyLinkedError,
  SsoEmailTakenError,
  ssoIdentitiesOf,
  SsoIdentityTakenError,
  SsoLinkRequiredError,
  SsoNoAccountError,
  takeSsoLoginState,
  upsertSsoUser,
  type SsoLoginState,
} from '@svc/identity';
import type { Logger } from '@svc/logging';
import type { AuthPrincipal } from '../identity/principal.js';
import { clearSessionCookie, SESSION_COOKIE, setSessionCookie } from '../identity/session-cookie.js';
import {
  deleteOidcSettings,
  groupsOf,
  issuerProblem,
  LOGIN_STATE_TTL_MS,
  OIDC_CALLBACK_PATH,
  OIDC_LOGIN_PATH,
  OidcClient,
  readOidcSettings,
  scopeOf,
  signUpRefusal,
  SvcOidcStrategy,
  writeOidcSettings,
  type LoginState,
  type OidcSettingsRow,
} from '../identity/oidc.js';
import { auditContext } from './audit.js';
import type { RequestBody, Schemas } from '@svc/api-spec';

export const OIDC_STATE_COOKIE = 'svc_oidc';

export interface SsoDeps {
  db: Db;
  publicUrl: string;
  sessionTtlMs: number;
  masterKeys: readonly MasterKey[];
  now: () => Date;
  log: Logger;
}

function settingsBody(s: OidcSettingsRow, redirectUri: string): Schemas['OidcSettings'] {
  return {
    enabled: s.enabled,
    display_name: s.displayName,
    issuer_url: s.issuerUrl,
    client_id: s.clientId,
    client_secret_secret: s.clientSecretSecret,
    scopes: s.scopes,
    groups_claim: s.groupsClaim,
    password_login_disabled: s.passwordLoginDisabled,
    default_role: s.defaultRole,
    group_roles: s.groupRoles,
    link_by_email: s.linkByEmail,
    allowed_email_domains: s.allowedEmailDomains,
    google_hd: s.googleHd,
    entra_tid: s.entraTid,
    existing_users_only: s.existingUsersOnly,
    session_max_age_seconds: s.sessionMaxAgeSeconds,
    redirect_uri: redirectUri,
    updated_by: s.updatedBy,
    updated_at: s.updatedAt.toISOString(),
  };
}

/** Why a login (or a profile's link) failed, as /login?sso_error= (or /profile?sso_error=) names it. */
type SsoFailure =
  | 'state'
  | 'denied'
  | 'token'
  | 'email_unverified'
  | 'disabled'
  | 'email_taken'
  | 'not_configured'
  | 'unavailable'
  | 'link_required'
  | 'no_account'
  | 'domain_not_allowed'
  | 'hd_mismatch'
  | 'tid_mismatch'
  | 'identity_taken'
  | 'already_linked'
  | 'link_session';

class LoginRefused extends Error {
  constructor(
    readonly reason: SsoFailure,
    message: string,
    readonly email?: string,
  ) {
    super(message);
  }
}

/** An error's name and message only: openid-client's causes can hold tokens and responses. */
function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err).slice(0, 300);
  const cause = err.cause instanceof Error ? ` (${err.cause.message})` : '';
  return `${err.name}: ${err.message}${cause}`.slice(0, 300);
}

/** What passport's strategy asked for, run on a response stand-in so the state row is written before the browser is sent away. */
type Outcome = { redirect: string } | { user: Express.User } | { fail: unknown };

/** What passport hands on as an error, as an Error (its strategies pass Errors; anything else is wrapped). */
function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(typeof err === 'string' ? err : 'single sign-on failed');
}

function runStrategy(passport: InstanceType<typeof Passport>, strategy: SvcOidcStrategy, req: Request): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    const res = {
      statusCode: 200,
      setHeader: (k: string, v: string) => void (headers[k.toLowerCase()] = v),
      end: () => resolve({ redirect: headers.location }),
    };
    // passport's types leave the middleware it returns untyped.
    const middleware = passport.authenticate(strategy, { session: false }, (err: unknown, user: Express.User | false, info: unknown) => {
      if (err) reject(asError(err));
      else if (user) resolve({ user });
      else resolve({ fail: info });
    }) as (req: Request, res: unknown, next: (err?: unknown) => void) => void;
    middleware(req, res, (err) => reject(asError(err)));
  });
}

export function createSso(deps: SsoDeps) {
  const { db } = deps;
  const oidc = new OidcClient({ pool: db.pool, masterKeys: deps.masterKeys, now: deps.now, publicUrl: deps.publicUrl });
  const passport = new Passport();
  const secure = deps.publicUrl.startsWith('https://');
  const stateCookie = (value: string, maxAgeMs: number) =>
    stringifySetCookie(OIDC_STATE_COOKIE, value, {
      httpOnly: true,
      sameSite: 'lax',
      path: OIDC_CALLBACK_PATH,
      secure,
      maxAge: Math.floor(maxAgeMs / 1000),
      ...(maxAgeMs === 0 ? { expires: new Date(0) } : {}),
    });
  const toLogin = (res: Response, reason: SsoFailure) => res.redirect(302, `/login?sso_error=${reason}`);

  async function usable(): Promise<OidcSettingsRow | undefined> {
    const s = await readOidcSettings(db.pool);
    return s?.enabled ? s : undefined;
  }

  async function start(req: Request, res: Response): Promise<void> {
    const s = await usable();
    if (!s) return toLogin(res, 'not_configured');
    let url: string;
    try {
      url = await begin(req, res, s);
    } catch (err) {
      if (!(err instanceof LoginRefused)) throw err;
      return toLogin(res, err.reason);
    }
    res.setHeader('Cache-Control', 'no-store');
    res.redirect(302, url);
  }

  /**
   * Builds the authorization request of a login (or of a profile's link, with
   * `linkUserId`): stores its state row and sets the svc_oidc cookie on `res`;
   * returns the IdP's authorization URL.
   */
  async function begin(req: Request, res: Response, s: OidcSettingsRow, linkUserId?: string): Promise<string> {
    let config: client.Configuration;
    try {
      config = await oidc.configuration(s);
    } catch (err) {
      // The discovery document cannot be read, or the client secret's reference cannot be resolved.
      deps.log.warn('sso login: the IdP or the client secret cannot be reached', { err: describe(err) });
      throw new LoginRefused('unavailable', 'the IdP or the client secret cannot be reached');
    }
    const session: Record<string, LoginState> = {};
    // The strategy starts an authorization request only on a GET: a profile's link arrives as a POST.
    const asGet = Object.create(req, { method: { value: 'GET' }, session: { value: session } }) as Request;
    const strategy = new SvcOidcStrategy(config, { callbackURL: oidc.redirectUri, scope: scopeOf(s) }, (_t, done) => {
      done(null, false);
    });
    const out = await runStrategy(passport, strategy, asGet);
    const st = session.oidc;
    if (!('redirect' in out) || !st?.code_verifier || !st.state || !st.nonce) throw new Error('the OIDC strategy did not build an authorization request');
    const id = randomBytes(32).toString('base64url');
    const now = deps.now();
    await saveSsoLoginState(
      db.pool,
      sha256(id),
      { code_verifier: st.code_verifier, state: st.state, nonce: st.nonce, ...(linkUserId ? { link_user_id: linkUserId } : {}) },
      now,
      LOGIN_STATE_TTL_MS,
    );
    res.append('Set-Cookie', stateCookie(id, LOGIN_STATE_TTL_MS));
    return out.redirect;
  }

  /** The user of the browser's svc_session cookie when it is a live session of an enabled user. */
  async function sessionUser(req: Request): Promise<string | undefined> {
    let token: string | undefined;
    try {
      token = parseCookie(req.headers.cookie ?? '')[SESSION_COOKIE];
    } catch {
      return undefined;
    }
    if (!token || !SESSION_TOKEN_PATTERN.test(token)) return undefined;
    const row = await findSessionCredential(db.pool, sha256(token));
    if (!row || !row.expires_at || row.expires_at <= deps.now() || row.disabled) return undefined;
    return row.user_id;
  }

  /** The login's state row, taken once; undefined when missing or older than 10 minutes. */
  async function takeState(req: Request): Promise<SsoLoginState | undefined> {
    let id: string | undefined;
    try {
      id = parseCookie(req.headers.cookie ?? '')[OIDC_STATE_COOKIE];
    } catch {
      return undefined;
    }
    if (!id) return undefined;
    return takeSsoLoginState(db.pool, sha256(id), deps.now(), LOGIN_STATE_TTL_MS);
  }

  interface Verified {
    tokens: client.TokenEndpointResponse & client.TokenEndpointResponseHelpers;
  }

  async function callback(req: Request, res: Response): Promise<void> {
    res.append('Set-Cookie', stateCookie('', 0));
    res.setHeader('Cache-Control', 'no-store');
    const ip = req.ip ?? req.socket.remoteAddress ?? '';
    const requestId = String(res.locals.requestId ?? '');
    let linkUserId: string | undefined;
    const refuse = async (reason: SsoFailure, detail: string, email?: string) => {
      if (linkUserId) {
        deps.log.warn('sso link refused', { request_id: requestId, reason, detail, user_id: linkUserId });
        await recordAudit(db.prisma, {
          action: 'user.sso_link_failed',
          actor: { id: linkUserId, type: 'user' },
          targetType: 'user',
          targetId: linkUserId,
          ip,
          requestId,
          details: { reason },
          at: deps.now(),
        });
        return void res.redirect(302, `/profile?sso_error=${reason}`);
      }
      deps.log.warn('sso login refused', { request_id: requestId, reason, detail });
      await recordAudit(db.prisma, {
        action: 'auth.login_failed',
        actor: { id: null, type: 'anonymous' },
        ip,
        requestId,
        details: { method: 'oidc', reason, ...(email ? { email } : {}) },
        at: deps.now(),
      });
      toLogin(res, reason);
    };
    try {
      const s = await usable();
      if (!s) throw new LoginRefused('not_configured', 'SSO is not configured');
      const state = await takeState(req);
      if (!state) throw new LoginRefused('state', 'no login in progress in this browser (missing, used or expired svc_oidc cookie)');
      linkUserId = state.link_user_id;
      let config: client.Configuration;
      try {
        config = await oidc.configuration(s);
      } catch (err) {
        throw new LoginRefused('unavailable', `the IdP or the client secret cannot be reached: ${describe(err)}`);
      }
      (req as Request & { session?: unknown }).session = { oidc: state };
      const strategy = new SvcOidcStrategy(config, { callbackURL: oidc.redirectUri, scope: scopeOf(s) }, (tokens, done) => {
        done(null, { tokens });
      });
      let out: Outcome;
      try {
        out = await runStrategy(passport, strategy, req);
      } catch (err) {
        const reason: SsoFailure = err instanceof client.AuthorizationResponseError ? 'denied' : /"state"/.test(describe(err)) ? 'state' : 'token';
        throw new LoginRefused(reason, describe(err));
      } finally {
        oidc.keepKeys(config);
      }
      if (!('user' in out)) throw new LoginRefused('denied', `the IdP refused: ${JSON.stringify((out as { fail?: unknown }).fail ?? null).slice(0, 200)}`);
      const { tokens } = out.user as Verified;
      const idClaims = tokens.claims();
      if (!idClaims) throw new LoginRefused('token', 'no ID token');
      let claims: Record<string, unknown> = { ...idClaims };
      if (config.serverMetadata().userinfo_endpoint && tokens.access_token) {
        try {
          claims = { ...(await client.fetchUserInfo(config, tokens.access_token, idClaims.sub)), ...idClaims };
        } catch (err) {
          throw new LoginRefused('token', `userinfo: ${describe(err)}`);
        }
      }
      const email = typeof claims.email === 'string' ? claims.email.trim() : '';
      if (!email || claims.email_verified !== true) throw new LoginRefused('email_unverified', 'the IdP did not assert a verified email (email, email_verified)');
      const outside = signUpRefusal(s, email, idClaims);
      if (outside) throw new LoginRefused(outside.reason, outside.message, email);
      const now = deps.now();
      if (linkUserId) return await finishLink(req, res, linkUserId, { issuer: idClaims.iss, subject: idClaims.sub }, { ip, requestId, now });
      const name = typeof claims.name === 'string' ? claims.name.slice(0, 200) : '';
      const groups = groupsOf(claims, s.groupsClaim);
      const role = roleForGroups(groups, s.groupRoles, s.defaultRole);
      let up;
      try {
        up = await upsertSsoUser(
          db.pool,
          { issuer: idClaims.iss, subject: idClaims.sub, email, name, role },
          { linkByEmail: s.linkByEmail, existingUsersOnly: s.existingUsersOnly },
          now,
        );
      } catch (err) {
        if (err instanceof SsoEmailTakenError) throw new LoginRefused('email_taken', err.message);
        if (err instanceof SsoLinkRequiredError) throw new LoginRefused('link_required', err.message, err.email);
        if (err instanceof SsoNoAccountError) throw new LoginRefused('no_account', err.message, err.email);
        throw err;
      }
      const { user } = up;
      // The groups as of this login: role bindings of IdP groups apply through them (docs/operating/roles.md).
      await setUserGroups(db.pool, user.id, groups);
      const actor = { id: user.id, type: 'user' as const };
      if (up.linkedByEmail) {
        await recordAudit(db.prisma, {
          action: 'user.sso_link',
          actor,
          targetType: 'user',
          targetId: user.id,
          ip,
          requestId,
          details: { via: 'email', issuer: idClaims.iss },
          at: now,
        });
      }
      if (up.created) {
        await recordAudit(db.prisma, {
          action: 'user.create',
          actor,
          targetType: 'user',
          targetId: user.id,
          ip,
          requestId,
          details: { via: 'oidc', email: user.email, role: user.role, groups },
          at: now,
        });
      }
      if (up.roleBefore) {
        await recordAudit(db.prisma, {
          action: 'user.update',
          actor,
          targetType: 'user',
          targetId: user.id,
          ip,
          requestId,
          details: { via: 'oidc', role: { before: up.roleBefore, after: user.role }, groups },
          at: now,
        });
      }
      if (up.roleKept) deps.log.warn('sso group mapping would demote the last admin; role kept', { request_id: requestId, user_id: user.id });
      if (user.disabled) throw new LoginRefused('disabled', 'the user is disabled', user.email);
      const { token, hash } = generateSessionToken();
      const sessionId = newId();
      const userAgent = String(req.headers['user-agent'] ?? '').slice(0, 500);
      // session_max_age_seconds caps the session whatever its use (the authenticator's sliding expiry stops there).
      const maxExpiresAt = s.sessionMaxAgeSeconds !== null ? new Date(now.getTime() + s.sessionMaxAgeSeconds * 1000) : undefined;
      await createSession(db.prisma, {
        id: sessionId,
        userId: user.id,
        hash,
        ip,
        userAgent,
        now,
        expiresAt: new Date(now.getTime() + deps.sessionTtlMs),
        ...(maxExpiresAt ? { maxExpiresAt } : {}),
      });
      await recordAudit(db.prisma, {
        action: 'auth.login',
        actor,
        targetType: 'session',
        targetId: sessionId,
        ip,
        requestId,
        details: { method: 'oidc', issuer: idClaims.iss },
        at: now,
      });
      setSessionCookie(res, token, { publicUrl: deps.publicUrl, ttlMs: maxExpiresAt ? Math.min(deps.sessionTtlMs, maxExpiresAt.getTime() - now.getTime()) : deps.sessionTtlMs });
      res.redirect(302, '/');
    } catch (err) {
      if (err instanceof LoginRefused) return refuse(err.reason, err.message, err.email);
      throw err;
    }
  }

  /**
   * The callback of a profile's link: the browser must still hold a session
   * of the user who started it; the identity is linked to that user (never
   * to the user with the IdP's email), and the browser goes back to /profile.
   * The user's role and groups follow the IdP from their next SSO login.
   */
  async function finishLink(
    req: Request,
    res: Response,
    userId: string,
    identity: { issuer: string; subject: string },
    at: { ip: string; requestId: string; now: Date },
  ): Promise<void> {
    if ((await sessionUser(req)) !== userId) throw new LoginRefused('link_session', 'the browser no longer holds the session of the user who started the link');
    let added: boolean;
    try {
      added = await linkSsoIdentityToUser(db.pool, identity, userId, at.now);
    } catch (err) {
      if (err instanceof SsoIdentityTakenError) throw new LoginRefused('identity_taken', err.message);
      if (err instanceof SsoAlreadyLinkedError) throw new LoginRefused('already_linked', err.message);
      throw err;
    }
    if (added) {
      await recordAudit(db.prisma, {
        action: 'user.sso_link',
        actor: { id: userId, type: 'user' },
        targetType: 'user',
        targetId: userId,
        ip: at.ip,
        requestId: at.requestId,
        details: { via: 'profile', issuer: identity.issuer },
        at: at.now,
      });
    }
    res.redirect(302, '/profile?sso_linked=1');
  }

  const router: Router = express.Router();
  const named = (route: string) => (_req: Request, res: Response, next: () => void) => {
    res.locals.route = route;
    next();
  };
  router.get(OIDC_LOGIN_PATH, named(OIDC_LOGIN_PATH), (req, res, next) => void start(req, res).catch(next));
  router.get(OIDC_CALLBACK_PATH, named(OIDC_CALLBACK_PATH), (req, res, next) => void callback(req, res).catch(next));

  async function check(body: RequestBody<'putOidcSettings'>): Promise<void> {
    const problems: Schemas['ErrorDetail'][] = [];
    const issuer = issuerProblem(body.issuer_url);
    if (issuer) problems.push({ field: 'issuer_url', message: issuer });
    // The client secret is a platform secret (docs/operating/security.md): a provider reference, a global or a
    // namespace secret is one that flows can read, and is refused.
    if (body.client_secret_secret.includes(':')) {
      problems.push({
        field: 'client_secret_secret',
        message: 'is a provider reference, which flows can read: store the client secret as a platform secret (svc platform-secret set NAME) and name that',
      });
    }
    if (problems.length) throw validationFailed(problems);
    const secretProblem = await new PlatformSecretStore({ db: db.pool, keys: deps.masterKeys }).settingProblem(body.client_secret_secret);
    if (secretProblem) problems.push({ field: 'client_secret_secret', message: secretProblem });
    else {
      try {
        await oidc.clientSecret({ clientSecretSecret: body.client_secret_secret });
      } catch (err) {
        problems.push({ field: 'client_secret_secret', message: `the platform secret ${body.client_secret_secret} cannot be read: ${(err as Error).name}` });
      }
    }
    try {
      const server = await oidc.server({ issuerUrl: body.issuer_url, clientId: body.client_id }, true);
      if (!server.authorization_endpoint || !server.token_endpoint || !server.jwks_uri)
        problems.push({ field: 'issuer_url', message: 'the discovery document lacks an authorization, token or JWKS endpoint' });
    } catch (err) {
      problems.push({ field: 'issuer_url', message: `the discovery document cannot be read: ${describe(err)}` });
    }
    if (problems.length) throw validationFailed(problems);
  }

  const handlers = {
    async getSsoStatus() {
      const s = await usable();
      return (s ? { oidc: true, display_name: s.displayName, login_url: OIDC_LOGIN_PATH } : { oidc: false }) satisfies Schemas['SsoStatus'];
    },

    async getOidcSettings() {
      const s = await readOidcSettings(db.pool);
      if (!s) throw notFound('single sign-on is not configured');
      return settingsBody(s, oidc.redirectUri);
    },

    async putOidcSettings(ctx) {
      const body = ctx.body;
      await check(body);
      const before = await readOidcSettings(db.pool);
      // default_role and the sign-up controls keep their stored values when omitted (loosening one must be said).
      const kept = <T>(given: T | undefined, stored: T | undefined, dflt: T): T => (given !== undefined ? given : stored !== undefined ? stored : dflt);
      const written = await writeOidcSettings(
        db.pool,
        {
          enabled: body.enabled ?? true,
          displayName: body.display_name,
          issuerUrl: body.issuer_url,
          clientId: body.client_id,
          clientSecretSecret: body.client_secret_secret,
          scopes: body.scopes ?? ['email', 'profile'],
          groupsClaim: body.groups_claim ?? 'groups',
          passwordLoginDisabled: body.password_login_disabled ?? false,
          defaultRole: kept(body.default_role, before?.defaultRole, 'none'),
          groupRoles: body.group_roles ?? [],
          linkByEmail: kept(body.link_by_email, before?.linkByEmail, false),
          allowedEmailDomains: kept(body.allowed_email_domains && [...new Set(body.allowed_email_domains)], before?.allowedEmailDomains, []),
          googleHd: kept(body.google_hd, before?.googleHd, ''),
          entraTid: kept(body.entra_tid, before?.entraTid, ''),
          existingUsersOnly: kept(body.existing_users_only, before?.existingUsersOnly, false),
          sessionMaxAgeSeconds: kept(body.session_max_age_seconds, before?.sessionMaxAgeSeconds, null),
          updatedBy: ctx.principal.email,
        },
        deps.now(),
      );
      const shown = settingsBody(written, oidc.redirectUri);
      await recordAudit(db.prisma, {
        action: before ? 'sso.oidc_update' : 'sso.oidc_create',
        ...auditContext(ctx),
        targetType: 'sso',
        targetId: 'oidc',
        details: { before: before ? settingsBody(before, oidc.redirectUri) : null, after: shown },
        at: deps.now(),
      });
      return shown;
    },

    async deleteOidcSettings(ctx) {
      if (!(await deleteOidcSettings(db.pool))) throw notFound('single sign-on is not configured');
      oidc.forget();
      await recordAudit(db.prisma, { action: 'sso.oidc_delete', ...auditContext(ctx), targetType: 'sso', targetId: 'oidc', at: deps.now() });
      return reply(204);
    },

    async getOidcLink({ principal }) {
      const identities = await ssoIdentitiesOf(db.pool, principal.userId);
      return {
        offered: (await usable()) !== undefined,
        identities: identities.map((i) => ({ issuer: i.issuer, linked_at: i.created_at.toISOString(), last_login_at: i.last_login_at?.toISOString() ?? null })),
      } satisfies Schemas['SsoLink'];
    },

    async startOidcLink({ req, res, principal }) {
      // A browser session only: the callback checks the same browser still holds it.
      if (principal.authType !== 'session') throw conflict('conflict', 'linking an IdP identity needs a browser session (sign in to the web UI)');
      const s = await usable();
      if (!s) throw conflict('conflict', 'single sign-on is not configured');
      let url: string;
      try {
        url = await begin(req, res, s, principal.userId);
      } catch (err) {
        if (err instanceof LoginRefused) throw conflict('conflict', err.message);
        throw err;
      }
      res.setHeader('Cache-Control', 'no-store');
      return { authorization_url: url } satisfies Schemas['SsoLinkStart'];
    },

    async oidcLogout({ res, principal }) {
      if (principal.sessionId) await deleteSession(db.prisma, principal.sessionId);
      clearSessionCookie(res, { publicUrl: deps.publicUrl });
      const s = await usable();
      if (!s || !(await hasSsoIdentity(db.pool, principal.userId))) return {} satisfies Schemas['SsoLogout'];
      try {
        const server = await oidc.server(s);
        if (!server.end_session_endpoint) return {};
        const config = new client.Configuration(server, s.clientId);
        if (new URL(s.issuerUrl).protocol === 'http:') client.allowInsecureRequests(config);
        const url = client.buildEndSessionUrl(config, { client_id: s.clientId, post_logout_redirect_uri: `${deps.publicUrl}/login` });
        return { end_session_url: url.href } satisfies Schemas['SsoLogout'];
      } catch (err) {
        deps.log.warn('sso logout: the IdP discovery document cannot be read', { err: describe(err) });
        return {};
      }
    },
  } satisfies OperationHandlers<AuthPrincipal>;

  return { router, handlers };
}
