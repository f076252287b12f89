// Settings: secrets and variables (global and per namespace; secret values are
// write-only), secret providers, users and roles, the audit log, instances and
// storage. Tabs a role cannot use say which role they need.
import { useState } from 'react';
import { api, listAll } from '../api';
import { Link } from '../router';
import { usePermission } from '../session';
import { ROLES, type Namespace, type Role } from '../types';
import { Button, ErrorBox, Json, Loading, Section, fmtTime, useAction, useLoad } from '../ui';

const TABS: { id: string; label: string; minRole: Role }[] = [
  { id: 'secrets', label: 'Secrets & variables', minRole: 'viewer' },
  { id: 'providers', label: 'Secret providers', minRole: 'viewer' },
  { id: 'users', label: 'Users', minRole: 'admin' },
  { id: 'audit', label: 'Audit log', minRole: 'admin' },
  { id: 'instances', label: 'Instances', minRole: 'admin' },
  { id: 'storage', label: 'Storage', minRole: 'admin' },
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

/** A list of objects as a table of their scalar fields. */
function GenericTable({ items }: { items: Record<string, unknown>[] }) {
  if (!items.length) return <p className="muted">None.</p>;
  const cols = [...new Set(items.flatMap((i) => Object.keys(i)))].slice(0, 10);
  const cell = (v: unknown) => (v === null || v === undefined ? '—' : typeof v === 'object' ? JSON.stringify(v) : String(v));
  return (
    <div className="scroll-x">
      <table>
        <thead>
          <tr>{cols.map((c) => <th key={c}>{c}</th>)}</tr>
        </thead>
        <tbody>
          {items.map((it, i) => (
            <tr key={i}>{cols.map((c) => <td key={c}>{cell(it[c])}</td>)}</tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Providers() {
  const { needs } = usePermission();
  const list = useLoad(() => listAll<Record<string, unknown>>('/secret-providers'), []);
  const [name, setName] = useState('');
  const [type, setType] = useState<'env' | 'vault'>('env');
  const [prefix, setPrefix] = useState('');
  const [address, setAddress] = useState('');
  const [token, setToken] = useState('');
  const [checked, setChecked] = useState<string>();
  const create = useAction(async () => {
    const body = type === 'env' ? { name, type, config: prefix ? { prefix } : {} } : { name, type, config: { address }, credentials: token ? { token } : undefined };
    await api('POST', '/secret-providers', body);
    setName('');
    setToken('');
    list.reload();
  });
  const remove = useAction(async (n: string) => {
    await api('DELETE', `/secret-providers/${encodeURIComponent(n)}`);
    list.reload();
  });
  const check = useAction(async (n: string) => {
    const r = await api<Record<string, unknown>>('POST', `/secret-providers/${encodeURIComponent(n)}/check`);
    setChecked(`${n}: ${JSON.stringify(r)}`);
  });
  const why = needs('admin');
  return (
    <Section title="Secret providers">
      <p className="muted small">Secrets read as <code>secret('provider:path#field')</code> come from these; credentials are write-only.</p>
      <ErrorBox error={list.error ?? remove.error ?? check.error} />
      {list.data ? (
        <table>
          <thead>
            <tr><th>Name</th><th>Type</th><th>Enabled</th><th>Settings</th><th><span className="sr-only">Actions</span></th></tr>
          </thead>
          <tbody>
            {list.data.map((p) => (
              <tr key={String(p.name)}>
                <td>{String(p.name)}</td>
                <td>{String(p.type)}</td>
                <td>{p.enabled === false ? 'no' : 'yes'}</td>
                <td><code>{JSON.stringify(p.config ?? {})}</code></td>
                <td className="row">
                  <Button aria-label={`Check provider ${String(p.name)}`} disabledReason={why} onClick={() => void check.run(String(p.name))}>Check</Button>
                  <Button aria-label={`Delete provider ${String(p.name)}`} disabledReason={why} onClick={() => confirm(`Delete provider ${String(p.name)}?`) && void remove.run(String(p.name))}>Delete</Button>
                </td>
              </tr>
            ))}
            {!list.data.length && <tr><td colSpan={5} className="muted">None.</td></tr>}
          </tbody>
        </table>
      ) : (
        !list.error && <Loading />
      )}
      {checked && <p role="status" className="small">{checked}</p>}
      {!why && (
        <form className="row wrap" onSubmit={(e) => { e.preventDefault(); void create.run(); }}>
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
    await api('PATCH', `/users/${id}`, patch);
    list.reload();
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
      <form className="row wrap" onSubmit={(e) => { e.preventDefault(); void create.run(); }}>
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

function Audit() {
  const [pages, setPages] = useState<{ items: Record<string, unknown>[]; next_cursor?: string }[]>([]);
  const first = useLoad(() => api<{ items: Record<string, unknown>[]; next_cursor?: string }>('GET', '/audit', undefined, { limit: 100 }), []);
  const more = useAction(async (cursor: string) => {
    const p = await api<{ items: Record<string, unknown>[]; next_cursor?: string }>('GET', '/audit', undefined, { limit: 100, cursor });
    setPages((x) => [...x, p]);
  });
  const all = first.data ? [first.data, ...pages] : [];
  const next = all[all.length - 1]?.next_cursor;
  return (
    <Section title="Audit log">
      <ErrorBox error={first.error ?? more.error} />
      {first.data ? <GenericTable items={all.flatMap((p) => p.items)} /> : !first.error && <Loading />}
      {next && (
        <Button disabled={more.busy} onClick={() => void more.run(next)}>
          Older events
        </Button>
      )}
    </Section>
  );
}

function Instances() {
  const list = useLoad(() => listAll<Record<string, unknown>>('/instances'), [], 10_000);
  return (
    <Section title="Instances">
      <ErrorBox error={list.error} />
      {list.data ? <GenericTable items={list.data} /> : !list.error && <Loading />}
    </Section>
  );
}

function Storage() {
  const s = useLoad(() => api<unknown>('GET', '/storage'), []);
  return (
    <Section title="Storage">
      <ErrorBox error={s.error} />
      {s.data ? <Json value={s.data} /> : !s.error && <Loading />}
    </Section>
  );
}
