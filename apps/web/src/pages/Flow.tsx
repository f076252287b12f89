// One flow: run form, enable/disable, the task graph of the definition
// (components/DefinitionGraph.tsx), the definition's text, triggers (webhook URL and
// key rotation for editors, next schedule fire times), backfills of a schedule
// (components/BackfillSection.tsx), charts of the last 50
// durations and of custom metrics, and revisions with a side-by-side diff.
import { useState } from 'react';
import { client } from '../api';
import { BackfillSection } from '../components/BackfillSection';
import { BatchRun } from '../components/BatchRun';
import { Bars, Lines } from '../components/charts';
import { DefinitionGraph } from '../components/DefinitionGraph';
import { DiffView } from '../components/DiffView';
import { RunForm } from '../components/RunForm';
import { Link } from '../router';
import { usePermission } from '../session';
import type { QueryParams, Trigger } from '../types';
import { Button, CopyButton, ErrorBox, Loading, Section, fmtDuration, fmtTime, useAction, useLoad } from '../ui';

/** The path parameters of a flow's calls. */
const flowAt = (namespace: string, flowId: string) => ({ params: { path: { namespace, flowId } } });

export function FlowPage({ ns, flowId }: { ns: string; flowId: string }) {
  const at = flowAt(ns, flowId);
  const flow = useLoad(() => client.get('/api/v1/flows/{namespace}/{flowId}', at), [ns, flowId]);
  const { needs } = usePermission();
  const toggle = useAction(async () => {
    flow.setData(await client.patch('/api/v1/flows/{namespace}/{flowId}', { ...at, body: { enabled: !flow.data!.enabled } }));
    flow.reload();
  });
  if (flow.error) return <ErrorBox error={flow.error} />;
  if (!flow.data) return <Loading what="the flow" />;
  const f = flow.data;
  const runWhy = needs('operator', ns) ?? (f.enabled ? null : 'The flow is disabled');
  return (
    <div className="page">
      <div className="row wrap">
        <h1>
          {f.namespace}/{f.id}
        </h1>
        {!f.enabled && <span className="badge">disabled</span>}
        <div className="spacer" />
        <Link className="button" to={`/executions?namespace=${encodeURIComponent(ns)}&flow=${encodeURIComponent(flowId)}`}>
          Executions
        </Link>
        <Link className="button" to={`/editor/${ns}?file=${encodeURIComponent(f.path ?? '')}`}>
          Open in editor
        </Link>
        <Button disabledReason={needs('editor', ns)} disabled={toggle.busy} onClick={() => void toggle.run()}>
          {f.enabled ? 'Disable' : 'Enable'}
        </Button>
      </div>
      {f.description && <p>{f.description}</p>}
      <ErrorBox error={toggle.error} />
      <div className="grid2">
        <Section title="Run">
          <RunModes ns={ns} flowId={flowId} inputs={f.definition?.inputs ?? []} disabledReason={runWhy} />
        </Section>
        <Section title="Triggers">
          <Triggers ns={ns} flowId={flowId} enabled={f.enabled} triggers={f.triggers ?? []} onRotated={flow.reload} />
        </Section>
      </div>
      <div className="grid2">
        <Section title="Last 50 durations">
          <Durations ns={ns} flowId={flowId} />
        </Section>
        <Section title="Custom metrics">
          <MetricChart ns={ns} flowId={flowId} />
        </Section>
      </div>
      {(f.triggers ?? []).some((t) => t.type === 'schedule') && (
        <Section title="Backfill">
          <BackfillSection ns={ns} flowId={flowId} triggers={f.triggers ?? []} />
        </Section>
      )}
      <Section title="Task graph">
        <DefinitionGraph definition={f.definition} />
      </Section>
      <Section title="Definition">
        <pre className="code-block">{f.source}</pre>
      </Section>
      <Section title="Revisions">
        <Revisions ns={ns} flowId={flowId} current={f.revision_id ?? undefined} />
      </Section>
    </div>
  );
}

