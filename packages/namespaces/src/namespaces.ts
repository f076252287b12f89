// Namespace rows: create (with any missing parents), list as a tree, get,
// delete. Ordinary reads and writes through Prisma; the delete locks the row
// and the list orders by byte order, which Prisma Client cannot say, so those
// two statements are written by hand (sql/namespaces.ts).
import { prismaOf, type PrismaClient, type PrismaDb } from '@svc/db';
import type pg from 'pg';
import { deleteNamespaceSecretsAndVariables } from '@svc/secrets';
import { NamespaceBusyError, NamespaceExistsError, NamespaceNotFoundError, NamespaceReadOnlyError } from './errors.js';
import type { NamespacesDb } from './flows.js';
import { parentNamespaces } from './paths.js';
import type { VersionRow } from './save.js';
import { listNamespaceNamesInTreeOrder, lockNamespace } from './sql/namespaces.js';

export interface NamespaceRow {
  name: string;
  description: string;
  head_version: number;
  created_by: string;
  /** Namespaces whose flows may reach this one (subflows, flow triggers), each covering its children (reach.ts). */
  allowed_callers: string[];
  created_at: Date;
  updated_at: Date;
}

export interface NamespaceInfo extends NamespaceRow {
  parent: string | null;
  depth: number;
  children: string[];
  file_count: number;
  flow_count: number;
  /** Mapped from a git source: only its sync writes it. */
  read_only: boolean;
}

const parentOf = (name: string) => (name.includes('.') ? name.slice(0, name.lastIndexOf('.')) : null);

type NamespaceModel = { name: string; description: string; headVersion: number; createdBy: string; allowedCallers: string[]; createdAt: Date; updatedAt: Date };

function namespaceRow(n: NamespaceModel): NamespaceRow {
  return {
    name: n.name,
    description: n.description,
    head_version: n.headVersion,
    created_by: n.createdBy,
    allowed_callers: n.allowedCallers,
    created_at: n.createdAt,
    updated_at: n.updatedAt,
  };
}

/**
 * Replaces the allowed callers of a namespace (admins only, audited by the
 * caller in the same transaction): namespaces, each covering its children,
 * whose flows may start this namespace's flows as subflows and listen to its
 * executions. Sorted, without duplicates; returns the row as it is now.
 * @throws NamespaceNotFoundError
 */
export async function setAllowedCallers(db: NamespacesDb, name: string, callers: readonly string[], now: Date): Promise<NamespaceRow> {
  const list = [...new Set(callers)].sort();
  const [row] = await prismaOf(db).namespace.updateManyAndReturn({ where: { name }, data: { allowedCallers: list, updatedAt: now } });
  if (!row) throw new NamespaceNotFoundError(name);
  return namespaceRow(row);
}

export async function namespaceExists(db: NamespacesDb, name: string): Promise<boolean> {
  return (await prismaOf(db).namespace.findUnique({ where: { name }, select: { name: true } })) !== null;
}

/**
 * Creates a namespace; parents that do not exist yet are created too (`a.b.c`
 * makes `a` and `a.b`), so the tree has no holes. 409 when it exists.
 */
export async function createNamespace(db: pg.Pool | PrismaClient, n: { name: string; description?: string; createdBy: string; now: Date }): Promise<NamespaceRow> {
  return (prismaOf(db) as PrismaClient).$transaction(async (tx) => {
    // skipDuplicates is ON CONFLICT DO NOTHING: existing parents stay as they are.
    const parents = parentNamespaces(n.name).reverse();
    if (parents.length)
      await tx.namespace.createMany({ data: parents.map((p) => ({ name: p, createdBy: n.createdBy, createdAt: n.now, updatedAt: n.now })), skipDuplicates: true });
    const [row] = await tx.namespace.createManyAndReturn({
      data: [{ name: n.name, description: n.description ?? '', createdBy: n.createdBy, createdAt: n.now, updatedAt: n.now }],
      skipDuplicates: true,
    });
    if (!row) throw new NamespaceExistsError(n.name);
    return namespaceRow(row);
  });
}

