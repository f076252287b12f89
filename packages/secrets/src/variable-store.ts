// Plain variables for `vars` (table `variables`), scoped like secrets.
// Precedence, highest first (decisions.md, Templates): the flow's own
// `variables`, the namespace's, each parent's, then global.
import type { Queryable } from '@svc/db';
import { scopeChain } from './scope.js';

export interface VariableRecord {
  /** '' for the global scope. */
  namespace: string;
  key: string;
  value: string;
  createdAt: Date;
  updatedAt: Date;
  /** Who wrote it last (a user id); '' when unknown. */
  updatedBy: string;
}

interface VariableRow {
  namespace: string;
  key: string;
  value: string;
  created_at: Date;
  updated_at: Date;
  updated_by: string;
}

function record(r: VariableRow): VariableRecord {
  return { namespace: r.namespace, key: r.key, value: r.value, createdAt: r.created_at, updatedAt: r.updated_at, updatedBy: r.updated_by };
}

const COLUMNS = `namespace, key, value, created_at, updated_at, updated_by`;

export class VariableStore {
  /** @param db A pool, or a client inside the caller's transaction. */
  constructor(private readonly db: Queryable) {}

  /** Creates or replaces a variable of one scope ('' = global). */
  async put(namespace: string, key: string, value: string, opts: { by?: string; now?: Date } = {}): Promise<{ created: boolean; variable: VariableRecord }> {
    const r = await this.db.query<VariableRow & { created: boolean }>(
      `INSERT INTO variables (namespace, key, value, created_at, updated_at, updated_by) VALUES ($1, $2, $3, $4, $4, $5)
       ON CONFLICT (namespace, key) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by
       RETURNING ${COLUMNS}, (xmax = 0) AS created`,
      [namespace, key, value, opts.now ?? new Date(), opts.by ?? ''],
    );
    const row = r.rows[0]!;
    return { created: row.created, variable: record(row) };
  }

  /** True when a variable was deleted. */
  async delete(namespace: string, key: string): Promise<boolean> {
    const r = await this.db.query(`DELETE FROM variables WHERE namespace = $1 AND key = $2`, [namespace, key]);
    return (r.rowCount ?? 0) > 0;
  }

  /** One scope's variables by key; one row more than `limit` tells the caller another page follows. */
  async list(namespace: string, opts: { limit: number; afterKey?: string }): Promise<VariableRecord[]> {
    const r = await this.db.query<VariableRow>(
      `SELECT ${COLUMNS} FROM variables WHERE namespace = $1 AND ($2::text IS NULL OR key > $2) ORDER BY key LIMIT $3`,
      [namespace, opts.afterKey ?? null, opts.limit + 1],
    );
    return r.rows.map(record);
  }

  /**
   * The `vars` of a flow in `namespace`: global variables, overridden by each
   * parent's from the top down, by the namespace's own, and finally by the
   * flow's `variables`.
   */
  async resolveVars(namespace: string, flowVariables: Readonly<Record<string, string>> = {}): Promise<Record<string, string>> {
    const scopes = scopeChain(namespace);
    const r = await this.db.query<{ namespace: string; key: string; value: string }>(
      `SELECT namespace, key, value FROM variables WHERE namespace = ANY($1::text[]) ORDER BY length(namespace), key`,
      [scopes],
    );
    // Least specific first, so each more specific scope overwrites.
    const merged = new Map<string, string>();
    for (const row of r.rows) merged.set(row.key, row.value);
    for (const [k, v] of Object.entries(flowVariables)) merged.set(k, v);
    // fromEntries defines own properties, so a variable named `__proto__` is just a variable.
    return Object.fromEntries(merged);
  }
}
