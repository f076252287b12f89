// Settings › Secrets & variables: secrets and variables, global or of one
// namespace (chosen by the scope). Secret values are write-only: the list says
// "hidden". Viewers read; editors change a namespace's, admins the global ones.
import { useState } from 'react';
import { client } from '../../api';
import { usePermission } from '../../session';
import type { SecretKey, Variable } from '../../types';
import { ActionForm, DataTable } from '../../components/DataTable';
import { Button, ErrorBox, Section, fmtTime, useAction, useLoad } from '../../ui';

export function SecretsAndVariables() {
  const namespaces = useLoad(() => client.all('/api/v1/namespaces'), []);
  const [ns, setNs] = useState('');
  const { needs } = usePermission();
  const writeWhy = ns ? needs('editor', ns) : needs('admin');
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
      <KeyList key={`s${ns}`} title="Secrets" namespace={ns} secret writeWhy={writeWhy} />
      <KeyList key={`v${ns}`} title="Variables" namespace={ns} writeWhy={writeWhy} />
    </>
  );
}

/** A row of listNamespaceSecrets / listGlobalSecrets (no value) or of the variables' lists. */
type KeyRow = Pick<SecretKey, 'key' | 'created_at' | 'updated_at'> & Partial<Pick<Variable, 'value'>>;

/**
 * The calls of one key list: the secrets or the variables, global (`namespace`
 * '') or of a namespace.
 */
function keyCalls(namespace: string, secret: boolean) {
  const ns = { params: { path: { namespace } } };
  const key = (key: string) => ({ params: { path: { namespace, key } } });
  return {
    list: (): Promise<KeyRow[]> =>
      secret
        ? namespace
          ? client.all('/api/v1/namespaces/{namespace}/secrets', ns)
          : client.all('/api/v1/secrets')
        : namespace
          ? client.all('/api/v1/namespaces/{namespace}/variables', ns)
          : client.all('/api/v1/variables'),
    put: (k: string, value: string): Promise<unknown> =>
      secret
        ? namespace
          ? client.put('/api/v1/namespaces/{namespace}/secrets/{key}', { ...key(k), body: { value } })
          : client.put('/api/v1/secrets/{key}', { params: { path: { key: k } }, body: { value } })
        : namespace
          ? client.put('/api/v1/namespaces/{namespace}/variables/{key}', { ...key(k), body: { value } })
          : client.put('/api/v1/variables/{key}', { params: { path: { key: k } }, body: { value } }),
    remove: (k: string): Promise<unknown> =>
      secret
        ? namespace
          ? client.delete('/api/v1/namespaces/{namespace}/secrets/{key}', key(k))
          : client.delete('/api/v1/secrets/{key}', { params: { path: { key: k } } })
        : namespace
          ? client.delete('/api/v1/namespaces/{namespace}/variables/{key}', key(k))
          : client.delete('/api/v1/variables/{key}', { params: { path: { key: k } } }),
  };
}

function KeyList({ title, namespace, secret = false, writeWhy }: { title: string; namespace: string; secret?: boolean; writeWhy: string | null }) {
  const calls = keyCalls(namespace, secret);
  const list = useLoad(() => calls.list(), [namespace, secret]);
  const [key, setKey] = useState('');
  const [value, setValue] = useState('');
  const put = useAction(async () => {
    await calls.put(key, value);
    setKey('');
    setValue('');
    list.reload();
  });
  const del = useAction(async (k: string) => {
    await calls.remove(k);
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
