// Settings › Organizations (admin): the organizations of the email interface
// (POST /api/v1/emails with a `svc_live_` key), each with its keys, verified
// senders, daily quota and today's use, the namespaces whose alert rules may
// send as it, and the emails it sent with their delivery status. The one opened is in the URL (?org=NAME). A new key is
// shown once, right after it is made (createOrganizationKey's answer is the
// only place it ever appears); the list names keys by prefix only.
import { useState } from 'react';
import { client } from '../../api';
import { useQueryParam } from '../../router';
import type { CreatedOrganizationKey as CreatedKey, Organization } from '../../types';
import { ActionForm, DataTable } from '../../components/DataTable';
import { Button, CopyButton, ErrorBox, Section, fmtTime, useAction, useLoad } from '../../ui';

/** The path parameters of an organization's calls. */
const org = (organization: string) => ({ params: { path: { organization } } });

export function Organizations() {
  const [open, setOpen] = useQueryParam('org');
  const [name, setName] = useState('');
  const list = useLoad(() => client.all('/api/v1/organizations'), []);
  const create = useAction(async () => {
    const o = await client.post('/api/v1/organizations', { body: { name } });
    setName('');
    list.reload();
    setOpen(o.name);
  });
  const current = list.data?.find((o) => o.name === open);
  return (
    <>
      <Section title="Organizations">
        <p className="muted small">
          Organizations send email through <code>POST /api/v1/emails</code> with a <code>svc_live_</code> key. All keys of an organization share its rate limit and daily quota; an
          email's <em>from</em> must be a verified sender. A key is shown once, when it is made.
        </p>
        <ErrorBox error={list.error} />
        <DataTable
          label="Organizations"
          rows={list.data}
          error={list.error}
          loading="the organizations"
          rowKey={(o) => o.id}
          selected={(o) => o.name === open}
          empty="No organizations yet."
          columns={[
            {
              header: 'Name',
              cell: (o) => (
                <button type="button" className="linkish" onClick={() => setOpen(o.name)}>
                  {o.name}
                </button>
              ),
            },
            {
              header: 'Sent today',
              className: 'num',
              cell: (o) => (
                <>
                  {o.daily_quota.used_today} <span className="muted">/ {o.daily_quota.limit}</span>
                </>
              ),
            },
            { header: 'Senders', cell: (o) => o.senders.map((s) => s.value).join(', ') || <span className="muted">none</span> },
            { header: 'Namespaces', cell: (o) => o.namespaces.join(', ') || <span className="muted">none</span> },
            { header: 'Live keys', className: 'num', cell: (o) => o.keys.filter((k) => !k.revoked_at).length },
            { header: 'Created', cell: (o) => fmtTime(o.created_at) },
          ]}
        />
        <ActionForm label="Add an organization" action={create} submit="Add organization">
          <label>
            Name <input value={name} onChange={(e) => setName(e.target.value)} required pattern="[a-z0-9][a-z0-9._\-]{0,62}" placeholder="acme" />
          </label>
        </ActionForm>
        <ErrorBox error={create.error} />
      </Section>
      {current && <OrganizationDetail key={current.id} org={current} onChange={list.reload} />}
    </>
  );
}

