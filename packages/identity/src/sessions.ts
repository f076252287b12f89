// Login sessions behind the `svc_session` cookie: written at login, deleted at
// logout and by revokeOtherSessions. (Looking a session up and sliding its
// expiry on each request is the gateway's authenticator.)
import { prismaOf } from '@svc/db';
import type { IdentityDb } from './users.js';

export interface NewSession {
  id: string;
  userId: string;
  /** SHA-256 of the cookie value. */
  hash: string;
  ip: string;
  userAgent: string;
  now: Date;
  expiresAt: Date;
  /** When the session ends however it is used (an SSO login's max age); absent: no cap. */
  maxExpiresAt?: Date;
}

/** Stores a new session and stamps the user's last login. */
export async function createSession(db: IdentityDb, s: NewSession): Promise<void> {
  const prisma = prismaOf(db);
  await prisma.session.create({
    data: {
      id: s.id,
      userId: s.userId,
      tokenHash: s.hash,
      ip: s.ip,
      userAgent: s.userAgent,
      createdAt: s.now,
      lastUsedAt: s.now,
      expiresAt: s.maxExpiresAt && s.maxExpiresAt < s.expiresAt ? s.maxExpiresAt : s.expiresAt,
      maxExpiresAt: s.maxExpiresAt ?? null,
    },
  });
  await prisma.user.updateMany({ where: { id: s.userId }, data: { lastLoginAt: s.now } });
}

export async function deleteSession(db: IdentityDb, id: string): Promise<void> {
  await prismaOf(db).session.deleteMany({ where: { id } });
}

/** Ends every session of a user except `keepId` (all of them without it); returns how many ended. */
export async function deleteOtherSessions(db: IdentityDb, userId: string, keepId?: string): Promise<number> {
  const r = await prismaOf(db).session.deleteMany({ where: { userId, ...(keepId !== undefined ? { id: { not: keepId } } : {}) } });
  return r.count;
}
