// Settings: secrets and variables (global and per namespace; secret values are
// write-only), secret providers, users and roles, the audit log, instances and
// storage, and AI usage (its own file, AIUsage.tsx). Tabs a role cannot use
// say which role they need.
import { useEffect, useState } from 'react';
import { api, listAll, type Page } from '../api';
import { Link, useQueryParam } from '../router';
import { usePermission } from '../session';
import { ROLES, type Namespace, type Role } from '../types';
import { Button, ErrorBox, Json, Loading, Section, fmtDuration, fmtTime, useAction, useLoad } from '../ui';
import { AIUsage } from './AIUsage';

const TABS: { id: string; label: string; minRole: Role }[] = [
  { id: 'secrets', label: 'Secrets & variables', minRole: 'viewer' },
  { id: 'providers', label: 'Secret providers', minRole: 'viewer' },
  { id: 'users', label: 'Users', minRole: 'admin' },
  { id: 'audit', label: 'Audit log', minRole: 'admin' },
  { id: 'instances', label: 'Instances', minRole: 'admin' },
  { id: 'storage', label: 'Storage', minRole: 'admin' },
  { id: 'ai-usage', label: 'AI usage', minRole: 'admin' },
];

export function Admin({ tab = 'secrets' }: { tab?: string }) {
  const { can, needs } = usePermission();
  const current = TABS.find((t) => t.id === tab) ?? TABS[0]!;
  return (
    <div className="page">
      <h1>Settings</h1>
      <nav className="tabs" aria-label="Settings sections">
        {TABS.map((t) =>
          can(t.minRole) ? (
            <Link key={t.id} to={`/admin/${t.id}`} className={t.id === current.id ? 'active' : ''} aria-current={t.id === current.id ? 'page' : undefined}>
              {t.label}
            </Link>
          ) : (
            <span key={t.id} className="disabled" title={needs(t.minRole) ?? ''} aria-disabled="true">
              {t.label}
            </span>
          ),
        )}
      </nav>
      {!can(current.minRole) ? (
        <p>{needs(current.minRole)}</p>
      ) : current.id === 'secrets' ? (
        <SecretsAndVariables />
      ) : current.id === 'providers' ? (
        <Providers />
      ) : current.id === 'users' ? (
        <Users />
      ) : current.id === 'audit' ? (
        <Audit />
      ) : current.id === 'instances' ? (
        <Instances />
      ) : current.id === 'ai-usage' ? (
        <AIUsage />
      ) : (
        <Storage />
      )}
    </div>
  );
}

function SecretsAndVariables() {
  const namespaces = useLoad(() => listAll<Namespace>('/namespaces'), []);
  const [ns, setNs] = useState('');
  const { needs } = usePermission();
  const writeWhy = ns ? needs('editor') : needs('admin');
  const prefix = ns ? `/namespaces/${ns}` : '';
  return (
    <>
      <label>
        Scope
        <select value={ns} onChange={(e) => setNs(e.target.value)}>
          <option value="">global</option>
          {namespaces.data?.map((n) => (
            <option key={n.name} value={n.name}>
              namespace {n.name}
            </option>
          ))}
        </select>
      </label>
      <KeyList key={`s${ns}`} title="Secrets" path={`${prefix}/secrets`} secret writeWhy={writeWhy} />
      <KeyList key={`v${ns}`} title="Variables" path={`${prefix}/variables`} writeWhy={writeWhy} />
    </>
  );
}

