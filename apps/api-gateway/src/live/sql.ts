// The SQL of the log, artifact and metric reads: one exported function per
// statement. Log order is (ts, task_run_id, n), served by the index
// log_lines (execution_id, ts, task_run_id, n); reads from a read position go
// run by run through the primary key (task_run_id, n).
import type { Queryable } from '@svc/db';
import type { LogRow, Positions, RunBatch } from './lines.js';

export interface ExecutionHead {
  id: string;
  namespace: string;
  flow_id: string | null;
  state: string;
}

export async function executionHead(db: Queryable, id: string): Promise<ExecutionHead | undefined> {
  const r = await db.query<ExecutionHead>(`SELECT id, namespace, flow_id, state FROM executions WHERE id = $1`, [id]);
  return r.rows[0];
}

/** The sort key of a line, as held by page cursors. */
export interface LogKey {
  ts: string;
  taskRunId: string;
  n: number;
}

export interface LogPageQuery {
  executionId: string;
  /** Lines after this key. */
  after?: LogKey;
  limit: number;
  task?: string;
  attempt?: number;
}

const LOG_COLUMNS = `l.task_run_id, l.n, l.task_key, l.attempt, l.ts::text AS ts, l.stream, l.text`;

/** A page of an execution's log in (ts, task_run_id, n) order. */
export async function logPage(db: Queryable, q: LogPageQuery): Promise<LogRow[]> {
  // The cursor condition is added only when there is one, so the planner always sees a plain index range.
  const params: unknown[] = [q.executionId, q.task ?? null, q.attempt ?? null, q.limit];
  let sql = `SELECT ${LOG_COLUMNS} FROM log_lines l
             WHERE l.execution_id = $1 AND ($2::text IS NULL OR l.task_key = $2) AND ($3::int IS NULL OR l.attempt = $3)`;
  if (q.after) {
    params.push(q.after.ts, q.after.taskRunId, q.after.n);
    sql += ` AND (l.ts, l.task_run_id, l.n) > ($5::bigint, $6::text, $7::int)`;
  }
  // Qualified: a bare `ts` here would be the text alias of the select list, which no index serves.
  sql += ` ORDER BY l.ts, l.task_run_id, l.n LIMIT $4`;
  return (await db.query<LogRow>(sql, params)).rows;
}

export interface NewLinesQuery {
  executionId: string;
  positions: Positions;
  task?: string;
  /** Lines read per task run at most. */
  perRun: number;
}

export interface NewLines {
  /** The execution's state in the same snapshot as the lines; undefined when the execution is gone. */
  state: string | undefined;
  /**
   * A task run (of `task`, when given) is still RUNNING in that snapshot: an
   * execution can end before its running tasks do (a flow timeout stops them
   * after it), and their last lines come after the end.
   */
  running: boolean;
  runs: RunBatch[];
}

/**
 * The lines after a read position, up to `perRun` per task run, and the
 * execution's state, in one statement: one snapshot, so when the state read
 * here is an end state, every line written before the end is among (or
 * before) the lines read here.
 */
export async function newLines(db: Queryable, q: NewLinesQuery): Promise<NewLines> {
  const ids = [...q.positions.keys()];
  const r = await db.query<{ state: string; run_id: string | null; run_state: string | null } & Partial<LogRow>>(
    `WITH pos AS (SELECT * FROM unnest($2::text[], $3::int[]) AS p(id, n))
     SELECT e.state, tr.id AS run_id, tr.state AS run_state, l.task_run_id, l.n, l.task_key, l.attempt, l.ts::text AS ts, l.stream, l.text
     FROM executions e
     LEFT JOIN task_runs tr ON tr.execution_id = e.id AND ($4::text IS NULL OR tr.task_key = $4)
     LEFT JOIN LATERAL (
       SELECT * FROM log_lines l
       WHERE l.task_run_id = tr.id AND l.n > COALESCE((SELECT pos.n FROM pos WHERE pos.id = tr.id), 0)
       ORDER BY l.n LIMIT $5
     ) l ON true
     WHERE e.id = $1
     ORDER BY tr.id, l.n`,
    [q.executionId, ids, ids.map((id) => q.positions.get(id)!), q.task ?? null, q.perRun],
  );
  if (r.rows.length === 0) return { state: undefined, running: false, runs: [] };
  const byRun = new Map<string, LogRow[]>();
  for (const x of r.rows) {
    if (x.run_id === null || x.n === null || x.n === undefined) continue;
    let rows = byRun.get(x.run_id);
    if (!rows) byRun.set(x.run_id, (rows = []));
    rows.push({ task_run_id: x.task_run_id!, n: x.n, task_key: x.task_key!, attempt: x.attempt!, ts: x.ts!, stream: x.stream!, text: x.text! });
  }
  return {
    state: r.rows[0]!.state,
    running: r.rows.some((x) => x.run_state === 'RUNNING'),
    runs: [...byRun].map(([taskRunId, rows]) => ({ taskRunId, rows, full: rows.length >= q.perRun })),
  };
}

// ---- artifacts and metrics ---------------------------------------------------

export interface ArtifactRow {
  id: string;
  execution_id: string;
  task_run_id: string;
  task_key: string;
  name: string;
  object_key: string;
  size: string;
  content_type: string;
  created_at: Date;
  /** created_at with all six fraction digits, for cursors (a Date keeps only milliseconds). */
  created_key: string;
}

const ARTIFACT_COLUMNS = `a.id, a.execution_id, a.task_run_id, tr.task_key, a.name, a.object_key, a.size::text AS size, a.content_type, a.created_at,
  to_char(a.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS created_key`;

/** Artifacts of an execution, oldest first, after the cursor key (created_at, id). */
export async function artifactPage(db: Queryable, executionId: string, limit: number, after?: { createdAt: string; id: string }): Promise<ArtifactRow[]> {
  const r = await db.query<ArtifactRow>(
    `SELECT ${ARTIFACT_COLUMNS} FROM artifacts a JOIN task_runs tr ON tr.id = a.task_run_id
     WHERE a.execution_id = $1 AND ($2::timestamptz IS NULL OR (a.created_at, a.id) > ($2::timestamptz, $3::text))
     ORDER BY a.created_at, a.id LIMIT $4`,
    [executionId, after?.createdAt ?? null, after?.id ?? '', limit],
  );
  return r.rows;
}

export async function artifactOf(db: Queryable, executionId: string, artifactId: string): Promise<ArtifactRow | undefined> {
  const r = await db.query<ArtifactRow>(
    `SELECT ${ARTIFACT_COLUMNS} FROM artifacts a JOIN task_runs tr ON tr.id = a.task_run_id WHERE a.id = $1 AND a.execution_id = $2`,
    [artifactId, executionId],
  );
  return r.rows[0];
}

export interface MetricRow {
  id: string;
  task_run_id: string;
  task_key: string;
  name: string;
  value: number;
  tags: Record<string, string>;
  at: Date;
}

/** Metrics of an execution in the order they were recorded, after the cursor id. */
export async function metricPage(db: Queryable, executionId: string, limit: number, afterId?: string): Promise<MetricRow[]> {
  const r = await db.query<MetricRow>(
    `SELECT id::text AS id, task_run_id, task_key, name, value, tags, at FROM task_metrics
     WHERE execution_id = $1 AND ($2::bigint IS NULL OR id > $2::bigint)
     ORDER BY id LIMIT $3`,
    [executionId, afterId ?? null, limit],
  );
  return r.rows;
}
