// AI triage on a failed execution's page: the latest insight (summary,
// probable cause, suggested fix) with the evidence it rests on, each item
// linked to its place: the execution, a failed task run (its task selected
// on this page), each log line of a tail (scrolled to in the logs), the flow,
// the last successful run. An operator asks for a triage (again); while one
// runs, the section polls until it is done. Earlier triages are listed below.
import { useEffect } from 'react';
import { client, withQuery } from '../../api';
import { Link } from '../../router';
import { usePermission } from '../../session';
import type { Execution } from '../../types';
import { Button, ErrorBox, Loading, Section, fmtTime, useAction, useLoad } from '../../ui';
import type { Evidence, EvidenceKind, Insight } from './types';

/** The states a triage is asked for in (requestTriage answers 409 for others). */
export const TRIAGED = ['FAILED', 'TIMED_OUT'];
const RUNNING = ['pending', 'running'];

const KIND: Record<EvidenceKind, string> = {
  execution: 'Execution',
  task_run: 'Failed task run',
  log_tail: 'Log lines',
  flow_definition: 'Flow definition',
  changes_since_success: 'Since the last success',
};

/** The execution page's URL showing `task` (selected) and, optionally, one of its log lines. */
export function placeOf(executionId: string, at: { task?: string; taskRunId?: string; n?: number } = {}): string {
  return withQuery(`/executions/${encodeURIComponent(executionId)}`, { task: at.task, log: at.taskRunId && at.n !== undefined ? `${at.taskRunId}:${at.n}` : undefined });
}

export function Triage({ ex }: { ex: Execution }) {
  const { needs } = usePermission();
  const status = useLoad(() => client.get('/api/v1/ai/status'), []);
  const insights = useLoad(() => client.get('/api/v1/executions/{executionId}/insights', { params: { path: { executionId: ex.id }, query: { limit: 10 } } }), [ex.id]);
  const latest = insights.data?.items[0];
  const inFlight = !!latest && RUNNING.includes(latest.state);
  // Polled while a triage runs: it ends in seconds, and nothing streams its end.
  useEffect(() => {
    if (!inFlight) return;
    const t = setTimeout(insights.reload, 1000);
    return () => clearTimeout(t);
  }, [inFlight, insights.data]);
  const ask = useAction(async () => {
    await client.post('/api/v1/executions/{executionId}/insights', { params: { path: { executionId: ex.id } } });
    insights.reload();
  });

  const off = status.data && !status.data.enabled ? 'AI is off: no AI provider is configured' : null;
  const button = (
    <Button
      className={latest ? '' : 'primary'}
      disabledReason={needs('operator', ex.namespace) ?? off ?? (inFlight ? 'A triage is running' : null)}
      disabled={ask.busy}
      onClick={() => void ask.run()}
    >
      {latest ? 'Triage again' : 'Triage with AI'}
    </Button>
  );
  return (
    <Section title="AI triage" actions={button}>
      <ErrorBox error={ask.error ?? insights.error} />
      {!insights.data ? (
        <Loading what="the triage" />
      ) : !latest ? (
        <p className="muted">
          {off
            ? `${off}; an admin sets one in Settings › AI provider.`
            : status.data?.auto_triage
              ? 'No triage yet: one starts by itself for failed executions.'
              : 'Not triaged yet. The assistant reads the failed task runs, their last log lines, the flow and what changed since the last success, and names the probable cause.'}
        </p>
      ) : (
        <InsightView insight={latest} ex={ex} />
      )}
      {insights.data && insights.data.items.length > 1 && (
        <details className="triage-earlier">
          <summary>Earlier triages ({insights.data.items.length - 1})</summary>
          <ul>
            {insights.data.items.slice(1).map((i) => (
              <li key={i.id}>
                {fmtTime(i.created_at)}: {i.state === 'done' ? i.summary : `${i.state}${i.error ? `: ${i.error}` : ''}`}
              </li>
            ))}
          </ul>
        </details>
      )}
    </Section>
  );
}

