// Plain variables for `vars` (table `variables`), scoped like secrets.
// Precedence, highest first (docs/using/secrets-and-variables.md): the flow's own
// `variables`, the namespace's, each parent's, then global.
import { scopeChain } from './scope.js';
import { upsertVariable } from './sql/upserts.js';
import { StoreHandle, type StoreDb } from './store-db.js';

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

export class VariableStore {
  private readonly db: StoreHandle;

  /** @param db The pool, a Prisma transaction (writes), or a client of a hand-written transaction (resolveVars). */
  constructor(db: StoreDb) {
    this.db = new StoreHandle(db);
  }

  /** Creates or replaces a variable of one scope ('' = global). */
  async put(namespace: string, key: string, value: string, opts: { by?: string; now?: Date } = {}): Promise<{ created: boolean; variable: VariableRecord }> {
    const row = await upsertVariable(this.db.prisma, { namespace, key, value, now: opts.now ?? new Date(), by: opts.by ?? '' });
    return { created: row.created, variable: record(row) };
  }

  /** True when a variable was deleted. */
  async delete(namespace: string, key: string): Promise<boolean> {
    const r = await this.db.prisma.variable.deleteMany({ where: { namespace, key } });
    return r.count > 0;
  }

  /** One scope's variables by key; one row more than `limit` tells the caller another page follows. */
  async list(namespace: string, opts: { limit: number; afterKey?: string }): Promise<VariableRecord[]> {
    const rows = await this.db.prisma.variable.findMany({
      where: { namespace, ...(opts.afterKey !== undefined ? { key: { gt: opts.afterKey } } : {}) },
      orderBy: { key: 'asc' },
      take: opts.limit + 1,
    });
    return rows.map((r) => ({ namespace: r.namespace, key: r.key, value: r.value, createdAt: r.createdAt, updatedAt: r.updatedAt, updatedBy: r.updatedBy }));
  }

  /**
   * The `vars` of a flow in `namespace`: global variables, overridden by each
   * parent's from the top down, by the namespace's own, and finally by the
   * flow's `variables`.
   */
  async resolveVars(namespace: string, flowVariables: Readonly<Record<string, string>> = {}): Promise<Record<string, string>> {
    const scopes = scopeChain(namespace);
    const r = await this.db.sql.query<{ namespace: string; key: string; value: string }>(
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
