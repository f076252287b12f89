// Flows: the namespace tree (dot-separated names nest) beside the flow list of
// the selected namespace and its children, each with its last run states, and
// a search over flow ids, descriptions and namespaces.
import { useEffect, useRef, useState } from 'react';
import { client } from '../api';
import { Link, navigate, useQueryParam } from '../router';
import { usePermission } from '../session';
import type { Flow } from '../types';
import { Button, ErrorBox, Loading, arrowFocus, useAction, useLoad } from '../ui';

interface TreeNode {
  name: string;
  full: string;
  children: TreeNode[];
}

export function namespaceTree(names: string[]): TreeNode[] {
  const root: TreeNode = { name: '', full: '', children: [] };
  for (const n of [...names].sort()) {
    let at = root;
    const parts = n.split('.');
    parts.forEach((p, i) => {
      const full = parts.slice(0, i + 1).join('.');
      let child = at.children.find((c) => c.full === full);
      if (!child) at.children.push((child = { name: p, full, children: [] }));
      at = child;
    });
  }
  return root.children;
}

export function NamespaceTree({ names, selected, onSelect }: { names: string[]; selected: string; onSelect: (ns: string) => void }) {
  const render = (nodes: TreeNode[]) => (
    <ul role="group">
      {nodes.map((n) => (
        <li key={n.full} role="treeitem" aria-selected={selected === n.full} aria-expanded={n.children.length ? true : undefined}>
          <button type="button" className={`tree-item${selected === n.full ? ' active' : ''}`} onClick={() => onSelect(n.full)}>
            {n.name}
          </button>
          {n.children.length > 0 && render(n.children)}
        </li>
      ))}
    </ul>
  );
  return (
    <nav className="tree" aria-label="Namespaces" onKeyDown={arrowFocus('button.tree-item')}>
      <button type="button" className={`tree-item${selected === '' ? ' active' : ''}`} onClick={() => onSelect('')}>
        All namespaces
      </button>
      <div role="tree" aria-label="Namespace tree">
        {render(namespaceTree(names))}
      </div>
    </nav>
  );
}

export function CreateNamespace({ onCreated }: { onCreated: (ns: string) => void }) {
  const { needs } = usePermission();
  const [name, setName] = useState('');
  const create = useAction(async () => {
    await client.post('/api/v1/namespaces', { body: { name } });
    onCreated(name);
    setName('');
  });
  const why = needs('admin');
  if (why) return null;
  return (
    <form
      className="stack small-form"
      onSubmit={(e) => {
        e.preventDefault();
        void create.run();
      }}
    >
      <label>
        New namespace <input value={name} onChange={(e) => setName(e.target.value)} placeholder="team.project" required pattern="[a-z0-9]([a-z0-9.-]*[a-z0-9])?" />
      </label>
      <Button type="submit" disabled={create.busy}>
        Create namespace
      </Button>
      <ErrorBox error={create.error} />
    </form>
  );
}

/** How long the search waits after the last key before it asks the server. */
const SEARCH_DEBOUNCE_MS = 300;
/** listFlows' limit on `q`; the input stops there, so the server never answers 422. */
const SEARCH_MAX = 200;

/** What a flows listing answered: the flows, and the scope and query they answer. */
interface FlowsFound {
  scope: string;
  q: string;
  flows: Flow[];
}

/** The flows of `scope` ('' for all) whose id, description or namespace contains `q`: the server searches (listFlows' `q`). */
async function searchFlows(scope: string, q: string): Promise<FlowsFound> {
  return { scope, q, flows: await client.all('/api/v1/flows', { params: { query: { namespace: scope, q } } }, 1000) };
}

/**
 * The search text as typed, and the query in the URL, which follows it
 * `SEARCH_DEBOUNCE_MS` after the last change (so one request per pause, not
 * per key); a change of the URL from elsewhere (Clear, back) resets the text.
 * The query this hook wrote itself does not: a key typed while it lands
 * (a slow page) stays in the text, and its own pause sends it.
 */
