// The dashboard's and a flow's charts' reads of executions (systems/dashboards.ts);
// the hourly rollup's statements are dashboard-hours.ts.
import { inNamespace, inNamespaces } from './dashboard-hours.js';

export const IN_NAMESPACE = (n: string) => inNamespace('e.namespace', n);
/** Executions in the namespaces of array $n and their children (a caller's readable ones, issue #34). */
const WITHIN = (n: string) => inNamespaces('e.namespace', n);

/** The columns of an execution summary (`e`). */
export const SUMMARY = `e.id, e.state, e.namespace, e.flow_id, e.git_sha, e.started_at, e.ended_at, e.duration_ms::int8::text AS duration_ms`;

const runningNow = (where: string) => `SELECT ${SUMMARY}, count(*) OVER () AS n FROM executions e
       WHERE e.state IN ('RUNNING', 'CANCELLING') AND ${where}
       ORDER BY e.started_at NULLS LAST, e.id LIMIT 20`;

/** RUNNING or CANCELLING executions in namespace $1 (or any): the 20 oldest started, with the count of all. */
export const RUNNING_NOW_SQL = runningNow(IN_NAMESPACE('$1'));
/** The same in the namespaces of array $1 and their children. */
export const RUNNING_WITHIN_SQL = runningNow(WITHIN('$1'));

const recentFailures = (where: string) => `SELECT ${SUMMARY},
         (SELECT i.summary FROM ai_insights i WHERE i.execution_id = e.id AND i.kind = 'triage' AND i.status = 'done' ORDER BY i.created_at DESC LIMIT 1) AS triage_summary
       FROM executions e
       WHERE e.state IN ('FAILED', 'TIMED_OUT') AND e.ended_at IS NOT NULL AND ${where}
       ORDER BY e.ended_at DESC, e.id DESC LIMIT 10`;

/** The last 10 executions ended FAILED or TIMED_OUT in namespace $1 (or any), with their latest triage's summary. */
export const RECENT_FAILURES_SQL = recentFailures(IN_NAMESPACE('$1'));
/** The same in the namespaces of array $1 and their children. */
export const RECENT_FAILURES_WITHIN_SQL = recentFailures(WITHIN('$1'));

/** The last 50 executions of flow $1/$2, newest first. */
export const FLOW_STATS_SQL = `SELECT ${SUMMARY}, e.created_at FROM executions e WHERE e.namespace = $1 AND e.flow_id = $2 ORDER BY e.created_at DESC, e.id DESC LIMIT 50`;

/** Metric $3 of the last 50 executions of flow $1/$2: per execution (and value of tag $4), the aggregate $5 of its values. */
export const FLOW_METRICS_SQL = `WITH last AS (SELECT id, created_at FROM executions WHERE namespace = $1 AND flow_id = $2 ORDER BY created_at DESC, id DESC LIMIT 50)
     SELECT l.id, l.created_at, CASE WHEN $4::text IS NULL THEN NULL ELSE m.tags->>$4 END AS tag_value,
       (CASE $5 WHEN 'sum' THEN sum(m.value) WHEN 'avg' THEN avg(m.value) ELSE max(m.value) END)::float8 AS value
     FROM last l JOIN task_metrics m ON m.execution_id = l.id AND m.name = $3
     GROUP BY l.id, l.created_at, 3
     ORDER BY 3 NULLS FIRST, l.created_at, l.id`;