function OrganizationDetail({ org: o, onChange }: { org: Organization; onChange: () => void }) {
  const [keyName, setKeyName] = useState('');
  const [made, setMade] = useState<CreatedKey>();
  const [sender, setSender] = useState('');
  const [quota, setQuota] = useState(o.daily_quota.own === null ? '' : String(o.daily_quota.own));
  const [namespace, setNamespace] = useState('');
  const emails = useLoad(
    () => client.get('/api/v1/organizations/{organization}/emails', { params: { path: { organization: o.name }, query: { limit: 50 } } }).then((p) => p.items),
    [o.name],
    10_000,
  );

  const makeKey = useAction(async () => {
    setMade(await client.post('/api/v1/organizations/{organization}/keys', { ...org(o.name), body: { name: keyName } }));
    setKeyName('');
    onChange();
  });
  const revoke = useAction(async (id: string) => {
    await client.delete('/api/v1/organizations/{organization}/keys/{keyId}', { params: { path: { organization: o.name, keyId: id } } });
    if (made?.id === id) setMade(undefined);
    onChange();
  });
  const addSender = useAction(async () => {
    await client.post('/api/v1/organizations/{organization}/senders', { ...org(o.name), body: { value: sender } });
    setSender('');
    onChange();
  });
  const removeSender = useAction(async (v: string) => {
    await client.delete('/api/v1/organizations/{organization}/senders/{sender}', { params: { path: { organization: o.name, sender: v } } });
    onChange();
  });
  // The whole list is replaced (updateOrganization's namespaces): add and remove send it with one change.
  const setNamespaces = useAction(async (namespaces: string[]) => {
    await client.patch('/api/v1/organizations/{organization}', { ...org(o.name), body: { namespaces } });
    setNamespace('');
    onChange();
  });
  const saveQuota = useAction(async () => {
    await client.patch('/api/v1/organizations/{organization}', { ...org(o.name), body: { daily_quota: quota.trim() === '' ? null : Number(quota) } });
    onChange();
  });

  const q = o.daily_quota;
  return (
    <Section
      title={`Organization ${o.name}`}
      actions={
        <Button
          onClick={() => {
            onChange();
            emails.reload();
          }}
        >
          Refresh
        </Button>
      }
    >
      <h3>Daily quota</h3>
      <p data-testid="org-quota">
        {q.used_today} of {q.limit} emails sent today (UTC) · {q.own === null ? 'the server default (SVC_ORG_DAILY_QUOTA)' : 'its own quota'} · rate limit {o.rate_limit.per_second}
        /s shared by its keys
      </p>
      <meter min={0} max={Math.max(q.limit, 1)} value={Math.min(q.used_today, q.limit)} high={q.limit * 0.8} optimum={0} aria-label="Emails sent today of the daily quota" />
      <ActionForm label="Daily quota" action={saveQuota} submit="Save quota">
        <label>
          Own quota (emails a day; empty: server default; 0 stops its email)
          <input type="number" min={0} value={quota} onChange={(e) => setQuota(e.target.value)} />
        </label>
      </ActionForm>
      <ErrorBox error={saveQuota.error} />

      <h3>Keys</h3>
      {made && (
        <div className="secret-once" role="status" data-testid="org-new-key">
          <p>
            New key <strong>{made.name || made.prefix}</strong>: copy it now, it is not shown again.
          </p>
          <p className="row">
            <code data-testid="org-new-key-value">{made.key}</code> <CopyButton text={made.key} label="Copy key" />
            <Button onClick={() => setMade(undefined)}>Done</Button>
          </p>
        </div>
      )}
      <DataTable
        label="Keys"
        rows={o.keys}
        rowKey={(k) => k.id}
        empty="No keys: make one to send email."
        columns={[
          { header: 'Name', cell: (k) => k.name || <span className="muted">—</span> },
          { header: 'Key', cell: (k) => <code>{k.prefix}…</code> },
          { header: 'Created', cell: (k) => fmtTime(k.created_at) },
          { header: 'Last used', cell: (k) => (k.last_used_at ? fmtTime(k.last_used_at) : <span className="muted">never</span>) },
          {
            header: 'Status',
            cell: (k) => (k.revoked_at ? <span className="badge state-failed">revoked {fmtTime(k.revoked_at)}</span> : <span className="badge state-success">live</span>),
          },
        ]}
        actions={(k) =>
          !k.revoked_at && (
            <Button aria-label={`Revoke key ${k.prefix}`} onClick={() => confirm(`Revoke key ${k.prefix}…? Requests with it are refused at once.`) && void revoke.run(k.id)}>
              Revoke
            </Button>
          )
        }
      />
      <ActionForm label="Create a key" action={makeKey} submit="Create key">
        <label>
          Key name <input value={keyName} onChange={(e) => setKeyName(e.target.value)} maxLength={100} placeholder="billing app" />
        </label>
      </ActionForm>
      <ErrorBox error={makeKey.error ?? revoke.error} />

      <h3>Verified senders</h3>
      <ul aria-label="Verified senders" className="plain">
        {o.senders.map((s) => (
          <li key={s.value} className="row">
            <code>{s.value}</code> <span className="muted small">{s.kind === 'domain' ? 'any address at this domain (not subdomains)' : 'this address'}</span>
            <Button aria-label={`Remove sender ${s.value}`} onClick={() => void removeSender.run(s.value)}>
              Remove
            </Button>
          </li>
        ))}
        {!o.senders.length && <li className="muted">None: every email is refused until a sender is added.</li>}
      </ul>
      <ActionForm label="Add a sender" action={addSender} submit="Add sender">
        <label>
          Domain or address <input value={sender} onChange={(e) => setSender(e.target.value)} required placeholder="acme.example or billing@acme.example" />
        </label>
      </ActionForm>
      <ErrorBox error={addSender.error ?? removeSender.error} />

      <h3>Namespaces</h3>
      <p className="muted small">
        Alert rules of these namespaces, and of their children, may send email as this organization; a rule of any other namespace is refused, and its emails are not sent.
      </p>
      <ul aria-label="Allowed namespaces" className="plain">
        {o.namespaces.map((n) => (
          <li key={n} className="row">
            <code>{n}</code> <span className="muted small">and its children</span>
            <Button aria-label={`Remove namespace ${n}`} onClick={() => void setNamespaces.run(o.namespaces.filter((x) => x !== n))}>
              Remove
            </Button>
          </li>
        ))}
        {!o.namespaces.length && <li className="muted">None: no alert rule may send as this organization until a namespace is added.</li>}
      </ul>
      <ActionForm label="Allow a namespace" action={{ run: () => setNamespaces.run([...o.namespaces, namespace.trim()]), busy: setNamespaces.busy }} submit="Allow namespace">
        <label>
          Namespace <input value={namespace} onChange={(e) => setNamespace(e.target.value)} required placeholder="team.etl" />
        </label>
      </ActionForm>
      <ErrorBox error={setNamespaces.error} />

      <h3>Sent emails</h3>
      <ErrorBox error={emails.error} />
      <DataTable
        label="Sent emails"
        rows={emails.data}
        error={emails.error}
        loading="the emails"
        rowKey={(e) => e.id}
        empty="No emails yet."
        columns={[
          { header: 'Accepted', cell: (e) => fmtTime(e.created_at) },
          { header: 'From', cell: (e) => e.from },
          { header: 'To', cell: (e) => e.to },
          { header: 'Subject', cell: (e) => e.subject },
          {
            header: 'Status',
            cell: (e) => (
              <>
                <span className={`badge ${e.status === 'sent' ? 'state-success' : e.status === 'failed' ? 'state-failed' : 'state-queued'}`}>{e.status}</span>
                {e.attempts > 1 ? <span className="muted small"> {e.attempts} attempts</span> : null}
              </>
            ),
          },
          { header: 'Sent', cell: (e) => (e.sent_at ? fmtTime(e.sent_at) : <span className="muted">—</span>) },
          { header: 'Error', cellClassName: 'git-error', cell: (e) => e.error },
        ]}
      />
    </Section>
  );
}
