// Settings › Secrets & variables: secrets and variables, global or of one
// namespace (chosen by the scope). Secret values are write-only: the list says
// "hidden". Viewers read; editors change a namespace's, admins the global ones.
import { useState } from 'react';
import { api, listAll } from '../../api';
import { usePermission } from '../../session';
import type { Namespace, SecretKey, Variable } from '../../types';
import { Button, ErrorBox, Loading, Section, fmtTime, useAction, useLoad } from '../../ui';

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
      {list.data ? (
        <table>
          <thead>
            <tr>
              <th>Key</th>
              <th>{secret ? 'Value' : 'Value'}</th>
              <th>Updated</th>
              <th>
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((s) => (
              <tr key={s.key}>
                <td>
                  <code>{s.key}</code>
                </td>
                <td>{secret ? <span className="muted">hidden</span> : s.value}</td>
                <td>{fmtTime(s.updated_at ?? s.created_at)}</td>
                <td>
                  <Button aria-label={`Delete ${s.key}`} disabledReason={writeWhy} onClick={() => confirm(`Delete ${s.key}?`) && void del.run(s.key)}>
                    Delete
                  </Button>
                </td>
              </tr>
            ))}
            {!list.data.length && (
              <tr>
                <td colSpan={4} className="muted">
                  None.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      ) : (
        !list.error && <Loading />
      )}
      {!writeWhy ? (
        <form
          className="row wrap"
          onSubmit={(e) => {
            e.preventDefault();
            void put.run();
          }}
        >
          <label>
            Key <input value={key} onChange={(e) => setKey(e.target.value)} required pattern="[A-Za-z0-9_.\-]+" />
          </label>
          <label>
            Value <input type={secret ? 'password' : 'text'} autoComplete="off" value={value} onChange={(e) => setValue(e.target.value)} required />
          </label>
          <Button type="submit" disabled={put.busy}>
            Set {secret ? 'secret' : 'variable'}
          </Button>
        </form>
      ) : (
        <p className="muted small">
          {writeWhy} to change {title.toLowerCase()}.
        </p>
      )}
      <ErrorBox error={put.error} />
    </Section>
  );
}
