import { useState, type ReactNode } from 'react';
import { client } from '../api';
import type { Me } from '../types';
import { ErrorBox, useAction, useLoad } from '../ui';

/** What /login?sso_error= (and /profile?sso_error= after a link) means (apps/api-gateway/src/routes/sso.ts). */
export const SSO_ERRORS: Record<string, string> = {
  state: 'The single sign-on did not match a login started in this browser (or it took too long). Try again.',
  token: 'The identity provider’s answer could not be verified. Try again, or ask an admin to check the SSO settings.',
  denied: 'The identity provider did not sign you in.',
  email_unverified: 'Your identity provider does not vouch for your email address (email_verified), so svc cannot sign you in.',
  disabled: 'Your account is disabled.',
  email_taken: 'Your email address belongs to an account linked to another identity. Ask an admin.',
  not_configured: 'Single sign-on is not configured.',
  unavailable: 'The identity provider cannot be reached right now. Try again later, or sign in with a password.',
  link_required:
    'An account with your email address already exists. Sign in with its password, then link your identity provider account from your profile (Profile › Single sign-on).',
  no_account: 'Single sign-on creates no new accounts here: ask an admin for one.',
  domain_not_allowed: 'Your email address is not in a domain allowed to sign in here.',
  hd_mismatch: 'Your Google account is not in the Workspace domain allowed to sign in here.',
  tid_mismatch: 'Your Microsoft account is not in the tenant allowed to sign in here.',
  identity_taken: 'That identity provider account is already linked to another user.',
  already_linked: 'Your account is already linked to another account of this identity provider.',
  link_session: 'The link did not finish in the browser where you started it, signed in. Try again from your profile.',
};

export function Login({ onSignedIn, themeButton }: { onSignedIn: (me: Me) => void; themeButton: ReactNode }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const login = useAction(async () => onSignedIn(await client.post('/api/v1/auth/login', { body: { email, password } })));
  // Single sign-on: offered when an admin configured it; a refused SSO login comes back with ?sso_error=.
  const sso = useLoad(() => client.get('/api/v1/sso/status'), []);
  const ssoError = new URLSearchParams(window.location.search).get('sso_error');
  return (
    <main className="narrow">
      <div className="row">
        <h1>Sign in to svc</h1>
        <div className="spacer" />
        {themeButton}
      </div>
      {ssoError && (
        <p className="error" role="alert">
          {SSO_ERRORS[ssoError] ?? 'Single sign-on failed.'}
        </p>
      )}
      {sso.data?.oidc && sso.data.login_url && (
        <p>
          <a className="button primary" href={sso.data.login_url}>
            Sign in with {sso.data.display_name}
          </a>
        </p>
      )}
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          void login.run();
        }}
      >
        <label>
          Email
          <input type="email" autoComplete="username" value={email} onChange={(e) => setEmail(e.target.value)} required autoFocus />
        </label>
        <label>
          Password
          <input type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} required />
        </label>
        <button type="submit" className="primary" disabled={login.busy}>
          Sign in
        </button>
        <ErrorBox error={login.error} />
      </form>
    </main>
  );
}

/** The form behind 403 `password_change_required`, also used on the profile page. */
export function PasswordForm({ onDone, submitLabel = 'Change password' }: { onDone: () => void; submitLabel?: string }) {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [again, setAgain] = useState('');
  const [local, setLocal] = useState<string>();
  const change = useAction(async () => {
    await client.post('/api/v1/auth/password', { body: { current_password: current, new_password: next } });
    onDone();
  });
  return (
    <form
      className="stack"
      onSubmit={(e) => {
        e.preventDefault();
        if (next.length < 8) return setLocal('The new password needs at least 8 characters.');
        if (next !== again) return setLocal('The two new passwords differ.');
        setLocal(undefined);
        void change.run();
      }}
    >
      <label>
        Current password
        <input type="password" autoComplete="current-password" value={current} onChange={(e) => setCurrent(e.target.value)} required />
      </label>
      <label>
        New password
        <input type="password" autoComplete="new-password" value={next} onChange={(e) => setNext(e.target.value)} required minLength={8} />
      </label>
      <label>
        New password again
        <input type="password" autoComplete="new-password" value={again} onChange={(e) => setAgain(e.target.value)} required />
      </label>
      {local && (
        <p className="error" role="alert">
          {local}
        </p>
      )}
      <button type="submit" className="primary" disabled={change.busy}>
        {submitLabel}
      </button>
      <ErrorBox error={change.error} />
    </form>
  );
}

export function PasswordChange({ me, onDone, onSignOut }: { me: Me; onDone: () => void; onSignOut: () => void }) {
  return (
    <main className="narrow">
      <h1>Choose a new password</h1>
      <p>
        The password of <strong>{me.email}</strong> is temporary. Set your own before going on.
      </p>
      <PasswordForm onDone={onDone} submitLabel="Set new password" />
      <p>
        <button type="button" className="ghost" onClick={onSignOut}>
          Sign out
        </button>
      </p>
    </main>
  );
}
