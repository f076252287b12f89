// The executions a filter selects: by states, a namespace and its children, a
// flow, labels that must all match and a creation time range; for a caller
// who may read (or act on) only some namespaces, only theirs. Two statements
// share the filter: the listExecutions page (newest first by (created_at, id))
// and the match of a bulk action (its rows with their states, and how many
// there are in all).
import type pg from 'pg';
import { exactTimeText } from '@svc/db';
import type { ExecutionState } from '@svc/state-machine';

export interface ExecutionFilter {
  /** Any of these states; absent: every state. */
  states?: readonly string[];
  /** A namespace and its children. */
  namespace?: string;
  /** A flow id, in `flowNamespace` when given. */
  flowId?: string;
  flowNamespace?: string;
  /** Only these namespaces and their children (a caller's readable ones); absent: every namespace. */
  within?: readonly string[];
  /** Every key must have this value. */
  labels: Record<string, string>;
  /** Created at or after this instant. */
  createdFrom?: Date;
  /** Created before this instant. */
  createdTo?: Date;
}

export interface ExecutionPage extends ExecutionFilter {
  /** The last row of the page before (its created_at and id). */
  after?: { created_at: string; id: string };
  limit: number;
}

/** The filter's conditions, on parameters $1 to $8 (filterValues). */
const FILTER = `($1::text[] IS NULL OR state = ANY($1::text[]))
       AND ($2::text IS NULL OR namespace = $2 OR namespace LIKE $2 || '.%')
       AND ($3::text IS NULL OR (flow_id = $3 AND ($4::text IS NULL OR namespace = $4)))
       AND labels @> $5::jsonb
       AND ($6::text[] IS NULL OR EXISTS (SELECT 1 FROM unnest($6::text[]) w WHERE namespace = w OR left(namespace, length(w) + 1) = w || '.'))
       AND ($7::timestamptz IS NULL OR created_at >= $7)
       AND ($8::timestamptz IS NULL OR created_at < $8)`;

const filterValues = (f: ExecutionFilter): unknown[] => [
  f.states ?? null,
  f.namespace ?? null,
  f.flowId ?? null,
  f.flowNamespace ?? null,
  JSON.stringify(f.labels),
  f.within ?? null,
  f.createdFrom ?? null,
  f.createdTo ?? null,
];

// The cursor keeps created_at to the microsecond, as the column does: a JS Date
// would cut it to the millisecond, and the next page would then skip every
// row created in the same millisecond as the page's last one (all of a batch
// trigger's rows share one instant).
const LIST = `SELECT id, ${exactTimeText('created_at')} AS created_key FROM executions
     WHERE ${FILTER}
       AND ($9::timestamptz IS NULL OR (created_at, id) < ($9, $10))
     ORDER BY created_at DESC, id DESC LIMIT $11`;

/** Ids (and creation times to the microsecond, for the cursor) of up to `limit` executions matching `f`, newest first. */
export async function listExecutionIds(pool: Pick<pg.Pool, 'query'>, f: ExecutionPage): Promise<{ id: string; created_key: string }[]> {
  const r = await pool.query<{ id: string; created_key: string }>(LIST, [...filterValues(f), f.after?.created_at ?? null, f.after?.id ?? null, f.limit]);
  return r.rows;
}

/** One execution a bulk action's filter matched. */
export interface MatchedExecution {
  id: string;
  namespace: string;
  flow_id: string | null;
  state: ExecutionState;
}

/** What a bulk action's filter matched: the newest rows, how many match in all, and how many of those are in the asked states. */
export interface ExecutionMatch {
  total: number;
  inStates: number;
  rows: MatchedExecution[];
}

// The window counts are taken over every matching row before the LIMIT, so
// one statement tells the newest rows, how many match in all and how many of
// them the action would take.
const MATCH = `SELECT id, namespace, flow_id, state, count(*) OVER () AS total, count(*) FILTER (WHERE state = ANY($10::text[])) OVER () AS in_states
     FROM executions
     WHERE ${FILTER}
     ORDER BY created_at DESC, id DESC LIMIT $9`;

/** The newest `limit` executions matching `f` with their states, how many match in all, and how many of those are in `states`. */
export async function matchExecutions(pool: Pick<pg.Pool, 'query'>, f: ExecutionFilter, p: { limit: number; states: readonly string[] }): Promise<ExecutionMatch> {
  const r = await pool.query<MatchedExecution & { total: string; in_states: string }>(MATCH, [...filterValues(f), p.limit, p.states]);
  const first = r.rows[0];
  return {
    total: first ? Number(first.total) : 0,
    inStates: first ? Number(first.in_states) : 0,
    rows: r.rows.map((x) => ({ id: x.id, namespace: x.namespace, flow_id: x.flow_id, state: x.state })),
  };
}