function KeyList({ title, path, secret, writeWhy }: { title: string; path: string; secret?: boolean; writeWhy: string | null }) {
  const list = useLoad(() => listAll<{ key: string; value?: string; created_at?: string; updated_at?: string }>(path), [path]);
  const [key, setKey] = useState('');
  const [value, setValue] = useState('');
  const put = useAction(async () => {
    await api('PUT', `${path}/${encodeURIComponent(key)}`, { value });
    setKey('');
    setValue('');
    list.reload();
  });
  const del = useAction(async (k: string) => {
    await api('DELETE', `${path}/${encodeURIComponent(k)}`);
    list.reload();
  });
  return (
    <Section title={title}>
      <ErrorBox error={list.error ?? del.error} />
      {list.data ? (
        <table>
          <thead>
            <tr><th>Key</th><th>{secret ? 'Value' : 'Value'}</th><th>Updated</th><th><span className="sr-only">Actions</span></th></tr>
          </thead>
          <tbody>
            {list.data.map((s) => (
              <tr key={s.key}>
                <td><code>{s.key}</code></td>
                <td>{secret ? <span className="muted">hidden</span> : s.value}</td>
                <td>{fmtTime(s.updated_at ?? s.created_at)}</td>
                <td>
                  <Button aria-label={`Delete ${s.key}`} disabledReason={writeWhy} onClick={() => confirm(`Delete ${s.key}?`) && void del.run(s.key)}>
                    Delete
                  </Button>
                </td>
              </tr>
            ))}
            {!list.data.length && <tr><td colSpan={4} className="muted">None.</td></tr>}
          </tbody>
        </table>
      ) : (
        !list.error && <Loading />
      )}
      {!writeWhy ? (
        <form className="row wrap" onSubmit={(e) => { e.preventDefault(); void put.run(); }}>
          <label>
            Key <input value={key} onChange={(e) => setKey(e.target.value)} required pattern="[A-Za-z0-9_.\-]+" />
          </label>
          <label>
            Value <input type={secret ? 'password' : 'text'} autoComplete="off" value={value} onChange={(e) => setValue(e.target.value)} required />
          </label>
          <Button type="submit" disabled={put.busy}>Set {secret ? 'secret' : 'variable'}</Button>
        </form>
      ) : (
        <p className="muted small">{writeWhy} to change {title.toLowerCase()}.</p>
      )}
      <ErrorBox error={put.error} />
    </Section>
  );
}

interface Provider {
  name: string;
  type: string;
  enabled: boolean;
  config?: Record<string, unknown>;
  has_credentials?: boolean;
  updated_at?: string;
}

