// The two namespace statements Prisma Client cannot say: a row lock, and
// byte-order sorting (COLLATE "C", so `a.b` sorts right after `a` whatever
// the database's collation). Run through Prisma's raw queries, so they join
// the caller's Prisma transaction.
import type { PrismaDb } from '@svc/db';

/** Locks a namespace row for its deletion; false when there is none. */
export async function lockNamespace(tx: PrismaDb, name: string): Promise<boolean> {
  return (await tx.$executeRaw`SELECT 1 FROM namespaces WHERE name = ${name} FOR UPDATE`) > 0;
}

/** Names in tree order, optionally one subtree and only `within` (namespaces with their children), after `after`; at most `limit`. */
export async function listNamespaceNamesInTreeOrder(db: PrismaDb, q: { parent?: string; after?: string; limit: number; within?: readonly string[] }): Promise<string[]> {
  const parent = q.parent ?? null;
  const after = q.after ?? null;
  const within = q.within ? [...q.within] : null;
  const rows = await db.$queryRaw<{ name: string }[]>`
    SELECT name FROM namespaces
    WHERE (${parent}::text IS NULL OR name = ${parent}::text OR name LIKE ${parent}::text || '.%') AND (${after}::text IS NULL OR name > ${after}::text)
      AND (${within}::text[] IS NULL OR EXISTS (SELECT 1 FROM unnest(${within}::text[]) w WHERE name = w OR left(name, length(w) + 1) = w || '.'))
    ORDER BY name COLLATE "C" LIMIT ${q.limit}`;
  return rows.map((r) => r.name);
}
