// The own account: name, password, other sessions, the IdP identity linked
// to it (Link my SSO identity: an SSO login whose callback links to this
// signed-in user, docs/operating/sso.md), and API tokens (created with a role
// and an expiry; the secret is shown once with a copy button).
import { useState } from 'react';
import { client } from '../api';
import { highestRole, roleAtLeast, useSession } from '../session';
import { ROLES, type Role } from '../types';
import { Button, CopyButton, ErrorBox, Loading, Section, fmtTime, useAction, useLoad } from '../ui';
import { PasswordForm, SSO_ERRORS } from './Login';

export function Profile() {
  const { me, refresh } = useSession();
  const [name, setName] = useState(me.name);
  const save = useAction(async () => {
    await client.patch('/api/v1/auth/me', { body: { name } });
    refresh();
  });
  const others = useAction(() => client.post('/api/v1/auth/sessions/revoke-others'));
  const [revoked, setRevoked] = useState<number>();
  const [pwDone, setPwDone] = useState(false);
  return (
    <div className="page">
      <h1>Profile</h1>
      <Section title="Account">
        <p>
          {me.email} · role <strong>{me.role}</strong>
        </p>
        <form
          className="row"
          onSubmit={(e) => {
            e.preventDefault();
            void save.run();
          }}
        >
          <label>
            Name <input value={name} onChange={(e) => setName(e.target.value)} />
          </label>
          <button type="submit" disabled={save.busy}>
            Save name
          </button>
        </form>
        <ErrorBox error={save.error} />
      </Section>
      <Section title="Password">
        {pwDone ? <p role="status">Password changed. Your other sessions were signed out.</p> : <PasswordForm onDone={() => setPwDone(true)} />}
        <p>
          <Button onClick={() => void others.run().then((r) => r && setRevoked(r.revoked))}>Sign out my other sessions</Button>{' '}
          {revoked !== undefined && <span role="status">{revoked} session(s) signed out.</span>}
        </p>
        <ErrorBox error={others.error} />
      </Section>
      <SsoLink />
      <Tokens />
    </div>
  );
}

/** Profile › Single sign-on: the linked identities, and the button that links one (shown while SSO is offered). */
function SsoLink() {
  const link = useLoad(() => client.get('/api/v1/sso/oidc/link'), []);
  const start = useAction(async () => {
    const r = await client.post('/api/v1/sso/oidc/link');
    window.location.assign(r.authorization_url);
  });
  const q = new URLSearchParams(window.location.search);
  const linked = q.get('sso_linked') === '1';
  const error = q.get('sso_error');
  const l = link.data;
  if (!l || (!l.offered && !l.identities.length && !linked && !error)) return link.error ? <ErrorBox error={link.error} /> : null;
  return (
    <Section title="Single sign-on">
      {linked && <p role="status">Your identity provider account is linked: you can now sign in with it.</p>}
      {error && (
        <p className="error" role="alert">
          The link was refused: {SSO_ERRORS[error] ?? error}
        </p>
      )}
      {l.identities.length ? (
        <ul data-testid="sso-identities">
          {l.identities.map((i) => (
            <li key={i.issuer}>
              Linked to <code>{i.issuer}</code> since {fmtTime(i.linked_at)}
              {i.last_login_at && <span className="muted small"> · last SSO login {fmtTime(i.last_login_at)}</span>}
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted small">
          No identity provider account is linked to yours. Linking signs you in at the identity provider once; that account then signs in as you, whatever its email.
        </p>
      )}
      {l.offered && !l.identities.length && (
        <p>
          <Button onClick={() => void start.run()} disabled={start.busy}>
            Link my SSO identity
          </Button>
        </p>
      )}
      <ErrorBox error={start.error} />
    </Section>
  );
}

function Tokens() {
  const { me } = useSession();
  const tokens = useLoad(() => client.all('/api/v1/tokens'), []);
  const [name, setName] = useState('');
  // Up to the highest role a role binding gives: a `none` user's token is for its bound namespaces.
  const [role, setRole] = useState<Role>(highestRole(me));
  const [days, setDays] = useState('90');
  const [secret, setSecret] = useState<string>();
  const create = useAction(async () => {
    const t = await client.post('/api/v1/tokens', { body: { name, role, ...(days ? { expires_in_days: Number(days) } : {}) } });
    setSecret(t.secret);
    setName('');
    tokens.reload();
  });
  const revoke = useAction(async (id: string) => {
    await client.delete('/api/v1/tokens/{tokenId}', { params: { path: { tokenId: id } } });
    tokens.reload();
  });
  return (
    <Section title="API tokens">
      <form
        className="row wrap"
        onSubmit={(e) => {
          e.preventDefault();
          void create.run();
        }}
      >
        <label>
          Token name <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} />
        </label>
        <label>
          Role
          <select value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {ROLES.filter((r) => roleAtLeast(highestRole(me), r)).map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        </label>
        <label>
          Expires in days
          <input type="number" min={1} max={365} value={days} onChange={(e) => setDays(e.target.value)} placeholder="never" />
        </label>
        <button type="submit" className="primary" disabled={create.busy}>
          Create token
        </button>
      </form>
      <ErrorBox error={create.error} />
      {secret && (
        <div className="notice" role="status">
          <p>
            <strong>Copy this token now: it is not shown again.</strong>
          </p>
          <code className="secret" data-testid="token-secret">
            {secret}
          </code>{' '}
          <CopyButton text={secret} label="Copy token" /> <Button onClick={() => setSecret(undefined)}>Done</Button>
        </div>
      )}
      {tokens.data ? (
        <table>
          <thead>
            <tr>
              <th>Name</th>
              <th>Role</th>
              <th>Created</th>
              <th>Expires</th>
              <th>Last used</th>
              <th>Status</th>
              <th>
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {tokens.data.map((t) => (
              <tr key={t.id}>
                <td>{t.name}</td>
                <td>{t.role}</td>
                <td>{fmtTime(t.created_at)}</td>
                <td>{t.expires_at ? fmtTime(t.expires_at) : 'never'}</td>
                <td>{fmtTime(t.last_used_at)}</td>
                <td>
                  {t.revoked_at ? (
                    <span className="badge">revoked {fmtTime(t.revoked_at)}</span>
                  ) : t.active === false ? (
                    <span className="badge">expired</span>
                  ) : (
                    <span className="badge state-success">active</span>
                  )}
                </td>
                <td>
                  {!t.revoked_at && (
                    <Button
                      aria-label={`Revoke token ${t.name}`}
                      onClick={() => confirm(`Revoke token ${t.name}? Scripts using it stop working at once.`) && void revoke.run(t.id)}
                    >
                      Revoke
                    </Button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <Loading what="tokens" />
      )}
      <ErrorBox error={tokens.error ?? revoke.error} />
    </Section>
  );
}