/** The run section: the form for one execution, or a batch from a pasted list. */
function RunModes(p: { ns: string; flowId: string; inputs: Parameters<typeof RunForm>[0]['inputs']; disabledReason: string | null }) {
  const [mode, setMode] = useState<'one' | 'batch'>('one');
  return (
    <div className="stack">
      <div className="row" role="group" aria-label="Run mode">
        <Button aria-pressed={mode === 'one'} className={mode === 'one' ? 'primary' : undefined} onClick={() => setMode('one')}>
          One
        </Button>
        <Button aria-pressed={mode === 'batch'} className={mode === 'batch' ? 'primary' : undefined} onClick={() => setMode('batch')}>
          Batch
        </Button>
      </div>
      {mode === 'one' ? <RunForm {...p} /> : <BatchRun ns={p.ns} flowId={p.flowId} disabledReason={p.disabledReason} />}
    </div>
  );
}

/** "in 3h 5m" / "in 40 s" from now to `iso`. */
export function fromNow(iso: string, now = Date.now()): string {
  const ms = Date.parse(iso) - now;
  if (ms <= 0) return 'due now';
  return `in ${fmtDuration(ms).replace(/\.\d+ s$/, ' s')}`;
}

function Triggers({ ns, flowId, enabled, triggers, onRotated }: { ns: string; flowId: string; enabled: boolean; triggers: Trigger[]; onRotated: () => void }) {
  const { needs } = usePermission();
  const upcoming = useLoad(
    async () => (await client.all('/api/v1/schedules/upcoming', { params: { query: { namespace: ns } } }, 1000)).filter((s) => s.flow_id === flowId && s.namespace === ns),
    [ns, flowId, enabled],
    30_000,
  );
  const rotate = useAction(async (t: string) => {
    await client.post('/api/v1/flows/{namespace}/{flowId}/triggers/{triggerId}/webhook-key', { params: { path: { namespace: ns, flowId, triggerId: t } } });
    onRotated();
  });
  if (!triggers.length) return <p className="muted">No triggers: the flow runs when started by hand.</p>;
  return (
    <>
      <ul className="triggers">
        {triggers.map((t) => (
          <li key={t.id} aria-label={`Trigger ${t.id}`}>
            <strong>{t.id}</strong> <span className="badge">{t.type}</span>
            {t.type === 'webhook' &&
              (t.webhook_url ? (
                <div className="row wrap">
                  <code className="secret" data-testid="webhook-url">
                    {t.webhook_url}
                  </code>{' '}
                  <CopyButton text={t.webhook_url} label="Copy webhook URL" />
                  <Button
                    disabledReason={needs('editor', ns)}
                    disabled={rotate.busy}
                    onClick={() => confirm('Rotate the key? The old URL stops working at once.') && void rotate.run(t.id)}
                  >
                    Rotate key
                  </Button>
                </div>
              ) : (
                <p className="muted small">The webhook URL is shown to editors.</p>
              ))}
            {t.type === 'schedule' &&
              (() => {
                const mine = (upcoming.data ?? []).filter((s) => s.trigger_id === t.id);
                if (!enabled) return <p className="muted small">Paused: the flow is disabled, so the schedule does not fire.</p>;
                if (!upcoming.data) return null;
                if (!mine.length) return <p className="muted small">No fire time yet: the scheduler has not planned this schedule.</p>;
                return mine.map((s) => (
                  <p key={s.next_fire_at} className="small" data-testid={`next-fire-${t.id}`}>
                    Next fire <time dateTime={s.next_fire_at}>{fmtTime(s.next_fire_at)}</time> ({fromNow(s.next_fire_at)}) · <code>{s.cron}</code> {s.timezone} · last fired{' '}
                    {s.last_fired_at ? fmtTime(s.last_fired_at) : 'never'}
                  </p>
                ));
              })()}
          </li>
        ))}
      </ul>
      <ErrorBox error={rotate.error ?? upcoming.error} />
    </>
  );
}

