// API tokens: the rows behind createToken, listTokens and revokeToken. The
// secret itself is made by generateApiToken (secrets.ts) and only its hash is
// stored.
import { prismaOf } from '@svc/db';
import type { IdentityDb, Role } from './users.js';

export interface TokenRow {
  id: string;
  user_id: string;
  email: string;
  name: string;
  prefix: string;
  role: Role;
  created_at: Date;
  expires_at: Date | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

export interface NewApiToken {
  id: string;
  userId: string;
  name: string;
  /** SHA-256 of the secret. */
  hash: string;
  prefix: string;
  role: Role;
  expiresAt: Date | null;
  now: Date;
}

export async function createApiToken(db: IdentityDb, t: NewApiToken): Promise<void> {
  await prismaOf(db).apiToken.create({
    data: { id: t.id, userId: t.userId, name: t.name, tokenHash: t.hash, prefix: t.prefix, role: t.role, createdAt: t.now, expiresAt: t.expiresAt },
  });
}

/** Newest first: one user's tokens, or everyone's with `all`; one row more than `limit` tells the caller another page follows. */
export async function listApiTokens(db: IdentityDb, q: { userId: string; all: boolean; limit: number; beforeId?: string }): Promise<TokenRow[]> {
  const rows = await prismaOf(db).apiToken.findMany({
    where: { ...(q.all ? {} : { userId: q.userId }), ...(q.beforeId !== undefined ? { id: { lt: q.beforeId } } : {}) },
    include: { user: { select: { email: true } } },
    orderBy: { id: 'desc' },
    take: q.limit + 1,
  });
  return rows.map((t) => ({
    id: t.id,
    user_id: t.userId,
    email: t.user.email,
    name: t.name,
    prefix: t.prefix,
    role: t.role as Role,
    created_at: t.createdAt,
    expires_at: t.expiresAt,
    last_used_at: t.lastUsedAt,
    revoked_at: t.revokedAt,
  }));
}

/**
 * Revokes a token of `userId`, or anyone's when `asAdmin`; revoking again
 * keeps the first time. Returns the owner's id, or null when there is no such
 * token (or it is someone else's and the caller is not an admin).
 */
export async function revokeApiToken(db: IdentityDb, q: { id: string; userId: string; asAdmin: boolean; now: Date }): Promise<string | null> {
  const prisma = prismaOf(db);
  const t = await prisma.apiToken.findFirst({ where: { id: q.id, ...(q.asAdmin ? {} : { userId: q.userId }) }, select: { userId: true } });
  if (!t) return null;
  await prisma.apiToken.updateMany({ where: { id: q.id, revokedAt: null }, data: { revokedAt: q.now } });
  return t.userId;
}
