// Own-account operations: login (through passport's local strategy), logout,
// profile, password, sessions.
import type { Request } from 'express';
import { Passport } from 'passport';
import { Strategy as LocalStrategy } from 'passport-local';
import type { Db } from '@svc/db';
import { newId } from '@svc/db';
import { rateLimited, reply, unauthorized, validationFailed, type OperationHandlers } from '@svc/http';
import {
  createSession,
  deleteOtherSessions,
  deleteSession,
  findUserByEmail,
  generateSessionToken,
  normalizeEmail,
  passwordLoginRefused,
  passwordProblem,
  raisedNamespaces,
  recordAudit,
  setDisplayName,
  setPassword,
  verifyPassword,
  withLoginLimits,
  type UserRow,
} from '@svc/identity';
import type { AuthPrincipal } from '../identity/principal.js';
import { roleSubject } from '../identity/namespace-roles.js';
import { clearSessionCookie, setSessionCookie } from '../identity/session-cookie.js';
import { auditContext } from './audit.js';
import type { Answer, Schemas } from '@svc/api-spec';

export interface AuthRouteDeps {
  db: Db;
  publicUrl: string;
  sessionTtlMs: number;
  now: () => Date;
}

export function meBody(p: {
  userId: string;
  email: string;
  name: string;
  role: Schemas['Role'];
  userRole?: Schemas['Role'];
  authType: Schemas['Me']['auth_type'];
  mustChangePassword: boolean;
  tokenId?: string;
}): Schemas['Me'] {
  return {
    id: p.userId,
    email: p.email,
    name: p.name,
    role: p.role,
    user_role: p.userRole ?? p.role,
    auth_type: p.authType,
    must_change_password: p.mustChangePassword,
    ...(p.tokenId ? { token_id: p.tokenId } : {}),
  };
}

const clientIp = (req: Request) => req.ip ?? req.socket.remoteAddress ?? '';

export function authHandlers(deps: AuthRouteDeps) {
  const { db } = deps;
  // One passport instance per gateway (no module singleton). The local
  // strategy checks the password; a wrong password and an unknown email take
  // the same time (verifyPassword compares against a dummy hash).
  const passport = new Passport();
  passport.use(
    new LocalStrategy({ usernameField: 'email', passwordField: 'password', session: false }, (email, password, done) => {
      findUserByEmail(db.prisma, email)
        .then(async (user) => {
          const ok = await verifyPassword(password, user?.password_hash);
          // An SSO user may be held to SSO (sso_settings.password_login_disabled, docs/operating/sso.md).
          const refused = ok && user ? await passwordLoginRefused(db.pool, user.id) : false;
          done(null, ok && user && !user.disabled && !refused ? user : false);
        })
        .catch(done);
    }),
  );
  const checkPassword = (req: Request) =>
    new Promise<UserRow | false>((resolve, reject) => {
      // passport's types leave the middleware it returns untyped; the local strategy passes Errors only.
      const middleware = passport.authenticate('local', { session: false }, (err: unknown, user: UserRow | false) =>
        err ? reject(err instanceof Error ? err : new Error('password check failed')) : resolve(user),
      ) as (req: Request, res: unknown, next: (err?: unknown) => void) => void;
      middleware(req, req.res!, (err) => reject(err instanceof Error ? err : new Error('password check failed')));
    });

  return {
    async login({ req, res, body, requestId }) {
      const { email: rawEmail } = body;
      const email = normalizeEmail(rawEmail);
      req.body = body; // passport-local reads the credentials from req.body
      const ip = clientIp(req);
      const outcome = await withLoginLimits(db.pool, { email, ip }, deps.now, async () => {
        const user = await checkPassword(req);
        return { succeeded: user !== false, user };
      });
      if ('refused' in outcome) throw rateLimited(outcome.refused.retryAfterSeconds);
      const { user } = outcome.result;
      const now = deps.now();
      if (!user) {
        await recordAudit(db.prisma, { action: 'auth.login_failed', actor: { id: null, type: 'anonymous' }, ip, requestId, details: { email }, at: now });
        throw unauthorized('wrong email or password');
      }
      const { token, hash } = generateSessionToken();
      const sessionId = newId();
      const userAgent = String(req.headers['user-agent'] ?? '').slice(0, 500);
      await createSession(db.prisma, { id: sessionId, userId: user.id, hash, ip, userAgent, now, expiresAt: new Date(now.getTime() + deps.sessionTtlMs) });
      await recordAudit(db.prisma, { action: 'auth.login', actor: { id: user.id, type: 'user' }, targetType: 'session', targetId: sessionId, ip, requestId, at: now });
      setSessionCookie(res, token, { publicUrl: deps.publicUrl, ttlMs: deps.sessionTtlMs });
      const me = meBody({ userId: user.id, email: user.email, name: user.display_name, role: user.role, authType: 'session', mustChangePassword: user.must_change_password });
      // As getMe answers: the UI starts from this answer, and a `none` user reads only these namespaces (docs/operating/roles.md).
      const raised = await raisedNamespaces(db.pool, { userId: user.id, userRole: user.role });
      return { ...me, ...(raised.length ? { role_bindings: raised } : {}) } satisfies Schemas['Me'];
    },

    async logout({ res, principal }) {
      if (principal.sessionId) await deleteSession(db.prisma, principal.sessionId);
      clearSessionCookie(res, { publicUrl: deps.publicUrl });
      return reply(204);
    },

    async getMe({ principal: p }) {
      // Where role bindings raise the caller (docs/operating/roles.md), so the UI can offer what the API allows there.
      const raised = await raisedNamespaces(db.pool, roleSubject(p));
      return { ...meBody(p), ...(raised.length ? { role_bindings: raised } : {}) } satisfies Schemas['Me'];
    },

    async updateMe({ principal, body }) {
      const { name } = body;
      if (name !== undefined) await setDisplayName(db.prisma, principal.userId, name, deps.now());
      return meBody({ ...principal, name: name ?? principal.name });
    },

    async changePassword(ctx) {
      const p = ctx.principal;
      const { current_password, new_password } = ctx.body;
      const user = await findUserByEmail(db.prisma, p.email);
      if (!user || !(await verifyPassword(current_password, user.password_hash))) {
        throw validationFailed([{ field: 'current_password', message: 'is not your current password' }]);
      }
      const problem = passwordProblem(new_password) ?? (new_password === current_password ? 'must differ from the current password' : null);
      if (problem) throw validationFailed([{ field: 'new_password', message: problem }]);
      // Other sessions end; the one used for this request stays signed in.
      await setPassword(db.prisma, p.userId, new_password, { temporary: false, now: deps.now(), keepSessionId: p.sessionId });
      await recordAudit(db.prisma, { action: 'user.password_change', ...auditContext(ctx), targetType: 'user', targetId: p.userId, at: deps.now() });
      return reply(204);
    },

    async revokeOtherSessions({ principal }) {
      return { revoked: await deleteOtherSessions(db.prisma, principal.userId, principal.sessionId) } satisfies Answer<'revokeOtherSessions'>;
    },
  } satisfies OperationHandlers<AuthPrincipal>;
}