function Providers() {
  const { needs } = usePermission();
  const list = useLoad(() => listAll<Provider>('/secret-providers'), []);
  const [name, setName] = useState('');
  const [type, setType] = useState<'env' | 'vault'>('env');
  const [prefix, setPrefix] = useState('');
  const [address, setAddress] = useState('');
  const [token, setToken] = useState('');
  const [checked, setChecked] = useState<{ name: string; ok: boolean; message: string }>();
  const create = useAction(async () => {
    const body = type === 'env' ? { name, type, config: prefix ? { prefix } : {} } : { name, type, config: { address }, credentials: token ? { token } : undefined };
    await api('POST', '/secret-providers', body);
    setName('');
    setPrefix('');
    setToken('');
    list.reload();
  });
  const remove = useAction(async (n: string) => {
    await api('DELETE', `/secret-providers/${encodeURIComponent(n)}`);
    if (checked?.name === n) setChecked(undefined);
    list.reload();
  });
  const toggle = useAction(async (p: Provider) => {
    await api('PUT', `/secret-providers/${encodeURIComponent(p.name)}`, { enabled: !p.enabled });
    list.reload();
  });
  const check = useAction(async (n: string) => {
    setChecked(undefined);
    const r = await api<{ ok: boolean; message?: string }>('POST', `/secret-providers/${encodeURIComponent(n)}/check`);
    setChecked({ name: n, ok: r.ok, message: r.message ?? '' });
  });
  const why = needs('admin');
  return (
    <Section title="Secret providers">
      <p className="muted small">
        Secrets read as <code>secret('provider:path#field')</code> come from these. Credentials are write-only: they are stored sealed and never shown.
      </p>
      <ErrorBox error={list.error ?? remove.error ?? check.error ?? toggle.error} />
      {list.data ? (
        <table>
          <thead>
            <tr><th>Name</th><th>Type</th><th>Status</th><th>Settings</th><th>Credentials</th><th>Updated</th><th><span className="sr-only">Actions</span></th></tr>
          </thead>
          <tbody>
            {list.data.map((p) => (
              <tr key={p.name}>
                <td><code>{p.name}</code></td>
                <td>{p.type}</td>
                <td>{p.enabled ? <span className="badge state-success">enabled</span> : <span className="badge">disabled</span>}</td>
                <td>
                  {Object.keys(p.config ?? {}).length ? (
                    Object.entries(p.config ?? {}).map(([k, v]) => (
                      <div key={k} className="small">
                        {k}: <code>{typeof v === 'string' ? v : JSON.stringify(v)}</code>
                      </div>
                    ))
                  ) : (
                    <span className="muted">defaults</span>
                  )}
                </td>
                <td>{p.has_credentials ? 'set (hidden)' : <span className="muted">none</span>}</td>
                <td>{fmtTime(p.updated_at)}</td>
                <td className="row">
                  <Button aria-label={`Check provider ${p.name}`} disabledReason={why} disabled={check.busy} onClick={() => void check.run(p.name)}>Check</Button>
                  <Button aria-label={`${p.enabled ? 'Disable' : 'Enable'} provider ${p.name}`} disabledReason={why} disabled={toggle.busy} onClick={() => void toggle.run(p)}>
                    {p.enabled ? 'Disable' : 'Enable'}
                  </Button>
                  <Button aria-label={`Delete provider ${p.name}`} disabledReason={why} onClick={() => confirm(`Delete provider ${p.name}? Secrets read through it stop resolving.`) && void remove.run(p.name)}>Delete</Button>
                </td>
              </tr>
            ))}
            {!list.data.length && <tr><td colSpan={7} className="muted">No providers: secrets come from the built-in store only.</td></tr>}
          </tbody>
        </table>
      ) : (
        !list.error && <Loading />
      )}
      {checked && (
        <p role="status" className={checked.ok ? 'notice small' : 'error small'} data-testid="provider-check">
          <strong>{checked.name}</strong>: {checked.ok ? 'works' : 'does not work'}
          {checked.message ? ` — ${checked.message}` : ''}
        </p>
      )}
      {!why ? (
        <form className="row wrap" aria-label="Add a secret provider" onSubmit={(e) => { e.preventDefault(); void create.run(); }}>
          <label>
            Name <input value={name} onChange={(e) => setName(e.target.value)} required pattern="[a-z0-9][a-z0-9_\-]*" />
          </label>
          <label>
            Type
            <select value={type} onChange={(e) => setType(e.target.value as 'env' | 'vault')}>
              <option value="env">env</option>
              <option value="vault">vault</option>
            </select>
          </label>
          {type === 'env' ? (
            <label>
              Variable prefix <input value={prefix} onChange={(e) => setPrefix(e.target.value)} placeholder="SVC_SECRET_" />
            </label>
          ) : (
            <>
              <label>
                Vault address <input value={address} onChange={(e) => setAddress(e.target.value)} required placeholder="https://vault:8200" />
              </label>
              <label>
                Token <input type="password" autoComplete="off" value={token} onChange={(e) => setToken(e.target.value)} />
              </label>
            </>
          )}
          <Button type="submit" disabled={create.busy}>Add provider</Button>
        </form>
      ) : (
        <p className="muted small">{why} to add, check or change providers.</p>
      )}
      <ErrorBox error={create.error} />
    </Section>
  );
}

interface User {
  id: string;
  email: string;
  name: string;
  role: Role;
  disabled: boolean;
  must_change_password: boolean;
}

