// The figures of the dashboard and of a flow's charts, computed in SQL over
// the executions (spec "Dashboard" and its figure table). Every window is
// half-open, [from, to): an execution that ends exactly on a bucket edge
// belongs to the bucket that starts there.
//
// The dashboard reads closed UTC hours from a rollup (sql/dashboard-hours.ts)
// and only the open hour (and any hour not rolled up yet) from executions;
// each request first rolls up the closed hours of its window that lack it,
// and fetches only the rolled-up hours its process does not hold yet
// (dashboard-cache.ts). The rollup keeps every duration, so the percentiles
// stay exact; they are computed here with percentile_cont's own arithmetic
// (percentile.ts).
import type pg from 'pg';
import type { components } from '@svc/api-spec';
import { DashboardHoursCache, type KeptHour } from './dashboard-cache.js';
import { percentilesCont } from './percentile.js';
import { hourFigures, rollUpHours, unrolledHours, type Figures } from '../sql/dashboard-hours.js';
import { flowMetrics, flowStats, recentFailures, runningNow, type SummaryRow } from '../sql/dashboards.js';

export type DashboardRange = '24h' | '7d' | '30d';

/**
 * What a dashboard covers: every namespace, one `namespace` and its children,
 * or (`within`) only the namespaces a caller may read and their children
 * (a `none` caller's; none at all when empty).
 */
export type DashboardQuery = { range: DashboardRange } & ({ namespace?: string; within?: never } | { within: readonly string[]; namespace?: never });

/** The API objects these figures are (getDashboard, getFlowStats, getFlowMetrics). */
export type Dashboard = components['schemas']['Dashboard'];
export type FlowStats = components['schemas']['FlowStats'];
export type FlowMetrics = components['schemas']['FlowMetrics'];

const RANGES: Record<DashboardRange, { bucketSeconds: number; buckets: number }> = {
  '24h': { bucketSeconds: 3600, buckets: 24 },
  '7d': { bucketSeconds: 86_400, buckets: 7 },
  '30d': { bucketSeconds: 86_400, buckets: 30 },
};

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** The window of a range at `now`: it ends at the end of the current UTC bucket and starts one span earlier. */
export function dashboardWindow(range: DashboardRange, now: Date): { from: Date; to: Date; bucketSeconds: number; buckets: number } {
  const { bucketSeconds, buckets } = RANGES[range];
  const ms = bucketSeconds * 1000;
  const to = Math.floor(now.getTime() / ms) * ms + ms;
  return { from: new Date(to - buckets * ms), to: new Date(to), bucketSeconds, buckets };
}

const summary = (r: SummaryRow) => ({
  id: r.id,
  state: r.state,
  namespace: r.namespace,
  flow_id: r.flow_id,
  // The commit of the git sync that produced the flow's revision, as an execution has it (serialize.ts).
  ...(r.git_sha ? { git_sha: r.git_sha } : {}),
  started_at: r.started_at?.toISOString() ?? null,
  ended_at: r.ended_at?.toISOString() ?? null,
  duration_ms: r.duration_ms === null ? null : Number(r.duration_ms),
});

/** Marks older than this are of no use: no window starts before the 30-day one. */
const forgetBefore = (now: Date) => new Date(dashboardWindow('30d', now).from.getTime() - DAY_MS);

type Counts = Omit<Figures, 'durations'>;
const COUNTS = ['success', 'failed', 'timed_out', 'cancelled', 'skipped'] as const;

/** A getFlowMetrics query: the metric, the tag to group by, the aggregate per execution. */
export interface FlowMetricsQuery {
  metric: string;
  groupBy?: string;
  agg: 'sum' | 'avg' | 'max';
}

/** The figures of one Engine: the dashboard (with the rolled-up hours this process fetched) and a flow's charts. */
export class Dashboards {
  constructor(
    private readonly pool: pg.Pool,
    private readonly now: () => Date,
    /** The rolled-up hours of the dashboard this process fetched (checked against the database at every request). Default: a new cache. */
    private readonly hours = new DashboardHoursCache(),
  ) {}

  /** The dashboard (getDashboard) at the engine's clock. */
  dashboard(o: DashboardQuery): Promise<Dashboard> {
    return this.dashboardAt({ ...o, now: this.now() });
  }

