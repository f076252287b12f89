// Settings › Users (admin): each account's role, disable and enable, a new
// temporary password, and new users (their temporary password shown once).
import { useState } from 'react';
import { client } from '../../api';
import { ROLES, type Role, type User } from '../../types';
import { ActionForm, DataTable } from '../../components/DataTable';
import { Button, ErrorBox, Section, useAction, useLoad } from '../../ui';

export function Users() {
  const list = useLoad(() => client.all('/api/v1/users'), []);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [temp, setTemp] = useState<string>();
  const create = useAction(async () => {
    const r = await client.post('/api/v1/users', { body: { email, role } });
    setTemp(r.temporary_password);
    setEmail('');
    list.reload();
  });
  const reset = useAction(async (u: User) => {
    const r = await client.post('/api/v1/users/{userId}/reset-password', { params: { path: { userId: u.id } } });
    setTemp(r.temporary_password);
    list.reload();
  });
  const update = useAction(async (id: string, patch: Partial<User>) => {
    // Shown at once (a controlled select would otherwise snap back until the list reloads); the reload corrects it either way.
    if (list.data) list.setData(list.data.map((u) => (u.id === id ? { ...u, ...patch } : u)));
    try {
      await client.patch('/api/v1/users/{userId}', { params: { path: { userId: id } }, body: patch });
    } finally {
      list.reload();
    }
  });
  return (
    <Section title="Users">
      <ErrorBox error={list.error ?? update.error ?? reset.error} />
      <DataTable
        rows={list.data}
        error={list.error}
        rowKey={(u) => u.id}
        columns={[
          { header: 'Email', cell: (u) => u.email },
          { header: 'Name', cell: (u) => u.name },
          {
            header: 'Role',
            cell: (u) => (
              <select aria-label={`Role of ${u.email}`} value={u.role} onChange={(e) => void update.run(u.id, { role: e.target.value as Role })}>
                {ROLES.map((r) => (
                  <option key={r}>{r}</option>
                ))}
              </select>
            ),
          },
          { header: 'Status', cell: (u) => (u.disabled ? 'disabled' : u.must_change_password ? 'temporary password' : 'active') },
        ]}
        actions={(u) => (
          <>
            <Button aria-label={`${u.disabled ? 'Enable' : 'Disable'} ${u.email}`} onClick={() => void update.run(u.id, { disabled: !u.disabled })}>
              {u.disabled ? 'Enable' : 'Disable'}
            </Button>
            <Button aria-label={`Reset the password of ${u.email}`} onClick={() => confirm(`Give ${u.email} a new temporary password?`) && void reset.run(u)}>
              Reset password
            </Button>
          </>
        )}
      />
      <ActionForm label="Create a user" action={create} submit="Create user">
        <label>
          Email <input type="email" value={email} onChange={(e) => setEmail(e.target.value)} required />
        </label>
        <label>
          Role
          <select value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {ROLES.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        </label>
      </ActionForm>
      {temp && (
        <p className="notice" role="status">
          Temporary password (shown once): <code className="secret">{temp}</code>
        </p>
      )}
      <ErrorBox error={create.error} />
    </Section>
  );
}