function Users() {
  const list = useLoad(() => listAll<User>('/users'), []);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [temp, setTemp] = useState<string>();
  const create = useAction(async () => {
    const r = await api<User & { temporary_password?: string; password?: string }>('POST', '/users', { email, role });
    setTemp(r.temporary_password ?? r.password);
    setEmail('');
    list.reload();
  });
  const reset = useAction(async (u: User) => {
    const r = await api<{ temporary_password?: string; password?: string }>('POST', `/users/${u.id}/reset-password`);
    setTemp(r?.temporary_password ?? r?.password);
    list.reload();
  });
  const update = useAction(async (id: string, patch: Partial<User>) => {
    // Shown at once (a controlled select would otherwise snap back until the list reloads); the reload corrects it either way.
    if (list.data) list.setData(list.data.map((u) => (u.id === id ? { ...u, ...patch } : u)));
    try {
      await api('PATCH', `/users/${id}`, patch);
    } finally {
      list.reload();
    }
  });
  return (
    <Section title="Users">
      <ErrorBox error={list.error ?? update.error ?? reset.error} />
      {list.data ? (
        <table>
          <thead>
            <tr><th>Email</th><th>Name</th><th>Role</th><th>Status</th><th><span className="sr-only">Actions</span></th></tr>
          </thead>
          <tbody>
            {list.data.map((u) => (
              <tr key={u.id}>
                <td>{u.email}</td>
                <td>{u.name}</td>
                <td>
                  <select aria-label={`Role of ${u.email}`} value={u.role} onChange={(e) => void update.run(u.id, { role: e.target.value as Role })}>
                    {ROLES.map((r) => <option key={r}>{r}</option>)}
                  </select>
                </td>
                <td>{u.disabled ? 'disabled' : u.must_change_password ? 'temporary password' : 'active'}</td>
                <td>
                  <Button aria-label={`${u.disabled ? 'Enable' : 'Disable'} ${u.email}`} onClick={() => void update.run(u.id, { disabled: !u.disabled })}>{u.disabled ? 'Enable' : 'Disable'}</Button>{' '}
                  <Button aria-label={`Reset the password of ${u.email}`} onClick={() => confirm(`Give ${u.email} a new temporary password?`) && void reset.run(u)}>Reset password</Button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        !list.error && <Loading />
      )}
      <form className="row wrap" aria-label="Create a user" onSubmit={(e) => { e.preventDefault(); void create.run(); }}>
        <label>
          Email <input type="email" value={email} onChange={(e) => setEmail(e.target.value)} required />
        </label>
        <label>
          Role
          <select value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {ROLES.map((r) => <option key={r}>{r}</option>)}
          </select>
        </label>
        <Button type="submit" disabled={create.busy}>Create user</Button>
      </form>
      {temp && (
        <p className="notice" role="status">
          Temporary password (shown once): <code className="secret">{temp}</code>
        </p>
      )}
      <ErrorBox error={create.error} />
    </Section>
  );
}

interface AuditItem {
  id: string;
  action: string;
  actor: string;
  actor_type?: string;
  target?: string;
  payload?: Record<string, unknown>;
  ip?: string;
  request_id?: string;
  created_at: string;
}

/** Actions the service records, offered as suggestions (any other value filters too; `user.*` is a prefix). */
const AUDIT_ACTIONS = [
  'auth.*', 'auth.login', 'auth.login_failed', 'user.*', 'user.create', 'user.update', 'user.role_change', 'user.disable', 'user.enable', 'user.password_reset', 'user.password_change',
  'token.*', 'token.create', 'token.revoke', 'secret.*', 'variable.*', 'secret_provider.*', 'execution.*', 'execution.cancel', 'execution.rerun', 'execution.restart',
  'flow.*', 'flow.enable', 'flow.disable', 'flow.webhook_key.rotate', 'git_source.*', 'ai_provider.*', 'ai.action.confirm',
];
const RESOURCE_TYPES = ['execution', 'flow', 'user', 'token', 'secret', 'variable', 'secret_provider', 'git_source', 'session', 'ai_provider', 'ai_action'];

/** A datetime-local value (local time, no zone) as an ISO instant; empty stays empty. */
function localToIso(v: string): string {
  if (!v) return '';
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? '' : d.toISOString();
}

function Audit() {
  // The filters live in the URL, so a filtered view can be linked and survives a reload.
  const [actor, setActor] = useQueryParam('actor');
  const [action, setAction] = useQueryParam('action');
  const [resource, setResource] = useQueryParam('resource');
  const [from, setFrom] = useQueryParam('from');
  const [to, setTo] = useQueryParam('to');
  const [perPage, setPerPage] = useQueryParam('limit');
  const limit = Math.min(200, Math.max(1, Number(perPage) || 50));
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const [open, setOpen] = useState<string>();
  const page = useLoad(
    () => api<Page<AuditItem>>('GET', '/audit', undefined, { actor: actor.trim(), action: action.trim(), resource: resource.trim(), from: localToIso(from), to: localToIso(to), limit, cursor }),
    [actor, action, resource, from, to, limit, cursor],
  );
  const reset = () => setCursors([]);
  const filter = (set: (v: string) => void) => (e: { target: { value: string } }) => {
    set(e.target.value);
    reset();
  };
  const filtered = !!(actor || action || resource || from || to);
  return (
    <Section title="Audit log" actions={<Button onClick={page.reload}>Refresh</Button>}>
      <form className="row wrap filters" role="search" aria-label="Filter audit events" onSubmit={(e) => e.preventDefault()}>
        <label>
          Actor <input type="search" value={actor} onChange={filter(setActor)} placeholder="email or user id" />
        </label>
        <label>
          Action <input type="search" list="audit-actions" value={action} onChange={filter(setAction)} placeholder="e.g. user.* or execution.cancel" />
          <datalist id="audit-actions">
            {AUDIT_ACTIONS.map((a) => <option key={a} value={a} />)}
          </datalist>
        </label>
        <label>
          Resource <input type="search" list="audit-resources" value={resource} onChange={filter(setResource)} placeholder="type or type:id" />
          <datalist id="audit-resources">
            {RESOURCE_TYPES.map((a) => <option key={a} value={a} />)}
          </datalist>
        </label>
        <label>
          From <input type="datetime-local" step={1} value={from} onChange={filter(setFrom)} />
        </label>
        <label>
          To <input type="datetime-local" step={1} value={to} onChange={filter(setTo)} />
        </label>
        <label>
          Per page
          <select value={String(limit)} onChange={(e) => { setPerPage(e.target.value === '50' ? '' : e.target.value); reset(); }}>
            {[...new Set([20, 50, 100, 200, limit])].sort((a, b) => a - b).map((n) => <option key={n}>{n}</option>)}
          </select>
        </label>
        {filtered && (
          <Button onClick={() => { for (const set of [setActor, setAction, setResource, setFrom, setTo]) set(''); reset(); }}>Clear filters</Button>
        )}
      </form>
      <ErrorBox error={page.error} />
      {!page.data ? (
        !page.error && <Loading what="audit events" />
      ) : (
        <>
          {page.data.items.length ? (
            <div className="scroll-x">
              <table aria-label="Audit events">
                <thead>
                  <tr><th>Time</th><th>Action</th><th>Actor</th><th>Resource</th><th>IP</th><th>Details</th></tr>
                </thead>
                <tbody>
                  {page.data.items.map((e) => (
                    <tr key={e.id}>
                      <td>{fmtTime(e.created_at)}</td>
                      <td><code>{e.action}</code></td>
                      <td>
                        <button type="button" className="linkish" title={`Only events of ${e.actor}`} onClick={() => { setActor(e.actor); reset(); }}>
                          {e.actor}
                        </button>
                      </td>
                      <td>
                        {e.target ? (
                          <button type="button" className="linkish" title={`Only events on ${e.target}`} onClick={() => { setResource(e.target!); reset(); }}>
                            {e.target}
                          </button>
                        ) : (
                          <span className="muted">—</span>
                        )}
                      </td>
                      <td>{e.ip || <span className="muted">—</span>}</td>
                      <td>
                        {e.payload && Object.keys(e.payload).length ? (
                          <>
                            <Button aria-expanded={open === e.id} aria-label={`Details of ${e.action} at ${fmtTime(e.created_at)}`} onClick={() => setOpen(open === e.id ? undefined : e.id)}>
                              {open === e.id ? 'Hide' : 'Show'}
                            </Button>
                            {open === e.id && <Json value={{ ...e.payload, ...(e.request_id ? { request_id: e.request_id } : {}) }} />}
                          </>
                        ) : (
                          <span className="muted small">{e.request_id ? `request ${e.request_id}` : '—'}</span>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : (
            <p className="muted">No audit events{filtered ? ' match these filters' : ''}.</p>
          )}
          <div className="row">
            <span className="muted small" data-testid="audit-page">
              Page {cursors.length + 1} · {page.data.items.length} event{page.data.items.length === 1 ? '' : 's'}
            </span>
            <Button disabled={!cursors.length} onClick={() => setCursors((c) => c.slice(0, -1))}>
              ← Newer
            </Button>
            <Button disabled={!page.data.next_cursor} onClick={() => setCursors((c) => [...c, page.data!.next_cursor!])}>
              Older →
            </Button>
          </div>
        </>
      )}
    </Section>
  );
}

interface Instance {
  id: string;
  hostname: string;
  version: string;
  kind: string;
  pools: string[];
  executors: string[];
  started_at: string;
  last_heartbeat_at: string;
  stopped_at: string | null;
  online: boolean;
}

/** "12 s ago", "3m 5s ago" from `iso` to now. */
function ago(iso: string, now: number): string {
  const ms = Math.max(0, now - Date.parse(iso));
  return ms < 1000 ? 'just now' : `${fmtDuration(ms).replace(/\.\d+ s$/, ' s')} ago`;
}

function Instances() {
  const list = useLoad(() => listAll<Instance>('/instances'), [], 10_000);
  const [showOffline, setShowOffline] = useState(false);
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 5000);
    return () => clearInterval(t);
  }, []);
  const all = list.data ?? [];
  const online = all.filter((i) => i.online);
  const shown = [...(showOffline ? all : online)].sort((a, b) => Number(b.online) - Number(a.online) || a.kind.localeCompare(b.kind) || a.hostname.localeCompare(b.hostname));
  const versions = [...new Set(online.map((i) => i.version))];
  // What can run where: each pool with the executors its online instances serve.
  const pools = new Map<string, Set<string>>();
  for (const i of online) for (const p of i.pools) for (const e of i.executors) (pools.get(p) ?? pools.set(p, new Set()).get(p)!).add(e);
  return (
    <Section title="Instances" actions={<Button onClick={list.reload}>Refresh</Button>}>
      <ErrorBox error={list.error} />
      {!list.data ? (
        !list.error && <Loading />
      ) : (
        <>
          <p data-testid="instance-summary">
            <strong>{online.length}</strong> online, <strong>{all.length - online.length}</strong> offline. Online means a heartbeat in the last 60 seconds (sent every 10).
          </p>
          {versions.length > 1 && (
            <p className="notice" role="note">
              Online instances run different versions ({versions.join(', ')}): finish the rollout so every instance runs the same one.
            </p>
          )}
          <h3>Pools served now</h3>
          {pools.size ? (
            <ul className="inline-list" aria-label="Pools served now">
              {[...pools].sort(([a], [b]) => a.localeCompare(b)).map(([p, ex]) => (
                <li key={p}>
                  <code>{p}</code>: {[...ex].sort().join(', ')}
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted">No online instance serves a pool: task runs wait (besides inline tasks).</p>
          )}
          <label className="check">
            <input type="checkbox" checked={showOffline} onChange={(e) => setShowOffline(e.target.checked)} /> Show offline instances
          </label>
          <table aria-label="Instances">
            <thead>
              <tr><th>Status</th><th>Kind</th><th>Host</th><th>Version</th><th>Pools</th><th>Executors</th><th>Started</th><th>Last heartbeat</th></tr>
            </thead>
            <tbody>
              {shown.map((i) => (
                <tr key={i.id} title={i.id}>
                  <td>{i.online ? <span className="badge state-success">Online</span> : <span className="badge">Offline</span>}</td>
                  <td>{i.kind}</td>
                  <td>{i.hostname}</td>
                  <td><code>{i.version}</code></td>
                  <td>{i.pools.length ? i.pools.map((p) => <code key={p} className="chip">{p}</code>) : <span className="muted">none</span>}</td>
                  <td>{i.executors.length ? i.executors.join(', ') : <span className="muted">none</span>}</td>
                  <td>{fmtTime(i.started_at)}</td>
                  <td>
                    {ago(i.last_heartbeat_at, now)}
                    {i.stopped_at ? <span className="muted small"> · stopped {fmtTime(i.stopped_at)}</span> : null}
                  </td>
                </tr>
              ))}
              {!shown.length && <tr><td colSpan={8} className="muted">No {showOffline ? '' : 'online '}instances.</td></tr>}
            </tbody>
          </table>
        </>
      )}
    </Section>
  );
}

interface StorageStatus {
  store: string;
  scanned_at: string;
  complete: boolean;
  objects: Record<string, { objects: number; bytes: number }>;
  total: { objects: number; bytes: number };
  last_cleanup: (Record<string, unknown> & { started_at?: string; finished_at?: string | null; outcome?: string; duration_ms?: number | null; error?: string; objects?: Record<string, { objects: number; bytes: number }>; rows?: Record<string, number> }) | null;
  next_cleanup_after: string | null;
}

export function fmtBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[u]}`;
}

const KIND_HELP: Record<string, string> = {
  files: 'namespace files',
  bundles: 'bundles of namespace files sent to runners',
  artifacts: 'files tasks stored',
  logs: 'archived log lines',
  other: 'anything else under the store',
};

function Storage() {
  const s = useLoad(() => api<StorageStatus>('GET', '/storage'), []);
  const d = s.data;
  const last = d?.last_cleanup;
  const removed = last?.objects ? Object.values(last.objects).reduce((t, k) => ({ objects: t.objects + k.objects, bytes: t.bytes + k.bytes }), { objects: 0, bytes: 0 }) : null;
  return (
    <Section title="Storage" actions={<Button disabled={s.loading} onClick={s.reload}>Scan again</Button>}>
      <ErrorBox error={s.error} />
      {!d ? (
        !s.error && <Loading />
      ) : (
        <>
          <p>
            Store <code>{d.store}</code> · scanned {fmtTime(d.scanned_at)}
            {!d.complete && <strong> · partial: the scan stopped at its time budget, so the counts are lower bounds</strong>}
          </p>
          <table aria-label="Stored objects by kind">
            <thead>
              <tr><th>Kind</th><th className="num">Objects</th><th className="num">Size</th></tr>
            </thead>
            <tbody>
              {Object.entries(d.objects).map(([k, v]) => (
                <tr key={k}>
                  <th scope="row">{k} <span className="muted small">{KIND_HELP[k] ?? ''}</span></th>
                  <td className="num">{v.objects.toLocaleString('en-US')}</td>
                  <td className="num">{fmtBytes(v.bytes)}</td>
                </tr>
              ))}
              <tr>
                <th scope="row">total</th>
                <td className="num"><strong>{d.total.objects.toLocaleString('en-US')}</strong></td>
                <td className="num"><strong>{fmtBytes(d.total.bytes)}</strong></td>
              </tr>
            </tbody>
          </table>
          <h3>Cleanup</h3>
          {last ? (
            <div data-testid="last-cleanup">
              <p>
                Last run started {fmtTime(last.started_at)}: <span className={`badge ${last.outcome === 'ok' ? 'state-success' : last.outcome === 'running' ? 'state-running' : 'state-failed'}`}>{last.outcome}</span>
                {last.duration_ms !== null && last.duration_ms !== undefined ? ` in ${fmtDuration(last.duration_ms)}` : ''}
                {removed ? ` · removed ${removed.objects.toLocaleString('en-US')} objects (${fmtBytes(removed.bytes)})` : ''}
                {last.rows ? ` · ${last.rows.snapshots ?? 0} snapshots, ${last.rows.file_objects ?? 0} file rows` : ''}
              </p>
              {last.error && <p className="error">{last.error}</p>}
            </div>
          ) : (
            <p className="muted">No cleanup has run yet.</p>
          )}
          <p className="muted small">Cleanup runs at most once a day{d.next_cleanup_after ? `; the next one not before ${fmtTime(d.next_cleanup_after)}` : ''}.</p>
        </>
      )}
    </Section>
  );
}