  /**
   * The dashboard (getDashboard) at `now`. `hours` holds the rolled-up hours
   * this process fetched before (one per process: see dashboard-cache.ts), per
   * filter: a namespace, '' for all, or for `within` its sorted namespaces
   * after a NUL (no
   * namespace holds one: PostgreSQL text cannot).
   */
  async dashboardAt(o: DashboardQuery & { now: Date }): Promise<Dashboard> {
    const { pool, hours: cache } = this;
    const w = dashboardWindow(o.range, o.now);
    const ns = o.namespace ?? null;
    const within = o.within ? { list: o.within, key: `\0${[...o.within].sort().join('\0')}` } : null;
    const filter = within?.key ?? ns;
    const currentHour = Math.floor(o.now.getTime() / HOUR_MS) * HOUR_MS;
    await this.rollUpClosedHours(w.from, new Date(Math.min(currentHour, w.to.getTime())), o.now);
    const kept = cache.kept(filter, w.from, w.to);
    const known = new Map([...kept].map(([h, e]) => [h, e.version]));
    const [hours, running, failures] = await Promise.all([
      hourFigures(pool, { from: w.from, to: w.to, namespace: ns, ...(within ? { within: within.list } : {}), known }),
      // RUNNING or CANCELLING now (the range does not apply): the count, and the 20 oldest started.
      runningNow(pool, within ? { within: within.list } : { namespace: ns }),
      // The last 10 ended FAILED or TIMED_OUT (the range does not apply), with their latest triage's summary.
      recentFailures(pool, within ? { within: within.list } : { namespace: ns }),
    ]);

    // Every hour's figures, from the statement or, for a known version, from the cache; marked ones kept for the next request.
    const marked = new Map<number, KeptHour>();
    const buckets = Array.from({ length: w.buckets }, () => ({ success: 0, failed: 0, timed_out: 0, cancelled: 0, skipped: 0, runs: [] as Float64Array[] }));
    for (const h of hours) {
      const ms = h.hour.getTime();
      const f: Figures = h.figures ?? kept.get(ms)!;
      if (h.version !== null) marked.set(ms, { ...f, version: h.version });
      const b = buckets[Math.floor((ms - w.from.getTime()) / (w.bucketSeconds * 1000))];
      for (const k of COUNTS) b[k] += f[k];
      b.runs.push(f.durations);
    }
    cache.update(filter, w.from, w.to, marked, forgetBefore(o.now));

    const total: Counts = { success: 0, failed: 0, timed_out: 0, cancelled: 0, skipped: 0 };
    for (const b of buckets) for (const k of COUNTS) total[k] += b[k];
    const decided = total.success + total.failed + total.timed_out;
    return {
      range: o.range,
      from: w.from.toISOString(),
      to: w.to.toISOString(),
      bucket_seconds: w.bucketSeconds,
      kpis: {
        executions: decided + total.cancelled + total.skipped,
        succeeded: total.success,
        failed: total.failed,
        timed_out: total.timed_out,
        cancelled: total.cancelled,
        skipped: total.skipped,
        running: Number(running[0]?.n ?? 0),
        success_rate: decided ? total.success / decided : null,
        median_duration_ms: percentilesCont(
          buckets.flatMap((b) => b.runs),
          [0.5],
        )[0]!,
      },
      buckets: buckets.map((b, i) => {
        const [p50, p95] = percentilesCont(b.runs, [0.5, 0.95]);
        return {
          start: new Date(w.from.getTime() + i * w.bucketSeconds * 1000).toISOString(),
          success: b.success,
          failed: b.failed,
          timed_out: b.timed_out,
          cancelled: b.cancelled,
          skipped: b.skipped,
          ...(p50 != null && p95 != null ? { p50_ms: p50, p95_ms: p95 } : {}),
        };
      }),
      running: running.map(summary),
      recent_failures: failures.map((r) => ({ ...summary(r), triage_summary: r.triage_summary })),
    };
  }

  /** The last 50 executions of a flow, newest first (getFlowStats). */
  async flowStats(namespace: string, flowId: string): Promise<FlowStats> {
    const rows = await flowStats(this.pool, { namespace, flowId });
    return { items: rows.map((x) => ({ execution_id: x.id, ...summary(x), created_at: x.created_at.toISOString() })) };
  }

  /**
   * A custom metric over the last 50 executions of a flow: per execution (and
   * value of the `groupBy` tag), the `agg` of the values its tasks recorded;
   * one series per tag value, points oldest first.
   */
  async flowMetrics(namespace: string, flowId: string, o: FlowMetricsQuery): Promise<FlowMetrics> {
    const rows = await flowMetrics(this.pool, { namespace, flowId, metric: o.metric, groupBy: o.groupBy ?? null, agg: o.agg });
    const series = new Map<string | null, { execution_id: string; created_at: string; value: number }[]>();
    for (const x of rows) {
      let points = series.get(x.tag_value);
      if (!points) series.set(x.tag_value, (points = []));
      points.push({ execution_id: x.id, created_at: x.created_at.toISOString(), value: x.value });
    }
    return { metric: o.metric, agg: o.agg, ...(o.groupBy ? { group_by: o.groupBy } : {}), series: [...series].map(([tag_value, points]) => ({ tag_value, points })) };
  }

  /**
   * Rolls up the closed hours of [from, until) that are not yet. Whatever it
   * leaves (an hour locked elsewhere) the read takes from executions.
   */
  private async rollUpClosedHours(from: Date, until: Date, now: Date): Promise<void> {
    const { pool } = this;
    const hours = await unrolledHours(pool, { from, until });
    if (!hours.length) return;
    const c = await pool.connect();
    try {
      await rollUpHours(c, { hours, now, forgetBefore: forgetBefore(now) });
    } finally {
      c.release();
    }
  }
}
