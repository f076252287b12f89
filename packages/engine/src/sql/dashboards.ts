// The dashboard's and a flow's charts' reads of executions (systems/dashboards.ts);
// the hourly rollup's statements are dashboard-hours.ts.
import type { Queryable } from '@svc/db';
import type { ExecutionState } from '@svc/state-machine';
import { inNamespace, inNamespaces } from './dashboard-hours.js';

export const IN_NAMESPACE = (n: string) => inNamespace('e.namespace', n);
/** Executions in the namespaces of array $n and their children (a caller's readable ones). */
const WITHIN = (n: string) => inNamespaces('e.namespace', n);

/** The columns of an execution summary (`e`). */
export const SUMMARY = `e.id, e.state, e.namespace, e.flow_id, e.git_sha, e.started_at, e.ended_at, e.duration_ms::int8::text AS duration_ms`;

const runningNowSql = (where: string) => `SELECT ${SUMMARY}, count(*) OVER () AS n FROM executions e
       WHERE e.state IN ('RUNNING', 'CANCELLING') AND ${where}
       ORDER BY e.started_at NULLS LAST, e.id LIMIT 20`;

/** RUNNING or CANCELLING executions in namespace $1 (or any): the 20 oldest started, with the count of all. */
const RUNNING_NOW_SQL = runningNowSql(IN_NAMESPACE('$1'));
/** The same in the namespaces of array $1 and their children. */
const RUNNING_WITHIN_SQL = runningNowSql(WITHIN('$1'));

const recentFailuresSql = (where: string) => `SELECT ${SUMMARY},
         (SELECT i.summary FROM ai_insights i WHERE i.execution_id = e.id AND i.kind = 'triage' AND i.status = 'done' ORDER BY i.created_at DESC LIMIT 1) AS triage_summary
       FROM executions e
       WHERE e.state IN ('FAILED', 'TIMED_OUT') AND e.ended_at IS NOT NULL AND ${where}
       ORDER BY e.ended_at DESC, e.id DESC LIMIT 10`;

/** The last 10 executions ended FAILED or TIMED_OUT in namespace $1 (or any), with their latest triage's summary. */
const RECENT_FAILURES_SQL = recentFailuresSql(IN_NAMESPACE('$1'));
/** The same in the namespaces of array $1 and their children. */
const RECENT_FAILURES_WITHIN_SQL = recentFailuresSql(WITHIN('$1'));

/** The last 50 executions of flow $1/$2, newest first. */
const FLOW_STATS_SQL = `SELECT ${SUMMARY}, e.created_at FROM executions e WHERE e.namespace = $1 AND e.flow_id = $2 ORDER BY e.created_at DESC, e.id DESC LIMIT 50`;

/** Metric $3 of the last 50 executions of flow $1/$2: per execution (and value of tag $4), the aggregate $5 of its values. */
const FLOW_METRICS_SQL = `WITH last AS (SELECT id, created_at FROM executions WHERE namespace = $1 AND flow_id = $2 ORDER BY created_at DESC, id DESC LIMIT 50)
     SELECT l.id, l.created_at, CASE WHEN $4::text IS NULL THEN NULL ELSE m.tags->>$4 END AS tag_value,
       (CASE $5 WHEN 'sum' THEN sum(m.value) WHEN 'avg' THEN avg(m.value) ELSE max(m.value) END)::float8 AS value
     FROM last l JOIN task_metrics m ON m.execution_id = l.id AND m.name = $3
     GROUP BY l.id, l.created_at, 3
     ORDER BY 3 NULLS FIRST, l.created_at, l.id`;

/** An execution summary (SUMMARY). */
export interface SummaryRow {
  id: string;
  state: ExecutionState;
  namespace: string;
  flow_id: string | null;
  git_sha: string | null;
  started_at: Date | null;
  ended_at: Date | null;
  duration_ms: string | null;
}

/** Which executions: those of `namespace` and its children (null: all), or with `within` those of its namespaces and their children. */
export type Scope = { namespace: string | null; within?: undefined } | { within: readonly string[]; namespace?: undefined };

/** RUNNING or CANCELLING executions of `scope`: the 20 oldest started, each with the count of all (`n`). */
export async function runningNow(db: Queryable, p: Scope): Promise<(SummaryRow & { n: string })[]> {
  return (await db.query<SummaryRow & { n: string }>(p.within ? RUNNING_WITHIN_SQL : RUNNING_NOW_SQL, [p.within ?? p.namespace])).rows;
}

/** The last 10 executions of `scope` ended FAILED or TIMED_OUT, with their latest triage's summary. */
export async function recentFailures(db: Queryable, p: Scope): Promise<(SummaryRow & { triage_summary: string | null })[]> {
  return (await db.query<SummaryRow & { triage_summary: string | null }>(p.within ? RECENT_FAILURES_WITHIN_SQL : RECENT_FAILURES_SQL, [p.within ?? p.namespace])).rows;
}

/** The last 50 executions of flow `namespace`/`flowId`, newest first. */
export async function flowStats(db: Queryable, p: { namespace: string; flowId: string }): Promise<(SummaryRow & { created_at: Date })[]> {
  return (await db.query<SummaryRow & { created_at: Date }>(FLOW_STATS_SQL, [p.namespace, p.flowId])).rows;
}

/** Metric `metric` of the last 50 executions of flow `namespace`/`flowId`: per execution (and value of tag `groupBy`), the aggregate `agg` of its values. */
export async function flowMetrics(
  db: Queryable,
  p: { namespace: string; flowId: string; metric: string; groupBy: string | null; agg: 'sum' | 'avg' | 'max' },
): Promise<{ id: string; created_at: Date; tag_value: string | null; value: number }[]> {
  return (await db.query<{ id: string; created_at: Date; tag_value: string | null; value: number }>(FLOW_METRICS_SQL, [p.namespace, p.flowId, p.metric, p.groupBy, p.agg])).rows;
}
