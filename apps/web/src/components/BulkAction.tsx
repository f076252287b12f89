// The executions list's "Bulk action" (bulkExecutions): with the list's
// current filter, choose cancel, rerun or restart, see the dry run's count
// and the executions whose state refuses the action, confirm, and see one
// result per execution. The server acts only where the user holds the
// operator role, and refuses a filter that matches more than its limit.
import { useEffect, useRef, useState } from 'react';
import { client } from '../api';
import { Link } from '../router';
import { usePermission } from '../session';
import type { Answer, ExecutionState, RequestBody } from '../types';
import { Button, ErrorBox, Loading, StateBadge, useAction, useLoad } from '../ui';

export type BulkFilter = RequestBody<'bulkExecutions'>['filter'];
type BulkAction = RequestBody<'bulkExecutions'>['action'];
type BulkResult = Answer<'bulkExecutions'>;

const ACTIONS: { value: BulkAction; label: string; done: string; what: string }[] = [
  { value: 'cancel', label: 'Cancel', done: 'Cancelled', what: 'QUEUED ones end at once, RUNNING ones through CANCELLING' },
  { value: 'rerun', label: 'Rerun', done: 'Rerun', what: 'a new execution of each ended one: every task runs again' },
  { value: 'restart', label: 'Restart from failed', done: 'Restarted', what: 'a new execution of each FAILED, TIMED_OUT or CANCELLED one: its SUCCESS task runs reused' },
];
/** Refused executions listed in the dialog, at most (the count says how many there are). */
const SHOWN = 50;

/** The list page's filter as bulkExecutions reads it: `state` one of the states or '', labels `key:value` (or `key=value`) separated by commas. */
export function bulkFilterOf(q: { state: string; namespace: string; flow: string; labels: string[] }): BulkFilter {
  const labels: Record<string, string> = {};
  for (const l of q.labels) {
    const m = /^([^=:]+)[=:](.*)$/.exec(l);
    if (m) labels[m[1].trim()] = m[2].trim();
  }
  return {
    ...(q.state ? { state: [q.state as ExecutionState] } : {}),
    ...(q.namespace.trim() ? { namespace: q.namespace.trim() } : {}),
    ...(q.flow.trim() ? { flow_id: q.flow.trim() } : {}),
    ...(Object.keys(labels).length ? { labels } : {}),
  };
}

/** The filter in words, as the dialog repeats it. */
function describe(f: BulkFilter): string {
  const parts = [
    f.state?.length ? `state ${f.state.join(' or ')}` : '',
    f.namespace ? `namespace ${f.namespace} (and its children)` : '',
    f.flow_id ? `flow ${f.flow_id}` : '',
    ...Object.entries(f.labels ?? {}).map(([k, v]) => `label ${k}:${v}`),
  ].filter(Boolean);
  return parts.join(', ');
}

export function BulkActionButton({ filter }: { filter: BulkFilter }) {
  const { needsSomewhere } = usePermission();
  const [open, setOpen] = useState(false);
  const empty = Object.keys(filter).length === 0;
  return (
    <>
      <Button
        disabledReason={needsSomewhere('operator') ?? (empty ? 'Set a filter first (state, namespace, flow or labels): a bulk action never takes every execution' : null)}
        onClick={() => setOpen(true)}
      >
        Bulk action…
      </Button>
      {open && <BulkDialog filter={filter} onClose={() => setOpen(false)} />}
    </>
  );
}

