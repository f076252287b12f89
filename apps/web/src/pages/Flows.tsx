// Flows: the namespace tree (dot-separated names nest) beside the flow list of
// the selected namespace and its children, each with its last run states, and
// a search over flow ids, descriptions and namespaces.
import { useState } from 'react';
import { api, listAll } from '../api';
import { Link, navigate, useQueryParam } from '../router';
import { usePermission } from '../session';
import type { Answer, Flow, Namespace } from '../types';
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
    await api('POST', '/namespaces', { name });
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

/**
 * Above this many namespaces matching a search, one listing of the scope
 * filtered here costs less than one listing per matching namespace.
 */
const MAX_SUBTREE_LISTINGS = 8;

/**
 * The namespaces of `scope` ('' for all) whose name contains `q` (ignoring
 * case), each given once by the top of its subtree: a child's name holds its
 * parent's, so every namespace under a match matches too.
 */
export function matchingSubtrees(names: string[], scope: string, q: string): string[] {
  const needle = q.toLowerCase();
  const inScope = (n: string) => !scope || n === scope || n.startsWith(`${scope}.`);
  const hits = names.filter((n) => inScope(n) && n.toLowerCase().includes(needle));
  return hits.filter((n) => !hits.some((h) => n.startsWith(`${h}.`))).sort();
}

/** The flows of several listings, each once, ordered by namespace and id. */
export function mergeFlows(lists: Flow[][]): Flow[] {
  const byKey = new Map<string, Flow>();
  for (const f of lists.flat()) byKey.set(`${f.namespace}/${f.id}`, f);
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...byKey.values()].sort((a, b) => cmp(a.namespace, b.namespace) || cmp(a.id, b.id));
}

/** What a flows listing answered: the flows, and the scope and query they answer. */
interface FlowsFound {
  scope: string;
  q: string;
  flows: Flow[];
}

/**
 * The flows of `scope` that `q` finds. The API's `q` matches flow ids and
 * descriptions only, so the flows of the namespaces whose name matches are
 * listed beside its answer. `names` are the namespaces the page already has
 * (read again when it has none yet).
 */
async function searchFlows(scope: string, q: string, names?: string[]): Promise<FlowsFound> {
  const list = (query: { namespace: string; q?: string }) => listAll<Flow>('/flows', query, 5);
  if (!q) return { scope, q, flows: await list({ namespace: scope }) };
  const [byText, known] = await Promise.all([list({ namespace: scope, q }), names ?? listAll<Namespace>('/namespaces').then((l) => l.map((n) => n.name))]);
  const subtrees = matchingSubtrees(known, scope, q);
  if (!subtrees.length) return { scope, q, flows: byText };
  const byNamespace =
    subtrees.length > MAX_SUBTREE_LISTINGS
      ? [(await list({ namespace: scope })).filter((f) => f.namespace.toLowerCase().includes(q.toLowerCase()))]
      : await Promise.all(subtrees.map((ns) => list({ namespace: ns })));
  return { scope, q, flows: mergeFlows([byText, ...byNamespace]) };
}

export function Flows() {
  const [ns, setNs] = useQueryParam('namespace');
  const [q, setQ] = useQueryParam('q');
  const namespaces = useLoad(() => listAll<Namespace>('/namespaces'), []);
  const found = useLoad(
    () =>
      searchFlows(
        ns,
        q,
        namespaces.data?.map((n) => n.name),
      ),
    [ns, q],
  );
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
            Search <input type="search" value={q} onChange={(e) => setQ(e.target.value)} placeholder="id, description or namespace" />
          </label>
        </div>
        <ErrorBox error={found.error} />
        {!shown ? (
          !found.error && <Loading what="flows" />
        ) : shown.flows.length === 0 && shown.q ? (
          <p className="muted" role="status">
            No flows match “{shown.q}” by id, description or namespace{shown.scope ? ` in ${shown.scope} and its children` : ''}.{' '}
            <button type="button" className="linkish" onClick={() => setQ('')}>
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
  const stats = useLoad(() => api<Answer<'getFlowStats'>>('GET', `/flows/${ns}/${flow}/stats`), [ns, flow]);
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
