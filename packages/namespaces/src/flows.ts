// Flow rows as the API reads them (the save path writes them: flows-sync.ts),
// their revisions, and the enabled switch. Ordinary reads and writes: Prisma.
import type pg from 'pg';
import { prismaOf, type Prisma, type PrismaDb } from '@svc/db';

/** A pool (its Prisma client runs on it) or Prisma itself. */
export type NamespacesDb = pg.Pool | PrismaDb;

export interface FlowRow {
  namespace: string;
  flow_id: string;
  path: string;
  enabled: boolean;
  description: string;
  labels: Record<string, string>;
  revision_count: number;
  current_revision_id: string | null;
  created_at: Date;
  updated_at: Date;
  /** Of the current revision; null without one. */
  revision: number | null;
  definition: Record<string, unknown> | null;
  source_yaml: string | null;
}

export interface RevisionRow {
  id: string;
  revision: number;
  source_yaml: string;
  definition: Record<string, unknown>;
  hash: string;
  /** The namespace version that saved it; null when that version is gone. */
  namespace_version: number | null;
  created_by: string;
  created_at: Date;
}

const WITH_CURRENT = { currentRevision: { select: { revision: true, definition: true, sourceYaml: true } } } as const;
type FlowWithCurrent = Prisma.FlowGetPayload<{ include: typeof WITH_CURRENT }>;

function flowRow(f: FlowWithCurrent): FlowRow {
  return {
    namespace: f.namespace,
    flow_id: f.flowId,
    path: f.path,
    enabled: f.enabled,
    description: f.description,
    labels: f.labels as Record<string, string>,
    revision_count: f.revisionCount,
    current_revision_id: f.currentRevisionId,
    created_at: f.createdAt,
    updated_at: f.updatedAt,
    revision: f.currentRevision?.revision ?? null,
    definition: (f.currentRevision?.definition as Record<string, unknown> | undefined) ?? null,
    source_yaml: f.currentRevision?.sourceYaml ?? null,
  };
}

const WITH_VERSION = { namespaceVersion: { select: { version: true } } } as const;
type RevisionWithVersion = Prisma.FlowRevisionGetPayload<{ include: typeof WITH_VERSION }>;

function revisionRow(r: RevisionWithVersion): RevisionRow {
  return {
    id: r.id,
    revision: r.revision,
    source_yaml: r.sourceYaml,
    definition: r.definition as Record<string, unknown>,
    hash: r.hash,
    namespace_version: r.namespaceVersion?.version ?? null,
    created_by: r.createdBy,
    created_at: r.createdAt,
  };
}

/** A flow whose file exists (not deleted), with its current revision. */
export async function findFlow(db: NamespacesDb, namespace: string, flowId: string): Promise<FlowRow | null> {
  const f = await prismaOf(db).flow.findFirst({ where: { namespace, flowId, deletedAt: null }, include: WITH_CURRENT });
  return f ? flowRow(f) : null;
}

export interface FlowQuery {
  /** This namespace and its descendants. */
  namespace?: string;
  /**
   * Case-insensitive substring of the id, the description or the namespace,
   * matched literally: `%`, `_` and `\` are plain characters. Empty: no filter.
   */
  q?: string;
  /** Only these namespaces and their descendants (a caller's readable ones); absent: all. */
  within?: readonly string[];
  limit: number;
  after?: { namespace: string; flow_id: string };
}

/**
 * `text` with LIKE's wildcards escaped, so it matches only itself: Prisma's
 * `contains` and `startsWith` are LIKE/ILIKE patterns that keep `%` and `_`
 * as wildcards (prisma/prisma#19506), and `\` is PostgreSQL's default escape.
 */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * A Prisma condition on a row's `namespace`: one of `names` or below one of
 * them. No name selects nothing: Prisma reads `OR: []` as no condition at
 * all, which would select every row.
 */
export function inNamespaces(names: readonly string[]): { OR: { namespace: string | { startsWith: string } }[] } | { namespace: { in: string[] } } {
  if (!names.length) return { namespace: { in: [] } };
  return { OR: names.flatMap((n) => [{ namespace: n }, { namespace: { startsWith: likeLiteral(`${n}.`) } }]) };
}

/** Flows by namespace and id; one row more than `limit` tells the caller another page follows. */
export async function listFlows(db: NamespacesDb, q: FlowQuery): Promise<FlowRow[]> {
  const and: Prisma.FlowWhereInput[] = [{ deletedAt: null }];
  if (q.namespace !== undefined) and.push(inNamespaces([q.namespace]));
  if (q.within !== undefined) and.push(inNamespaces(q.within));
  if (q.q) {
    const contains = { contains: likeLiteral(q.q), mode: 'insensitive' } as const;
    and.push({ OR: [{ flowId: contains }, { description: contains }, { namespace: contains }] });
  }
  if (q.after) and.push({ OR: [{ namespace: { gt: q.after.namespace } }, { namespace: q.after.namespace, flowId: { gt: q.after.flow_id } }] });
  const rows = await prismaOf(db).flow.findMany({ where: { AND: and }, include: WITH_CURRENT, orderBy: [{ namespace: 'asc' }, { flowId: 'asc' }], take: q.limit + 1 });
  return rows.map(flowRow);
}

/** Enables or disables a flow (its schedules and webhooks follow). */
export async function setFlowEnabled(db: NamespacesDb, namespace: string, flowId: string, enabled: boolean, now: Date): Promise<void> {
  await prismaOf(db).flow.updateMany({ where: { namespace, flowId }, data: { enabled, updatedAt: now } });
}

/** A revision of a flow by its id or its number. */
export async function findFlowRevision(db: NamespacesDb, namespace: string, flowId: string, idOrNumber: string): Promise<RevisionRow | null> {
  // The number as the API writes it ("7", not "07"), as `revision::text = $id` compared before.
  const n = /^(0|-?[1-9][0-9]{0,8})$/.test(idOrNumber) ? Number(idOrNumber) : undefined;
  const r = await prismaOf(db).flowRevision.findFirst({
    where: { namespace, flowId, OR: [{ id: idOrNumber }, ...(n !== undefined ? [{ revision: n }] : [])] },
    include: WITH_VERSION,
  });
  return r ? revisionRow(r) : null;
}

/** Newest first; one row more than `limit` tells the caller another page follows. */
export async function listFlowRevisions(db: NamespacesDb, namespace: string, flowId: string, q: { limit: number; beforeRevision?: number }): Promise<RevisionRow[]> {
  const rows = await prismaOf(db).flowRevision.findMany({
    where: { namespace, flowId, ...(q.beforeRevision !== undefined ? { revision: { lt: q.beforeRevision } } : {}) },
    include: WITH_VERSION,
    orderBy: { revision: 'desc' },
    take: q.limit + 1,
  });
  return rows.map(revisionRow);
}