function BulkDialog({ filter, onClose }: { filter: BulkFilter; onClose: () => void }) {
  const [action, setAction] = useState<BulkAction>('cancel');
  const [result, setResult] = useState<BulkResult>();
  const key = JSON.stringify(filter);
  const dry = useLoad(() => client.post('/api/v1/executions/bulk', { body: { action, filter, dry_run: true } }), [action, key]);
  const act = useAction(async () => setResult(await client.post('/api/v1/executions/bulk', { body: { action, filter } })));
  const chosen = ACTIONS.find((a) => a.value === action)!;
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => box.current?.focus(), []);
  const preview = dry.data;
  const tooMany = preview !== undefined && preview.matched > preview.limit;
  const refusal = !preview
    ? 'Counting…'
    : tooMany
      ? `More than ${preview.limit.toLocaleString('en')} executions match: narrow the filter`
      : preview.eligible === 0
        ? `No execution here can be ${chosen.done.toLowerCase()}`
        : null;
  return (
    <div className="dialog-backdrop" onClick={onClose}>
      <div
        className="dialog wide bulk"
        role="dialog"
        aria-modal="true"
        aria-labelledby="bulk-title"
        tabIndex={-1}
        ref={box}
        onClick={(e) => e.stopPropagation()}
        onKeyDown={(e) => e.key === 'Escape' && onClose()}
      >
        <h2 id="bulk-title">Bulk action</h2>
        <p className="muted">
          On the executions of this filter: <strong data-testid="bulk-filter">{describe(filter)}</strong>. Only those in namespaces where you hold the operator role are taken.
        </p>
        {result ? (
          <BulkResults result={result} done={chosen.done} onClose={onClose} />
        ) : (
          <>
            <fieldset className="row wrap" disabled={act.busy}>
              <legend>Action</legend>
              {ACTIONS.map((a) => (
                <label key={a.value} className="check">
                  <input type="radio" name="bulk-action" value={a.value} checked={action === a.value} onChange={() => setAction(a.value)} /> {a.label}
                </label>
              ))}
            </fieldset>
            <p className="muted small">{chosen.what}.</p>
            <ErrorBox error={dry.error} />
            {!preview ? (
              !dry.error && <Loading what="the dry run" />
            ) : (
              <div role="status" data-testid="bulk-dry-run">
                <p>
                  <strong data-testid="bulk-matched">{preview.matched}</strong> execution(s) match; <strong data-testid="bulk-eligible">{preview.eligible}</strong> would be{' '}
                  {chosen.done.toLowerCase()}
                  {preview.matched > preview.eligible ? `, ${preview.matched - preview.eligible} refused by their state` : ''}.
                </p>
                {tooMany && (
                  <p className="notice" data-testid="bulk-too-many">
                    More than {preview.limit.toLocaleString('en')} executions match: a bulk action takes at most {preview.limit.toLocaleString('en')}. Narrow the filter (a state, a
                    label, a flow).
                  </p>
                )}
                {preview.ineligible && preview.ineligible.length > 0 && (
                  <>
                    <h3>Refused by their state</h3>
                    <table className="list" data-testid="bulk-ineligible">
                      <thead>
                        <tr>
                          <th>Execution</th>
                          <th>State</th>
                          <th>Flow</th>
                          <th>Why</th>
                        </tr>
                      </thead>
                      <tbody>
                        {preview.ineligible.slice(0, SHOWN).map((x) => (
                          <tr key={x.execution_id}>
                            <td>
                              <Link to={`/executions/${x.execution_id}`}>
                                <code>{x.execution_id}</code>
                              </Link>
                            </td>
                            <td>
                              <StateBadge state={x.state} />
                            </td>
                            <td>
                              {x.namespace}/{x.flow_id ?? 'file run'}
                            </td>
                            <td>
                              <code>{x.reason}</code>
                            </td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                    {preview.ineligible.length > SHOWN && <p className="muted small">and {preview.ineligible.length - SHOWN} more</p>}
                  </>
                )}
              </div>
            )}
            <ErrorBox error={act.error} />
            <div className="row">
              <Button className="primary" disabledReason={refusal} disabled={act.busy} onClick={() => void act.run()}>
                {act.busy ? 'Working…' : `${chosen.label} ${preview?.eligible ?? ''} execution(s)`}
              </Button>
              <Button onClick={onClose}>Close</Button>
            </div>
          </>
        )}
      </div>
    </div>
  );
}

function BulkResults({ result, done, onClose }: { result: BulkResult; done: string; onClose: () => void }) {
  const results = result.results ?? [];
  const ok = results.filter((r) => r.ok).length;
  return (
    <div data-testid="bulk-results">
      <p role="status">
        {done} <strong>{ok}</strong> of {result.matched} execution(s)
        {results.length > ok ? `; ${results.length - ok} not` : ''}.
      </p>
      <table className="list">
        <thead>
          <tr>
            <th>Execution</th>
            <th>Result</th>
            <th>{result.action === 'cancel' ? 'State' : 'New execution'}</th>
          </tr>
        </thead>
        <tbody>
          {results.map((r) => (
            <tr key={r.execution_id}>
              <td>
                <Link to={`/executions/${r.execution_id}`}>
                  <code>{r.execution_id}</code>
                </Link>
              </td>
              <td>{r.ok ? <span className="badge state-success">ok</span> : <code title={r.error?.message}>{r.error?.code}</code>}</td>
              <td>
                {r.new_execution_id ? (
                  <Link to={`/executions/${r.new_execution_id}`}>
                    <code>{r.new_execution_id}</code>
                  </Link>
                ) : r.state ? (
                  <StateBadge state={r.state} />
                ) : (
                  <span className="muted">{r.error?.message}</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="row">
        <Button className="primary" autoFocus onClick={onClose}>
          Done
        </Button>
      </div>
    </div>
  );
}
