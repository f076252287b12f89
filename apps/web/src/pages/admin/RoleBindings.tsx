// Settings › Role bindings (admin): who has a role on which
// namespace beyond their global role. A binding gives a user, or an IdP group
// (as the SSO groups claim names it), a role on a namespace and its
// children; a caller's role there is the highest of its global role and the
// bindings that cover it (docs/operating/roles.md). Every change is audited.
import { useState } from 'react';
import { client } from '../../api';
import { BINDING_ROLES, type Answer, type BindingRole, type RequestBody } from '../../types';
import { ActionForm, DataTable } from '../../components/DataTable';
import { Button, ErrorBox, Section, fmtTime, useAction, useLoad } from '../../ui';

type Binding = Answer<'listRoleBindings'>['items'][number];

export function RoleBindings() {
  const list = useLoad(() => client.get('/api/v1/role-bindings').then((r) => r.items), []);
  const [namespace, setNamespace] = useState('');
  const [kind, setKind] = useState<'user' | 'group'>('user');
  const [subject, setSubject] = useState('');
  const [role, setRole] = useState<BindingRole>('editor');
  const create = useAction(async () => {
    const body: RequestBody<'createRoleBinding'> = { namespace, role, ...(kind === 'user' ? { user: subject } : { group: subject }) };
    await client.post('/api/v1/role-bindings', { body });
    setSubject('');
    list.reload();
  });
  const remove = useAction(async (b: Binding) => {
    await client.delete('/api/v1/role-bindings/{bindingId}', { params: { path: { bindingId: b.id } } });
    list.reload();
  });
  const who = (b: Binding) => (b.group !== null ? `group ${b.group}` : (b.user_email ?? b.user_id ?? ''));
  return (
    <Section title="Role bindings">
      <p className="muted small">
        A binding gives a user or an IdP group a role on a namespace and its children (<code>team</code> covers <code>team.etl</code>). There, a caller has the highest of its
        global role and its bindings; an API token never more than its own role. Bindings only raise a role: the global role still applies everywhere.
      </p>
      <ErrorBox error={list.error} />
      <DataTable
        label="Role bindings"
        rows={list.data}
        error={list.error}
        loading="the role bindings"
        rowKey={(b) => b.id}
        empty="No bindings: every user has their global role everywhere."
        columns={[
          { header: 'Namespace', cell: (b) => b.namespace },
          { header: 'User or group', cell: who },
          { header: 'Role', cell: (b) => b.role },
          { header: 'Created by', cell: (b) => b.created_by },
          { header: 'Created', cell: (b) => fmtTime(b.created_at) },
        ]}
        actions={(b) => (
          <Button
            aria-label={`Delete the binding of ${who(b)} on ${b.namespace}`}
            disabled={remove.busy}
            onClick={() => confirm(`Remove the ${b.role} role of ${who(b)} on ${b.namespace}?`) && void remove.run(b)}
          >
            Delete
          </Button>
        )}
      />
      <ErrorBox error={remove.error} />
      <ActionForm label="Add a role binding" action={create} submit="Add binding">
        <label>
          Namespace <input value={namespace} onChange={(e) => setNamespace(e.target.value)} required placeholder="team" />
        </label>
        <label>
          For{' '}
          <select value={kind} onChange={(e) => setKind(e.target.value as 'user' | 'group')}>
            <option value="user">a user</option>
            <option value="group">an IdP group</option>
          </select>
        </label>
        <label>
          {kind === 'user' ? 'User email' : 'Group name'}{' '}
          <input value={subject} onChange={(e) => setSubject(e.target.value)} required placeholder={kind === 'user' ? 'ann@example.com' : 'data-team'} />
        </label>
        <label>
          Role{' '}
          <select value={role} onChange={(e) => setRole(e.target.value as BindingRole)}>
            {BINDING_ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </label>
      </ActionForm>
      <ErrorBox error={create.error} />
    </Section>
  );
}
