// The execution list: filters (state, namespace, flow, labels) kept in the
// URL, cursor paging, and a refresh every few seconds while it is open; a
// bulk action on what the filter selects (components/BulkAction.tsx). The
// table (also the dashboard's) has a Commit column when a row carries the
// `git_sha` of a git-synced flow.
import { useState } from 'react';
import { client } from '../api';
import { BulkActionButton, bulkFilterOf } from '../components/BulkAction';
import { GitSha } from '../components/GitSha';
import { Link, useQueryParam } from '../router';
import { EXECUTION_STATES, type ExecutionState, type ExecutionSummary } from '../types';
import { Button, ErrorBox, Loading, StateBadge, fmtDuration, fmtTime, useLoad } from '../ui';

export function Executions() {
  const [state, setState] = useQueryParam('state');
  const [namespace, setNamespace] = useQueryParam('namespace');
  const [flow, setFlow] = useQueryParam('flow');
  const [label, setLabel] = useQueryParam('label');
  const [perPage, setPerPage] = useQueryParam('limit');
  const limit = Math.min(200, Math.max(1, Number(perPage) || 50));
  // The cursors of the pages before this one, so "Previous" can go back.
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const labels = label
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const list = useLoad(
    () =>
      client.get('/api/v1/executions', {
        // `state` is one of the select's options (EXECUTION_STATES) or '' for any.
        params: { query: { state: (state || undefined) as ExecutionState | undefined, namespace, flow, label: labels, cursor, limit } },
      }),
    [state, namespace, flow, label, cursor, limit],
    5000,
  );
  const resetPaging = () => setCursors([]);
  return (
    <div className="page">
      <h1>Executions</h1>
      <form className="row wrap filters" role="search" aria-label="Filter executions" onSubmit={(e) => e.preventDefault()}>
        <label>
          State
          <select
            value={state}
            onChange={(e) => {
              setState(e.target.value);
              resetPaging();
            }}
          >
            <option value="">any</option>
            {EXECUTION_STATES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          Namespace{' '}
          <input
            value={namespace}
            onChange={(e) => {
              setNamespace(e.target.value);
              resetPaging();
            }}
            placeholder="e.g. team.etl"
          />
        </label>
        <label>
          Flow{' '}
          <input
            value={flow}
            onChange={(e) => {
              setFlow(e.target.value);
              resetPaging();
            }}
            placeholder="flow id"
          />
        </label>
        <label>
          Labels{' '}
          <input
            value={label}
            onChange={(e) => {
              setLabel(e.target.value);
              resetPaging();
            }}
            placeholder="key:value, key:value"
          />
        </label>
        <label>
          Per page
          <select
            value={String(limit)}
            onChange={(e) => {
              setPerPage(e.target.value === '50' ? '' : e.target.value);
              resetPaging();
            }}
          >
            {[...new Set([20, 50, 100, 200, limit])]
              .sort((a, b) => a - b)
              .map((n) => (
                <option key={n}>{n}</option>
              ))}
          </select>
        </label>
        <BulkActionButton filter={bulkFilterOf({ state, namespace, flow, labels })} />
      </form>
      <ErrorBox error={list.error} />
      {!list.data ? (
        !list.error && <Loading what="executions" />
      ) : (
        <>
          <ExecutionTable items={list.data.items} />
          <div className="row">
            <span className="muted small" data-testid="page-number">
              Page {cursors.length + 1}
            </span>
            <Button disabled={!cursors.length} onClick={() => setCursors((c) => c.slice(0, -1))}>
              ← Previous
            </Button>
            <Button disabled={!list.data.next_cursor} onClick={() => setCursors((c) => [...c, list.data!.next_cursor!])}>
              Next →
            </Button>
          </div>
        </>
      )}
    </div>
  );
}

/** The commit of the sync that produced the row's flow revision, when the flow comes from git. */
const gitShaOf = (e: ExecutionSummary): string | undefined => (typeof e.git_sha === 'string' && e.git_sha ? e.git_sha : undefined);

export function ExecutionTable({ items, showTriage }: { items: ExecutionSummary[]; showTriage?: boolean }) {
  if (!items.length) return <p className="muted">No executions.</p>;
  const showCommit = items.some(gitShaOf);
  return (
    <table className="list">
      <thead>
        <tr>
          <th>Execution</th>
          <th>State</th>
          <th>Namespace</th>
          <th>Flow</th>
          {showCommit && <th>Commit</th>}
          <th>Started</th>
          <th>Duration</th>
          {showTriage && <th>Triage</th>}
        </tr>
      </thead>
      <tbody>
        {items.map((e) => (
          <tr key={e.id}>
            <td>
              <Link to={`/executions/${e.id}`}>
                <code>{e.id}</code>
              </Link>
            </td>
            <td>
              <StateBadge state={e.state} />
              {e.paused === true && (
                <>
                  {' '}
                  <span className="badge paused">Paused</span>
                </>
              )}
            </td>
            <td>{e.namespace}</td>
            <td>{e.flow_id ? <Link to={`/flows/${e.namespace}/${e.flow_id}`}>{e.flow_id}</Link> : <span className="muted">file run</span>}</td>
            {showCommit && <td>{gitShaOf(e) ? <GitSha sha={gitShaOf(e)!} /> : <span className="muted">—</span>}</td>}
            <td>{fmtTime(e.started_at ?? e.created_at)}</td>
            <td>{fmtDuration(e.duration_ms)}</td>
            {showTriage && <td>{e.triage_summary ?? <span className="muted">no triage</span>}</td>}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