function InsightView({ insight, ex }: { insight: Insight; ex: Execution }) {
  if (RUNNING.includes(insight.state)) {
    return (
      <p role="status" className="triage-running">
        Triaging ({insight.state})… asked {fmtTime(insight.created_at)}.
      </p>
    );
  }
  if (insight.state === 'failed') {
    return (
      <p className="error" role="note">
        The triage failed: {insight.error ?? 'no reason given'}
      </p>
    );
  }
  const evidence = insight.evidence ?? [];
  const cited = evidence.filter((e) => e.cited);
  return (
    <div className="triage" data-testid="insight">
      <p className="triage-summary">
        <strong>{insight.summary}</strong>
      </p>
      <dl className="kv">
        <dt>Probable cause</dt>
        <dd>{insight.probable_cause || '—'}</dd>
        <dt>Suggested fix</dt>
        <dd>{insight.suggested_fix || '—'}</dd>
      </dl>
      <p className="muted small">
        {insight.model ? `${insight.model} · ` : ''}
        {fmtTime(insight.completed_at ?? insight.created_at)} · rests on {cited.length} of {evidence.length} evidence items
      </p>
      <h3>Evidence</h3>
      <ol className="evidence" aria-label="Evidence">
        {evidence.map((e) => (
          <EvidenceItem key={e.id} e={e} ex={ex} />
        ))}
      </ol>
    </div>
  );
}

/** Where an evidence item comes from, as a link; undefined when it has no place to go. */
function placeLink(e: Evidence, ex: Execution): { to: string; text: string } | undefined {
  switch (e.kind) {
    case 'execution':
      return { to: placeOf(e.execution_id ?? ex.id), text: `Execution ${e.execution_id ?? ex.id}` };
    case 'task_run':
      return e.task_key ? { to: placeOf(e.execution_id ?? ex.id, { task: e.task_key }), text: `Task ${e.task_key}, attempt ${e.attempt ?? 1}` } : undefined;
    case 'log_tail':
      return e.task_key && e.task_run_id && e.lines?.length
        ? { to: placeOf(e.execution_id ?? ex.id, { task: e.task_key, taskRunId: e.task_run_id, n: e.lines[0] }), text: `Logs of ${e.task_key}, attempt ${e.attempt ?? 1}` }
        : undefined;
    case 'flow_definition':
      return ex.flow_id ? { to: `/flows/${encodeURIComponent(ex.namespace)}/${encodeURIComponent(ex.flow_id)}`, text: `Flow ${ex.namespace}/${ex.flow_id}` } : undefined;
    case 'changes_since_success':
      return e.execution_id ? { to: placeOf(e.execution_id), text: `Last success ${e.execution_id}` } : undefined;
  }
}

function EvidenceItem({ e, ex }: { e: Evidence; ex: Execution }) {
  const place = placeLink(e, ex);
  const lines = e.kind === 'log_tail' ? e.content.split('\n') : [];
  return (
    <li className={e.cited ? 'cited' : 'uncited'} aria-label={`${e.id} ${KIND[e.kind] ?? e.kind}${e.cited ? ', cited' : ''}`}>
      <div className="row wrap">
        <span className="badge">{e.id}</span>
        <span className="muted small">{KIND[e.kind] ?? e.kind}</span>
        {place ? <Link to={place.to}>{place.text}</Link> : <span>{e.title}</span>}
        {e.cited && <span className="badge cited-badge">cited</span>}
      </div>
      <details>
        <summary>{e.title}</summary>
        {e.kind === 'log_tail' && e.lines?.length === lines.length && e.task_run_id ? (
          <ol className="evidence-lines" aria-label={`Log lines of ${e.task_key}`}>
            {lines.map((text, i) => (
              <li key={i}>
                <Link
                  to={placeOf(e.execution_id ?? ex.id, { task: e.task_key, taskRunId: e.task_run_id, n: e.lines![i] })}
                  aria-label={`Line ${e.lines![i]} of ${e.task_key}: ${text}`}
                >
                  <span className="ln">{e.lines![i]}</span> <code>{text}</code>
                </Link>
              </li>
            ))}
          </ol>
        ) : (
          <pre className="json" tabIndex={0} aria-label={e.title}>
            {e.content}
          </pre>
        )}
      </details>
    </li>
  );
}
