// Settings › Secrets & variables: secrets and variables, global or of one
// namespace (chosen by the scope). Secret values are write-only: the list says
// "hidden". Viewers read; editors change a namespace's, admins the global ones.
import { useState } from 'react';
import { api, listAll } from '../../api';
import { usePermission } from '../../session';
import type { Namespace, SecretKey, Variable } from '../../types';
import { ActionForm, DataTable } from '../../components/DataTable';
import { Button, ErrorBox, Section, fmtTime, useAction, useLoad } from '../../ui';

export function SecretsAndVariables() {
  const namespaces = useLoad(() => listAll<Namespace>('/namespaces'), []);
  const [ns, setNs] = useState('');
  const { needs } = usePermission();
  const writeWhy = ns ? needs('editor', ns) : needs('admin');
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

/** A row of listNamespaceSecrets / listGlobalSecrets (no value) or of the variables' lists. */
type KeyRow = Pick<SecretKey, 'key' | 'created_at' | 'updated_at'> & Partial<Pick<Variable, 'value'>>;

function KeyList({ title, path, secret, writeWhy }: { title: string; path: string; secret?: boolean; writeWhy: string | null }) {
  const list = useLoad(() => listAll<KeyRow>(path), [path]);
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
      <DataTable
        rows={list.data}
        error={list.error}
        rowKey={(s) => s.key}
        empty="None."
        columns={[
          { header: 'Key', cell: (s) => <code>{s.key}</code> },
          { header: 'Value', cell: (s) => (secret ? <span className="muted">hidden</span> : s.value) },
          { header: 'Updated', cell: (s) => fmtTime(s.updated_at ?? s.created_at) },
        ]}
        actions={(s) => (
          <Button aria-label={`Delete ${s.key}`} disabledReason={writeWhy} onClick={() => confirm(`Delete ${s.key}?`) && void del.run(s.key)}>
            Delete
          </Button>
        )}
      />
      {!writeWhy ? (
        <ActionForm action={put} submit={`Set ${secret ? 'secret' : 'variable'}`}>
          <label>
            Key <input value={key} onChange={(e) => setKey(e.target.value)} required pattern="[A-Za-z0-9_.\-]+" />
          </label>
          <label>
            Value <input type={secret ? 'password' : 'text'} autoComplete="off" value={value} onChange={(e) => setValue(e.target.value)} required />
          </label>
        </ActionForm>
      ) : (
        <p className="muted small">
          {writeWhy} to change {title.toLowerCase()}.
        </p>
      )}
      <ErrorBox error={put.error} />
    </Section>
  );
}