async function describe(db: PrismaDb, rows: NamespaceRow[]): Promise<NamespaceInfo[]> {
  if (!rows.length) return [];
  const names = rows.map((r) => r.name);
  // Descendants of each; only direct children are kept below.
  const below = await db.namespace.findMany({ where: { OR: names.map((name) => ({ name: { startsWith: `${name}.` } })) }, select: { name: true }, orderBy: { name: 'asc' } });
  const counts = await db.namespace.findMany({
    where: { name: { in: names } },
    select: { name: true, head: { select: { fileCount: true } }, _count: { select: { flows: { where: { deletedAt: null } } } } },
  });
  const byName = new Map(counts.map((r) => [r.name, r]));
  const mapped = new Set((await db.gitSourceMapping.findMany({ where: { namespace: { in: names } }, select: { namespace: true } })).map((m) => m.namespace));
  return rows.map((r) => ({
    ...r,
    parent: parentOf(r.name),
    depth: r.name.split('.').length - 1,
    children: below.map((c) => c.name).filter((c) => parentOf(c) === r.name),
    file_count: byName.get(r.name)?.head?.fileCount ?? 0,
    flow_count: byName.get(r.name)?._count.flows ?? 0,
    read_only: mapped.has(r.name),
  }));
}

/** Namespaces in tree order (a parent before its children), optionally one subtree; paged by name. */
export async function listNamespaces(db: NamespacesDb, q: { parent?: string; limit: number; after?: string; within?: readonly string[] }): Promise<NamespaceInfo[]> {
  const prisma = prismaOf(db);
  const names = await listNamespaceNamesInTreeOrder(prisma, { ...q, limit: q.limit + 1 });
  const rows = await prisma.namespace.findMany({ where: { name: { in: names } } });
  const byName = new Map(rows.map((r) => [r.name, namespaceRow(r)]));
  return describe(
    prisma,
    names.flatMap((n) => byName.get(n) ?? []),
  );
}

export async function getNamespace(db: NamespacesDb, name: string): Promise<NamespaceInfo> {
  const prisma = prismaOf(db);
  const r = await prisma.namespace.findUnique({ where: { name } });
  if (!r) throw new NamespaceNotFoundError(name);
  return (await describe(prisma, [namespaceRow(r)]))[0];
}

/** A namespace's versions, newest first; one row more than `limit` tells the caller another page follows. */
export async function listVersions(db: NamespacesDb, namespace: string, q: { limit: number; beforeVersion?: number }): Promise<VersionRow[]> {
  const rows = await prismaOf(db).namespaceVersion.findMany({
    where: { namespace, ...(q.beforeVersion !== undefined ? { version: { lt: q.beforeVersion } } : {}) },
    orderBy: { version: 'desc' },
    take: q.limit + 1,
  });
  return rows.map((v) => ({
    id: v.id,
    namespace: v.namespace,
    version: v.version!,
    author: v.author,
    message: v.message,
    created_at: v.createdAt,
    file_count: v.fileCount,
    manifest_hash: v.manifestHash,
    snapshot_id: v.snapshotId,
    git_sha: v.gitSha,
  }));
}

/**
 * Deletes a namespace with its versions, flows, secrets and variables. Refused
 * while it has child namespaces or executions not ended, naming them.
 * Executions, snapshots and file contents stay (readable, and cleaned up by
 * retention and storage cleanup).
 */
export async function deleteNamespace(db: pg.Pool | PrismaClient, name: string): Promise<void> {
  await (prismaOf(db) as PrismaClient).$transaction(async (tx) => {
    if (!(await lockNamespace(tx, name))) throw new NamespaceNotFoundError(name);
    // A mapped namespace goes with its git source (deleteGitSource makes it writable first).
    const mapping = await tx.gitSourceMapping.findUnique({ where: { namespace: name }, select: { gitSource: { select: { name: true } } } });
    if (mapping) throw new NamespaceReadOnlyError(name, mapping.gitSource.name);
    const children = await tx.namespace.findMany({ where: { name: { startsWith: `${name}.` } }, select: { name: true }, orderBy: { name: 'asc' }, take: 10 });
    if (children.length) throw new NamespaceBusyError(`namespace ${name} has child namespaces (${children.map((r) => r.name).join(', ')}): delete them first`);
    const running = await tx.execution.findMany({
      where: { namespace: name, state: { in: ['QUEUED', 'RUNNING', 'CANCELLING'] } },
      select: { id: true, state: true },
      orderBy: { createdAt: 'asc' },
      take: 10,
    });
    if (running.length) {
      throw new NamespaceBusyError(`namespace ${name} has executions that have not ended: ${running.map((r) => `${r.id} (${r.state})`).join(', ')}; cancel them or wait`);
    }
    await tx.namespace.update({ where: { name }, data: { headVersionId: null } });
    // Secrets and variables are @svc/secrets' tables (no foreign key to namespaces): deleted by it, in this transaction.
    await deleteNamespaceSecretsAndVariables(tx, name);
    await tx.namespace.delete({ where: { name } });
  });
}