function useDebouncedQuery(name: string): { text: string; setText: (v: string) => void; query: string; setQuery: (v: string) => void } {
  const [query, setQuery] = useQueryParam(name);
  const [text, setText] = useState(query);
  const written = useRef(query);
  useEffect(() => {
    if (query !== written.current) setText(query);
    written.current = query;
  }, [query]);
  useEffect(() => {
    if (text === query) return;
    const t = setTimeout(() => {
      written.current = text;
      setQuery(text);
    }, SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(t);
    // Keyed on the text only: a new query (ours, after the wait) must not restart the wait.
  }, [text]);
  return {
    text,
    setText,
    query,
    setQuery: (v: string) => {
      written.current = v;
      setText(v);
      setQuery(v);
    },
  };
}

export function Flows() {
  const [ns, setNs] = useQueryParam('namespace');
  const search = useDebouncedQuery('q');
  const q = search.query;
  const namespaces = useLoad(() => client.all('/api/v1/namespaces'), []);
  const found = useLoad(() => searchFlows(ns, q), [ns, q]);
  const shown = found.data;
  return (
    <div className="page split">
      <aside>
        <h2>Namespaces</h2>
        {namespaces.data ? <NamespaceTree names={namespaces.data.map((n) => n.name)} selected={ns} onSelect={setNs} /> : <Loading />}
        <ErrorBox error={namespaces.error} />
        <CreateNamespace
          onCreated={(n) => {
            namespaces.reload();
            navigate(`/editor/${n}`);
          }}
        />
      </aside>
      <div>
        <div className="row wrap">
          <h1>Flows{ns ? ` in ${ns}` : ''}</h1>
          <div className="spacer" />
          <label>
            Search <input type="search" value={search.text} onChange={(e) => search.setText(e.target.value)} maxLength={SEARCH_MAX} placeholder="id, description or namespace" />
          </label>
        </div>
        <ErrorBox error={found.error} />
        {!shown ? (
          !found.error && <Loading what="flows" />
        ) : shown.flows.length === 0 && shown.q ? (
          <p className="muted" role="status">
            No flows match “{shown.q}” by id, description or namespace{shown.scope ? ` in ${shown.scope} and its children` : ''}.{' '}
            <button type="button" className="linkish" onClick={() => search.setQuery('')}>
              Clear the search
            </button>
          </p>
        ) : shown.flows.length === 0 ? (
          <p className="muted">
            No flows. Create one in the <Link to={ns ? `/editor/${ns}` : '/editor'}>editor</Link>.
          </p>
        ) : (
          <table className="list">
            <thead>
              <tr>
                <th>Flow</th>
                <th>Namespace</th>
                <th>Description</th>
                <th>Enabled</th>
                <th>Last runs</th>
              </tr>
            </thead>
            <tbody>
              {shown.flows.map((f) => (
                <tr key={`${f.namespace}/${f.id}`}>
                  <td>
                    <Link to={`/flows/${f.namespace}/${f.id}`}>{f.id}</Link>
                  </td>
                  <td>{f.namespace}</td>
                  <td>{f.description}</td>
                  <td>{f.enabled ? 'yes' : <span className="badge">disabled</span>}</td>
                  <td>
                    <LastRuns ns={f.namespace} flow={f.id} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </div>
  );
}

function LastRuns({ ns, flow }: { ns: string; flow: string }) {
  const stats = useLoad(() => client.get('/api/v1/flows/{namespace}/{flowId}/stats', { params: { path: { namespace: ns, flowId: flow } } }), [ns, flow]);
  if (!stats.data) return null;
  const last = stats.data.items.slice(0, 5);
  if (!last.length) return <span className="muted">never run</span>;
  return (
    <span className="dots" aria-label={`Last runs: ${last.map((s) => s.state).join(', ')}`}>
      {last.map((s) => (
        <Link key={s.execution_id} to={`/executions/${s.execution_id}`} className={`dot state-${s.state.toLowerCase()}`} title={s.state}>
          <span className="sr-only">{s.state}</span>
        </Link>
      ))}
    </span>
  );
}
