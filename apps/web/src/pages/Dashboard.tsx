// The dashboard (getDashboard): KPI tiles, ended executions per bucket by end
// state, p50/p95 durations, what runs now and the recent failures with their
// triage summary. Refreshed every 5 seconds while open. A `none` user reads
// only its bound namespaces: its "all" is theirs (the API limits
// the figures to them), and the picker offers only them.
import { client } from '../api';
import { Lines, StackedBars } from '../components/charts';
import { useQueryParam } from '../router';
import { useSession } from '../session';
import type { QueryParams } from '../types';
import { ErrorBox, Loading, Section, arrowSelect, fmtDuration, useLoad } from '../ui';
import { ExecutionTable } from './Executions';

const RANGES = ['24h', '7d', '30d'] as const satisfies readonly NonNullable<QueryParams<'getDashboard'>['range']>[];

export function Dashboard() {
  const [range, setRange] = useQueryParam('range');
  const [namespace, setNamespace] = useQueryParam('namespace');
  const { me } = useSession();
  const scoped = me.role === 'none';
  const r = RANGES.find((x) => x === range) ?? '24h';
  const dash = useLoad(
    () =>
      scoped && !me.role_bindings?.length
        ? Promise.reject(new Error('No namespace is open to you yet: ask an admin for a role binding.'))
        : client.get('/api/v1/stats/dashboard', { params: { query: { range: r, namespace } } }),
    [r, namespace],
    5000,
  );
  const namespaces = useLoad(() => client.all('/api/v1/namespaces'), []);
  const d = dash.data;
  const bucketLabel = (b: { start?: string }, i: number) => {
    if (!b.start || !d) return String(i);
    const t = new Date(b.start);
    return d.bucket_seconds < 86400 ? t.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' }) : t.toLocaleDateString();
  };
  return (
    <div className="page">
      <div className="row wrap">
        <h1>Dashboard</h1>
        <div className="spacer" />
        <div role="radiogroup" aria-label="Range" className="segmented">
          {RANGES.map((x) => (
            <button
              key={x}
              type="button"
              role="radio"
              aria-checked={r === x}
              tabIndex={r === x ? 0 : -1}
              className={r === x ? 'active' : ''}
              onClick={() => setRange(x)}
              onKeyDown={arrowSelect(RANGES, x, setRange, 'radio')}
            >
              {x}
            </button>
          ))}
        </div>
        <label>
          Namespace
          <select value={namespace} onChange={(e) => setNamespace(e.target.value)}>
            <option value="">{scoped ? 'all of mine' : 'all'}</option>
            {namespaces.data?.map((n) => (
              <option key={n.name}>{n.name}</option>
            ))}
          </select>
        </label>
      </div>
      <ErrorBox error={dash.error} />
      {!d ? (
        !dash.error && <Loading what="the dashboard" />
      ) : (
        <>
          <div className="tiles" data-testid="kpis">
            <Tile label="Executions" value={d.kpis.executions} />
            <Tile label="Succeeded" value={d.kpis.succeeded} cls="state-success" />
            <Tile label="Failed" value={d.kpis.failed} cls="state-failed" />
            <Tile label="Timed out" value={d.kpis.timed_out} cls="state-timed_out" />
            <Tile label="Cancelled" value={d.kpis.cancelled} cls="state-cancelled" />
            <Tile label="Running now" value={d.kpis.running} cls="state-running" />
            <Tile label="Success rate" value={d.kpis.success_rate === null ? '—' : `${Math.round((d.kpis.success_rate ?? 0) * 1000) / 10}%`} />
            <Tile label="Median duration" value={fmtDuration(d.kpis.median_duration_ms)} />
          </div>
          <div className="grid2">
            <Section title="Ended executions per bucket">
              <StackedBars
                title="Ended executions per bucket by end state"
                buckets={d.buckets.map(({ success, failed, timed_out, cancelled, skipped }) => ({ success, failed, timed_out, cancelled, skipped }))}
                labels={d.buckets.map(bucketLabel)}
                series={[
                  { key: 'success', label: 'success', className: 'fill-success' },
                  { key: 'failed', label: 'failed', className: 'fill-failed' },
                  { key: 'timed_out', label: 'timed out', className: 'fill-timed_out' },
                  { key: 'cancelled', label: 'cancelled', className: 'fill-cancelled' },
                  { key: 'skipped', label: 'skipped', className: 'fill-skipped' },
                ]}
              />
            </Section>
            <Section title="Durations p50 / p95">
              <Lines
                title="Duration percentiles per bucket"
                series={[
                  { label: 'p50', className: 'line-p50', values: d.buckets.map((b) => b.p50_ms) },
                  { label: 'p95', className: 'line-p95', values: d.buckets.map((b) => b.p95_ms) },
                ]}
              />
            </Section>
          </div>
          <Section title={`Running (${d.running.length})`}>
            <ExecutionTable items={d.running} />
          </Section>
          <Section title="Recent failures">
            <ExecutionTable items={d.recent_failures} showTriage />
          </Section>
        </>
      )}
    </div>
  );
}

function Tile({ label, value, cls = '' }: { label: string; value: number | string | null | undefined; cls?: string }) {
  return (
    <div className={`tile ${cls}`} aria-label={`${label}: ${value ?? 0}`}>
      <div className="tile-value">{value ?? 0}</div>
      <div className="tile-label">{label}</div>
    </div>
  );
}
