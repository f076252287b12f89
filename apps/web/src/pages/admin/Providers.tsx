// Settings › Secret providers: where `secret('provider:path#field')` reads
// from (env or vault), each checked, enabled or disabled, and deleted; adding
// and changing one needs the admin role. Credentials are write-only. Each
// serves the namespaces it lists (docs/using/secrets-and-variables.md): a flow of another namespace is
// refused when saved and when it runs.
import { useState } from 'react';
import { client } from '../../api';
import { usePermission } from '../../session';
import type { SecretProvider, SecretProviderCheck } from '../../types';
import { ActionForm, DataTable } from '../../components/DataTable';
import { Button, ErrorBox, Section, fmtTime, useAction, useLoad } from '../../ui';
import { namesOf } from '../../editor/AllowedCallers';

export function Providers() {
  const { needs } = usePermission();
  const list = useLoad(() => client.all('/api/v1/secret-providers'), []);
  const [name, setName] = useState('');
  const [type, setType] = useState<'env' | 'vault'>('env');
  const [prefix, setPrefix] = useState('');
  const [address, setAddress] = useState('');
  const [token, setToken] = useState('');
  const [scope, setScope] = useState('');
  const [checked, setChecked] = useState<SecretProviderCheck & { name: string }>();
  const create = useAction(async () => {
    const namespaces = namesOf(scope);
    const body =
      type === 'env' ? { name, type, config: prefix ? { prefix } : {}, namespaces } : { name, type, config: { address }, credentials: token ? { token } : undefined, namespaces };
    await client.post('/api/v1/secret-providers', { body });
    setName('');
    setScope('');
    setPrefix('');
    setToken('');
    list.reload();
  });
  const remove = useAction(async (n: string) => {
    await client.delete('/api/v1/secret-providers/{name}', { params: { path: { name: n } } });
    if (checked?.name === n) setChecked(undefined);
    list.reload();
  });
  const toggle = useAction(async (p: SecretProvider) => {
    await client.put('/api/v1/secret-providers/{name}', { params: { path: { name: p.name } }, body: { enabled: !p.enabled } });
    list.reload();
  });
  const [scoping, setScoping] = useState<{ name: string; text: string }>();
  const rescope = useAction(async () => {
    if (!scoping) return;
    await client.put('/api/v1/secret-providers/{name}', { params: { path: { name: scoping.name } }, body: { namespaces: namesOf(scoping.text) } });
    setScoping(undefined);
    list.reload();
  });
  const check = useAction(async (n: string) => {
    setChecked(undefined);
    const r = await client.post('/api/v1/secret-providers/{name}/check', { params: { path: { name: n } } });
    setChecked({ name: n, ok: r.ok, message: r.message ?? '' });
  });
  const why = needs('admin');
  return (
    <Section title="Secret providers">
      <p className="muted small">
        Secrets read as <code>secret('provider:path#field')</code> come from these. Each serves the flows of the namespaces it lists (and their children) only. Credentials are
        write-only: they are stored sealed and never shown.
      </p>
      <ErrorBox error={list.error ?? remove.error ?? check.error ?? toggle.error ?? rescope.error} />
      <DataTable
        rows={list.data}
        error={list.error}
        rowKey={(p) => p.name}
        empty="No providers: secrets come from the built-in store only."
        columns={[
          { header: 'Name', cell: (p) => <code>{p.name}</code> },
          { header: 'Type', cell: (p) => p.type },
          { header: 'Status', cell: (p) => (p.enabled ? <span className="badge state-success">enabled</span> : <span className="badge">disabled</span>) },
          {
            header: 'Settings',
            cell: (p) =>
              Object.keys(p.config ?? {}).length ? (
                Object.entries(p.config ?? {}).map(([k, v]) => (
                  <div key={k} className="small">
                    {k}: <code>{typeof v === 'string' ? v : JSON.stringify(v)}</code>
                  </div>
                ))
              ) : (
                <span className="muted">defaults</span>
              ),
          },
          { header: 'Credentials', cell: (p) => (p.has_credentials ? 'set (hidden)' : <span className="muted">none</span>) },
          {
            header: 'Namespaces',
            cell: (p) =>
              p.namespaces.length ? (
                p.namespaces.map((n) => (
                  <div key={n} className="small">
                    <code>{n}</code>
                  </div>
                ))
              ) : (
                <span className="muted">none: no flow may use it</span>
              ),
          },
          { header: 'Updated', cell: (p) => fmtTime(p.updated_at) },
        ]}
        actions={(p) => (
          <>
            <Button aria-label={`Check provider ${p.name}`} disabledReason={why} disabled={check.busy} onClick={() => void check.run(p.name)}>
              Check
            </Button>
            <Button aria-label={`Set the namespaces of provider ${p.name}`} disabledReason={why} onClick={() => setScoping({ name: p.name, text: p.namespaces.join(', ') })}>
              Namespaces…
            </Button>
            <Button aria-label={`${p.enabled ? 'Disable' : 'Enable'} provider ${p.name}`} disabledReason={why} disabled={toggle.busy} onClick={() => void toggle.run(p)}>
              {p.enabled ? 'Disable' : 'Enable'}
            </Button>
            <Button
              aria-label={`Delete provider ${p.name}`}
              disabledReason={why}
              onClick={() => confirm(`Delete provider ${p.name}? Secrets read through it stop resolving.`) && void remove.run(p.name)}
            >
              Delete
            </Button>
          </>
        )}
      />
      {scoping && (
        <ActionForm label={`Namespaces of provider ${scoping.name}`} action={rescope} submit="Save namespaces">
          <label>
            Serves flows of <input value={scoping.text} onChange={(e) => setScoping({ ...scoping, text: e.target.value })} placeholder="team-a, team-b.etl or *" />
          </label>
          <span className="muted small">Each namespace covers its children; * serves every namespace; empty serves none.</span>
          <Button onClick={() => setScoping(undefined)}>Cancel</Button>
        </ActionForm>
      )}
      {checked && (
        <p role="status" className={checked.ok ? 'notice small' : 'error small'} data-testid="provider-check">
          <strong>{checked.name}</strong>: {checked.ok ? 'works' : 'does not work'}
          {checked.message ? ` — ${checked.message}` : ''}
        </p>
      )}
      {!why ? (
        <ActionForm label="Add a secret provider" action={create} submit="Add provider">
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
          <label>
            Serves flows of <input value={scope} onChange={(e) => setScope(e.target.value)} placeholder="team-a, team-b.etl or *" />
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
        </ActionForm>
      ) : (
        <p className="muted small">{why} to add, check or change providers.</p>
      )}
      <ErrorBox error={create.error} />
    </Section>
  );
}
