// The listExecutions page: newest first by (created_at, id), filtered by state,
// a namespace and its children, a flow, and labels that must all match; for a
// caller who may read only some namespaces, only theirs.
import type pg from 'pg';

export interface ExecutionFilter {
  state?: string;
  /** A namespace and its children. */
  namespace?: string;
  /** A flow id, in `flowNamespace` when given. */
  flowId?: string;
  flowNamespace?: string;
  /** Only these namespaces and their children (a caller's readable ones); absent: every namespace. */
  within?: readonly string[];
  /** Every key must have this value. */
  labels: Record<string, string>;
  /** The last row of the page before (its created_at and id). */
  after?: { created_at: string; id: string };
  limit: number;
}

/** Ids (and creation times, for the cursor) of up to `limit` executions matching `f`, newest first. */
export async function listExecutionIds(pool: Pick<pg.Pool, 'query'>, f: ExecutionFilter): Promise<{ id: string; created_at: Date }[]> {
  const r = await pool.query<{ id: string; created_at: Date }>(
    `SELECT id, created_at FROM executions
     WHERE ($1::text IS NULL OR state = $1)
       AND ($2::text IS NULL OR namespace = $2 OR namespace LIKE $2 || '.%')
       AND ($3::text IS NULL OR (flow_id = $3 AND ($4::text IS NULL OR namespace = $4)))
       AND labels @> $5::jsonb
       AND ($6::timestamptz IS NULL OR (created_at, id) < ($6, $7))
       AND ($9::text[] IS NULL OR EXISTS (SELECT 1 FROM unnest($9::text[]) w WHERE namespace = w OR left(namespace, length(w) + 1) = w || '.'))
     ORDER BY created_at DESC, id DESC LIMIT $8`,
    [
      f.state ?? null,
      f.namespace ?? null,
      f.flowId ?? null,
      f.flowNamespace ?? null,
      JSON.stringify(f.labels),
      f.after?.created_at ?? null,
      f.after?.id ?? null,
      f.limit,
      f.within ?? null,
    ],
  );
  return r.rows;
}
