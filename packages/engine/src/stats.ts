// The figures of the dashboard and of a flow's charts, computed in SQL over
// the executions (spec "Dashboard" and its figure table). Every window is
// half-open, [from, to): an execution that ends exactly on a bucket edge
// belongs to the bucket that starts there.
import type pg from 'pg';

export type DashboardRange = '24h' | '7d' | '30d';

const RANGES: Record<DashboardRange, { bucketSeconds: number; buckets: number }> = {
  '24h': { bucketSeconds: 3600, buckets: 24 },
  '7d': { bucketSeconds: 86_400, buckets: 7 },
  '30d': { bucketSeconds: 86_400, buckets: 30 },
};

/** The window of a range at `now`: it ends at the end of the current UTC bucket and starts one span earlier. */
export function dashboardWindow(range: DashboardRange, now: Date): { from: Date; to: Date; bucketSeconds: number; buckets: number } {
  const { bucketSeconds, buckets } = RANGES[range];
  const ms = bucketSeconds * 1000;
  const to = Math.floor(now.getTime() / ms) * ms + ms;
  return { from: new Date(to - buckets * ms), to: new Date(to), bucketSeconds, buckets };
}

/** SQL: the namespace `$n` and its children (`a.b` selects `a.b` and `a.b.c`, never `a.bc`); every namespace when null. */
const IN_NAMESPACE = (n: string) => `(${n}::text IS NULL OR e.namespace = ${n} OR e.namespace LIKE ${n} || '.%')`;

const SUMMARY = `e.id, e.state, e.namespace, e.flow_id, e.started_at, e.ended_at, e.duration_ms::int8::text AS duration_ms`;

interface SummaryRow {
  id: string;
  state: string;
  namespace: string;
  flow_id: string | null;
  started_at: Date | null;
  ended_at: Date | null;
  duration_ms: string | null;
}

const summary = (r: SummaryRow) => ({
  id: r.id,
  state: r.state,
  namespace: r.namespace,
  flow_id: r.flow_id,
  started_at: r.started_at?.toISOString() ?? null,
  ended_at: r.ended_at?.toISOString() ?? null,
  duration_ms: r.duration_ms === null ? null : Number(r.duration_ms),
});

interface BucketRow {
  b: number | null;
  total: string;
  success: string;
  failed: string;
  timed_out: string;
  cancelled: string;
  skipped: string;
  p50: number | null;
  p95: number | null;
}

