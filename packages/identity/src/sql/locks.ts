// Row and advisory locks the identity rules need, taken inside a Prisma
// interactive transaction: Prisma Client has no FOR UPDATE and no advisory
// locks, so these few statements are written by hand.
import type { PrismaDb } from '@svc/db';

/** Locks one user row; false when there is none. */
export async function lockUser(tx: PrismaDb, id: string): Promise<boolean> {
  return (await tx.$executeRaw`SELECT 1 FROM users WHERE id = ${id} FOR UPDATE`) > 0;
}

/** Enabled admins other than `exceptId`, counted under a lock so two concurrent demotions cannot both pass. */
export async function lockOtherEnabledAdmins(tx: PrismaDb, exceptId: string): Promise<number> {
  return tx.$executeRaw`SELECT id FROM users WHERE role = 'admin' AND NOT disabled AND id <> ${exceptId} FOR UPDATE`;
}