function Durations({ ns, flowId }: { ns: string; flowId: string }) {
  const stats = useLoad(() => client.get('/api/v1/flows/{namespace}/{flowId}/stats', flowAt(ns, flowId)), [ns, flowId]);
  if (stats.error) return <ErrorBox error={stats.error} />;
  if (!stats.data) return <Loading />;
  const items = [...stats.data.items].reverse().filter((s) => s.duration_ms !== null);
  if (!items.length) return <p className="muted">No ended runs yet.</p>;
  return (
    <Bars
      title="Durations of the last 50 executions, oldest first"
      items={items.map((s) => ({ value: s.duration_ms!, className: `fill-${s.state.toLowerCase()}`, label: `${s.execution_id} ${s.state}` }))}
    />
  );
}

/** The aggregates getFlowMetrics offers. */
const AGGS = ['sum', 'avg', 'max'] as const satisfies readonly NonNullable<QueryParams<'getFlowMetrics'>['agg']>[];
type Agg = (typeof AGGS)[number];

function MetricChart({ ns, flowId }: { ns: string; flowId: string }) {
  const [metric, setMetric] = useState('');
  const [groupBy, setGroupBy] = useState('');
  const [agg, setAgg] = useState<Agg>('sum');
  const data = useLoad(
    async () =>
      metric ? client.get('/api/v1/flows/{namespace}/{flowId}/metrics', { params: { path: { namespace: ns, flowId }, query: { metric, group_by: groupBy, agg } } }) : undefined,
    [ns, flowId, metric, groupBy, agg],
  );
  return (
    <>
      <form className="row wrap" onSubmit={(e) => e.preventDefault()}>
        <label>
          Metric <input value={metric} onChange={(e) => setMetric(e.target.value)} placeholder="e.g. rows" />
        </label>
        <label>
          Group by tag <input value={groupBy} onChange={(e) => setGroupBy(e.target.value)} />
        </label>
        <label>
          Aggregate
          <select value={agg} onChange={(e) => setAgg(AGGS.find((a) => a === e.target.value) ?? 'sum')}>
            {AGGS.map((a) => (
              <option key={a}>{a}</option>
            ))}
          </select>
        </label>
      </form>
      <ErrorBox error={data.error} />
      {data.data &&
        (data.data.series.length ? (
          <Lines
            title={`${agg} of ${metric} per execution`}
            format={(v) => String(Math.round(v * 100) / 100)}
            series={data.data.series.map((s, i) => ({ label: s.tag_value ?? metric, className: `line-s${i % 6}`, values: s.points.map((p) => p.value) }))}
          />
        ) : (
          <p className="muted">No values of {metric} in the last 50 executions.</p>
        ))}
    </>
  );
}

function Revisions({ ns, flowId, current }: { ns: string; flowId: string; current?: string }) {
  const revs = useLoad(() => client.all('/api/v1/flows/{namespace}/{flowId}/revisions', flowAt(ns, flowId), 600), [ns, flowId]);
  const [from, setFrom] = useState<string>();
  const diff = useLoad(
    async () => (from ? client.get('/api/v1/flows/{namespace}/{flowId}/diff', { params: { path: { namespace: ns, flowId }, query: { from } } }) : undefined),
    [ns, flowId, from],
  );
  if (revs.error) return <ErrorBox error={revs.error} />;
  if (!revs.data) return <Loading />;
  return (
    <>
      <table>
        <thead>
          <tr>
            <th>Revision</th>
            <th>Saved</th>
            <th>By</th>
            <th>Namespace version</th>
            <th>
              <span className="sr-only">Compare</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {revs.data.map((r) => (
            <tr key={r.id}>
              <td>
                #{r.revision}
                {r.id === current ? ' (current)' : ''}
              </td>
              <td>{fmtTime(r.created_at)}</td>
              <td>{r.created_by}</td>
              <td>{r.namespace_version ?? '—'}</td>
              <td>
                {r.id !== current && (
                  <Button aria-label={`Compare revision ${r.revision} with the current one`} onClick={() => setFrom(r.id)}>
                    Compare with current
                  </Button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <ErrorBox error={diff.error} />
      {diff.data &&
        (diff.data.too_large ? (
          <p className="muted">The revisions differ too much to show a line diff.</p>
        ) : (
          <DiffView diff={diff.data.diff ?? ''} leftTitle={`revision ${diff.data.from.revision}`} rightTitle={`revision ${diff.data.to.revision}`} />
        ))}
    </>
  );
}
