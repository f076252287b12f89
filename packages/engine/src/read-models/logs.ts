// Read model of an execution's logs, artifacts and metrics (the gateway's
// log pages, live streams and artifact routes): one exported function per
// statement. Log order is (ts, task_run_id, n), served by the index
// log_lines (execution_id, ts, task_run_id, n); live streams read in `seq`
// order (the order lines were stored) through log_lines (execution_id, seq).
import { exactTimeText, type Queryable } from '@svc/db';

/** A stored log line as the queries return it (`ts` is int8 as text, nanoseconds since the epoch). */
export interface LogRow {
  task_run_id: string;
  n: number;
  task_key: string;
  attempt: number;
  ts: string;
  stream: string;
  text: string;
}

/** A read position of a log stream: the `seq` of the last line read, as text (int8). */
export type LogPosition = string;

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
  /** Lines after this `seq`. */
  after: LogPosition;
  task?: string;
  /** Lines read at most. */
  limit: number;
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
  /** Lines after the position in `seq` order, with their `seq`. */
  rows: (LogRow & { seq: string })[];
  /** The read hit its limit: more may be waiting. */
  full: boolean;
}

/**
 * The lines after a read position (in `seq` order, at most `limit`) and the
 * execution's state, in one statement: one snapshot, so when the state read
 * here is an end state, every line written before the end is among (or
 * before) the lines read here. An execution's lines commit in `seq` order
 * (appendLogs), so a line seen here has every lower-numbered line visible too.
 */
export async function newLines(db: Queryable, q: NewLinesQuery): Promise<NewLines> {
  const r = await db.query<{ state: string; running: boolean } & Partial<LogRow & { seq: string }>>(
    `SELECT e.state,
       EXISTS (SELECT 1 FROM task_runs tr WHERE tr.execution_id = e.id AND tr.state = 'RUNNING' AND ($3::text IS NULL OR tr.task_key = $3)) AS running,
       l.task_run_id, l.n, l.task_key, l.attempt, l.ts::text AS ts, l.stream, l.text, l.seq::text AS seq
     FROM executions e
     LEFT JOIN LATERAL (
       SELECT * FROM log_lines l
       WHERE l.execution_id = e.id AND l.seq > $2::bigint AND ($3::text IS NULL OR l.task_key = $3)
       ORDER BY l.seq LIMIT $4
     ) l ON true
     WHERE e.id = $1
     ORDER BY l.seq`,
    [q.executionId, q.after, q.task ?? null, q.limit],
  );
  if (r.rows.length === 0) return { state: undefined, running: false, rows: [], full: false };
  const rows: (LogRow & { seq: string })[] = [];
  for (const x of r.rows) {
    if (x.seq === null || x.seq === undefined) continue;
    rows.push({ task_run_id: x.task_run_id!, n: x.n!, task_key: x.task_key!, attempt: x.attempt!, ts: x.ts!, stream: x.stream!, text: x.text!, seq: x.seq });
  }
  return { state: r.rows[0].state, running: r.rows[0].running, rows, full: rows.length >= q.limit };
}

// ---- artifacts and metrics ---------------------------------------------------

export interface ArtifactRow {
  id: string;
  execution_id: string;
  /** Null for a file input. */
  task_run_id: string | null;
  task_key: string | null;
  name: string;
  object_key: string;
  size: string;
  content_type: string;
  /** `artifact`, `output` (an output file) or `input` (a file input, no task run). */
  kind: 'artifact' | 'output' | 'input';
  sha256: string;
  created_at: Date;
  /** created_at with all six fraction digits, for cursors (a Date keeps only milliseconds). */
  created_key: string;
}

const ARTIFACT_COLUMNS = `a.id, a.execution_id, a.task_run_id, tr.task_key, a.name, a.object_key, a.size::text AS size, a.content_type, a.kind, a.sha256, a.created_at,
  ${exactTimeText('a.created_at')} AS created_key`;

/** Artifacts of an execution, oldest first, after the cursor key (created_at, id). */
export async function artifactPage(db: Queryable, executionId: string, limit: number, after?: { createdAt: string; id: string }): Promise<ArtifactRow[]> {
  const r = await db.query<ArtifactRow>(
    `SELECT ${ARTIFACT_COLUMNS} FROM artifacts a LEFT JOIN task_runs tr ON tr.id = a.task_run_id
     WHERE a.execution_id = $1 AND ($2::timestamptz IS NULL OR (a.created_at, a.id) > ($2::timestamptz, $3::text))
     ORDER BY a.created_at, a.id LIMIT $4`,
    [executionId, after?.createdAt ?? null, after?.id ?? '', limit],
  );
  return r.rows;
}

export async function artifactOf(db: Queryable, executionId: string, artifactId: string): Promise<ArtifactRow | undefined> {
  const r = await db.query<ArtifactRow>(`SELECT ${ARTIFACT_COLUMNS} FROM artifacts a LEFT JOIN task_runs tr ON tr.id = a.task_run_id WHERE a.id = $1 AND a.execution_id = $2`, [
    artifactId,
    executionId,
  ]);
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
