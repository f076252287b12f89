// Namespace rows: create (with any missing parents), list as a tree, get, delete.
import type pg from 'pg';
import type { Queryable } from '@svc/db';
import { NamespaceBusyError, NamespaceExistsError, NamespaceNotFoundError } from './errors.js';
import { parentNamespaces } from './paths.js';
import { inTransaction } from './save.js';

export interface NamespaceRow {
  name: string;
  description: string;
  head_version: number;
  created_by: string;
  created_at: Date;
  updated_at: Date;
}

export interface NamespaceInfo extends NamespaceRow {
  parent: string | null;
  depth: number;
  children: string[];
  file_count: number;
  flow_count: number;
}

const parentOf = (name: string) => (name.includes('.') ? name.slice(0, name.lastIndexOf('.')) : null);

/**
 * Creates a namespace; parents that do not exist yet are created too (`a.b.c`
 * makes `a` and `a.b`), so the tree has no holes. 409 when it exists.
 */
export async function createNamespace(pool: pg.Pool, n: { name: string; description?: string; createdBy: string; now: Date }): Promise<NamespaceRow> {
  return inTransaction(pool, async (c) => {
    for (const p of parentNamespaces(n.name).reverse()) {
      await c.query(`INSERT INTO namespaces (name, created_by, created_at, updated_at) VALUES ($1, $2, $3, $3) ON CONFLICT (name) DO NOTHING`, [p, n.createdBy, n.now]);
    }
    const r = await c.query<NamespaceRow>(
      `INSERT INTO namespaces (name, description, created_by, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)
       ON CONFLICT (name) DO NOTHING RETURNING name, description, head_version, created_by, created_at, updated_at`,
      [n.name, n.description ?? '', n.createdBy, n.now],
    );
    if (!r.rows[0]) throw new NamespaceExistsError(n.name);
    return r.rows[0];
  });
}

async function describe(db: Queryable, rows: NamespaceRow[]): Promise<NamespaceInfo[]> {
  if (!rows.length) return [];
  const names = rows.map((r) => r.name);
  const children = await db.query<{ name: string }>(
    `SELECT name FROM namespaces WHERE ${names.map((_, i) => `(name LIKE $${i + 1} || '.%' AND name NOT LIKE $${i + 1} || '.%.%')`).join(' OR ')} ORDER BY name`,
    names,
  );
  const counts = await db.query<{ name: string; files: number | null; flows: number }>(
    `SELECT n.name, v.file_count AS files, (SELECT count(*)::int FROM flows f WHERE f.namespace = n.name AND f.deleted_at IS NULL) AS flows
     FROM namespaces n LEFT JOIN namespace_versions v ON v.id = n.head_version_id WHERE n.name = ANY($1)`,
    [names],
  );
  const byName = new Map(counts.rows.map((r) => [r.name, r]));
  return rows.map((r) => ({
    ...r,
    parent: parentOf(r.name),
    depth: r.name.split('.').length - 1,
    children: children.rows.map((c) => c.name).filter((c) => parentOf(c) === r.name),
    file_count: byName.get(r.name)?.files ?? 0,
    flow_count: byName.get(r.name)?.flows ?? 0,
  }));
}

const COLUMNS = 'name, description, head_version, created_by, created_at, updated_at';

/** Namespaces in tree order (a parent before its children), optionally one subtree; paged by name. */
export async function listNamespaces(db: Queryable, q: { parent?: string; limit: number; after?: string }): Promise<NamespaceInfo[]> {
  const r = await db.query<NamespaceRow>(
    `SELECT ${COLUMNS} FROM namespaces
     WHERE ($1::text IS NULL OR name = $1 OR name LIKE $1 || '.%') AND ($2::text IS NULL OR name > $2)
     ORDER BY name COLLATE "C" LIMIT $3`,
    [q.parent ?? null, q.after ?? null, q.limit + 1],
  );
  return describe(db, r.rows);
}

export async function getNamespace(db: Queryable, name: string): Promise<NamespaceInfo> {
  const r = await db.query<NamespaceRow>(`SELECT ${COLUMNS} FROM namespaces WHERE name = $1`, [name]);
  if (!r.rows[0]) throw new NamespaceNotFoundError(name);
  return (await describe(db, r.rows))[0]!;
}

/**
 * Deletes a namespace with its versions, flows, secrets and variables. Refused
 * while it has child namespaces or executions not ended, naming them.
 * Executions, snapshots and file contents stay (readable, and cleaned up by
 * retention and storage cleanup).
 */
export async function deleteNamespace(pool: pg.Pool, name: string): Promise<void> {
  await inTransaction(pool, async (c) => {
    const ns = await c.query(`SELECT 1 FROM namespaces WHERE name = $1 FOR UPDATE`, [name]);
    if (!ns.rowCount) throw new NamespaceNotFoundError(name);
    const children = await c.query<{ name: string }>(`SELECT name FROM namespaces WHERE name LIKE $1 || '.%' ORDER BY name LIMIT 10`, [name]);
    if (children.rowCount) throw new NamespaceBusyError(`namespace ${name} has child namespaces (${children.rows.map((r) => r.name).join(', ')}): delete them first`);
    const running = await c.query<{ id: string; state: string }>(
      `SELECT id, state FROM executions WHERE namespace = $1 AND state IN ('QUEUED', 'RUNNING', 'CANCELLING') ORDER BY created_at LIMIT 10`,
      [name],
    );
    if (running.rowCount) {
      throw new NamespaceBusyError(`namespace ${name} has executions that have not ended: ${running.rows.map((r) => `${r.id} (${r.state})`).join(', ')}; cancel them or wait`);
    }
    await c.query(`UPDATE namespaces SET head_version_id = NULL WHERE name = $1`, [name]);
    await c.query(`DELETE FROM secrets WHERE namespace = $1`, [name]);
    await c.query(`DELETE FROM variables WHERE namespace = $1`, [name]);
    await c.query(`DELETE FROM namespaces WHERE name = $1`, [name]);
  });
}
