// Settings › Platform secrets (admin, docs/operating/security.md): the credentials of the git
// sources (credential and webhook secret) and of single sign-on (the OIDC
// client secret), kept where no flow's `secret()` can read them. Values are
// write-only: typed into a password field that is cleared after the save,
// never shown. A platform secret with a global secret of the same name (the
// upgrade copies one, and leaves it) is flagged: flows can read that global
// one until it is deleted under Secrets & variables. Every change is audited.
import { useState } from 'react';
import { client } from '../../api';
import type { Answer, RequestBody } from '../../types';
import { ActionForm, DataTable } from '../../components/DataTable';
import { Button, ErrorBox, Section, fmtTime, useAction, useLoad } from '../../ui';

type PlatformSecret = Answer<'listPlatformSecrets'>['items'][number];

function note(p: PlatformSecret): string {
  if (p.global_copy) return 'A global secret of this name exists too: flows can read it. Delete it under Secrets & variables once no flow uses it.';
  if (p.upgraded_from_global) return 'Copied from a global secret by the upgrade.';
  return '';
}

export function PlatformSecrets() {
  const list = useLoad(() => client.get('/api/v1/platform-secrets', { params: { query: { limit: 200 } } }).then((r) => r.items), []);
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [saved, setSaved] = useState('');
  const set = useAction(async () => {
    const body: RequestBody<'putPlatformSecret'> = { value };
    await client.put('/api/v1/platform-secrets/{name}', { params: { path: { name } }, body });
    setValue('');
    setSaved(`Platform secret ${name} saved.`);
    setName('');
    list.reload();
  });
  const remove = useAction(async (p: PlatformSecret) => {
    await client.delete('/api/v1/platform-secrets/{name}', { params: { path: { name: p.name } } });
    setSaved(`Platform secret ${p.name} deleted.`);
    list.reload();
  });
  return (
    <Section title="Platform secrets">
      <p className="muted small">
        The credentials svc itself authenticates with: a git source&apos;s credential and webhook secret, and the single sign-on client secret name one of these. No flow can read
        them: <code>secret()</code> in a task never looks here, whatever the name. Values are never shown.
      </p>
      <ErrorBox error={list.error} />
      <DataTable
        label="Platform secrets"
        rows={list.data}
        error={list.error}
        loading="the platform secrets"
        rowKey={(p) => p.name}
        empty="No platform secrets yet."
        columns={[
          { header: 'Name', cell: (p) => p.name },
          { header: 'Updated', cell: (p) => fmtTime(p.updated_at) },
          { header: 'Master key', cell: (p) => p.key_id },
          { header: 'Note', cell: (p) => note(p) },
        ]}
        actions={(p) => (
          <Button
            aria-label={`Delete the platform secret ${p.name}`}
            disabled={remove.busy}
            onClick={() => confirm(`Delete the platform secret ${p.name}? Git sources and single sign-on that name it stop authenticating.`) && void remove.run(p)}
          >
            Delete
          </Button>
        )}
      />
      <ErrorBox error={remove.error} />
      <ActionForm label="Set a platform secret" action={set} submit="Save secret">
        <label>
          Name <input value={name} onChange={(e) => setName(e.target.value)} required placeholder="GIT_TOKEN" pattern="[A-Za-z0-9_.\-]+" />
        </label>
        <label>
          Value <input type="password" autoComplete="off" value={value} onChange={(e) => setValue(e.target.value)} required />
        </label>
      </ActionForm>
      <ErrorBox error={set.error} />
      {saved ? (
        <p role="status" className="small">
          {saved}
        </p>
      ) : null}
    </Section>
  );
}