export async function dashboard(pool: pg.Pool, o: { range: DashboardRange; namespace?: string; now: Date }) {
  const w = dashboardWindow(o.range, o.now);
  const ns = o.namespace ?? null;
  const [buckets, running, failures] = await Promise.all([
    // Per bucket and in all (GROUPING SETS: the row with b NULL), over the executions ended in the window.
    pool.query<BucketRow>(
      `SELECT floor(extract(epoch FROM (e.ended_at - $1::timestamptz)) / $3)::int AS b,
         count(*) AS total,
         count(*) FILTER (WHERE e.state = 'SUCCESS') AS success,
         count(*) FILTER (WHERE e.state = 'FAILED') AS failed,
         count(*) FILTER (WHERE e.state = 'TIMED_OUT') AS timed_out,
         count(*) FILTER (WHERE e.state = 'CANCELLED') AS cancelled,
         count(*) FILTER (WHERE e.state = 'SKIPPED') AS skipped,
         percentile_cont(0.5) WITHIN GROUP (ORDER BY e.duration_ms) FILTER (WHERE e.state IN ('SUCCESS', 'FAILED', 'TIMED_OUT')) AS p50,
         percentile_cont(0.95) WITHIN GROUP (ORDER BY e.duration_ms) FILTER (WHERE e.state IN ('SUCCESS', 'FAILED', 'TIMED_OUT')) AS p95
       FROM executions e
       WHERE e.ended_at >= $1 AND e.ended_at < $2 AND e.state IN ('SUCCESS', 'FAILED', 'TIMED_OUT', 'CANCELLED', 'SKIPPED') AND ${IN_NAMESPACE('$4')}
       GROUP BY GROUPING SETS ((floor(extract(epoch FROM (e.ended_at - $1::timestamptz)) / $3)::int), ())`,
      [w.from, w.to, w.bucketSeconds, ns],
    ),
    // RUNNING or CANCELLING now (the range does not apply): the count, and the 20 oldest started.
    pool.query<SummaryRow & { n: string }>(
      `SELECT ${SUMMARY}, count(*) OVER () AS n FROM executions e
       WHERE e.state IN ('RUNNING', 'CANCELLING') AND ${IN_NAMESPACE('$1')}
       ORDER BY e.started_at NULLS LAST, e.id LIMIT 20`,
      [ns],
    ),
    // The last 10 ended FAILED or TIMED_OUT (the range does not apply), with their latest triage's summary.
    pool.query<SummaryRow & { triage_summary: string | null }>(
      `SELECT ${SUMMARY},
         (SELECT i.summary FROM ai_insights i WHERE i.execution_id = e.id AND i.kind = 'triage' AND i.status = 'done' ORDER BY i.created_at DESC LIMIT 1) AS triage_summary
       FROM executions e
       WHERE e.state IN ('FAILED', 'TIMED_OUT') AND e.ended_at IS NOT NULL AND ${IN_NAMESPACE('$1')}
       ORDER BY e.ended_at DESC, e.id DESC LIMIT 10`,
      [ns],
    ),
  ]);
  const all = buckets.rows.find((r) => r.b === null);
  const byIndex = new Map(buckets.rows.filter((r) => r.b !== null).map((r) => [r.b!, r]));
  const n = (v: string | undefined) => Number(v ?? 0);
  const decided = n(all?.success) + n(all?.failed) + n(all?.timed_out);
  return {
    range: o.range,
    from: w.from.toISOString(),
    to: w.to.toISOString(),
    bucket_seconds: w.bucketSeconds,
    kpis: {
      executions: n(all?.total),
      succeeded: n(all?.success),
      failed: n(all?.failed),
      timed_out: n(all?.timed_out),
      cancelled: n(all?.cancelled),
      skipped: n(all?.skipped),
      running: n(running.rows[0]?.n),
      success_rate: decided ? n(all?.success) / decided : null,
      median_duration_ms: all?.p50 ?? null,
    },
    buckets: Array.from({ length: w.buckets }, (_, i) => {
      const r = byIndex.get(i);
      return {
        start: new Date(w.from.getTime() + i * w.bucketSeconds * 1000).toISOString(),
        success: n(r?.success),
        failed: n(r?.failed),
        timed_out: n(r?.timed_out),
        cancelled: n(r?.cancelled),
        skipped: n(r?.skipped),
        ...(r?.p50 !== null && r?.p50 !== undefined ? { p50_ms: r.p50, p95_ms: r.p95! } : {}),
      };
    }),
    running: running.rows.map(summary),
    recent_failures: failures.rows.map((r) => ({ ...summary(r), triage_summary: r.triage_summary })),
  };
}

/** The last 50 executions of a flow, newest first. */
export async function flowStats(pool: pg.Pool, namespace: string, flowId: string) {
  const r = await pool.query<SummaryRow & { created_at: Date }>(
    `SELECT ${SUMMARY}, e.created_at FROM executions e WHERE e.namespace = $1 AND e.flow_id = $2 ORDER BY e.created_at DESC, e.id DESC LIMIT 50`,
    [namespace, flowId],
  );
  return { items: r.rows.map((x) => ({ execution_id: x.id, ...summary(x), created_at: x.created_at.toISOString() })) };
}

/**
 * A custom metric over the last 50 executions of a flow: per execution (and
 * value of the `groupBy` tag), the `agg` of the values its tasks recorded;
 * one series per tag value, points oldest first.
 */
export async function flowMetrics(pool: pg.Pool, namespace: string, flowId: string, o: { metric: string; groupBy?: string; agg: 'sum' | 'avg' | 'max' }) {
  const r = await pool.query<{ id: string; created_at: Date; tag_value: string | null; value: number }>(
    `WITH last AS (SELECT id, created_at FROM executions WHERE namespace = $1 AND flow_id = $2 ORDER BY created_at DESC, id DESC LIMIT 50)
     SELECT l.id, l.created_at, CASE WHEN $4::text IS NULL THEN NULL ELSE m.tags->>$4 END AS tag_value,
       (CASE $5 WHEN 'sum' THEN sum(m.value) WHEN 'avg' THEN avg(m.value) ELSE max(m.value) END)::float8 AS value
     FROM last l JOIN task_metrics m ON m.execution_id = l.id AND m.name = $3
     GROUP BY l.id, l.created_at, 3
     ORDER BY 3 NULLS FIRST, l.created_at, l.id`,
    [namespace, flowId, o.metric, o.groupBy ?? null, o.agg],
  );
  const series = new Map<string | null, { execution_id: string; created_at: string; value: number }[]>();
  for (const x of r.rows) {
    let points = series.get(x.tag_value);
    if (!points) series.set(x.tag_value, (points = []));
    points.push({ execution_id: x.id, created_at: x.created_at.toISOString(), value: x.value });
  }
  return { metric: o.metric, agg: o.agg, ...(o.groupBy ? { group_by: o.groupBy } : {}), series: [...series].map(([tag_value, points]) => ({ tag_value, points })) };
}
