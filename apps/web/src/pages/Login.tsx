import { useState, type ReactNode } from 'react';
import { api } from '../api';
import type { Me } from '../types';
import { ErrorBox, useAction } from '../ui';

export function Login({ onSignedIn, themeButton }: { onSignedIn: (me: Me) => void; themeButton: ReactNode }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const login = useAction(async () => onSignedIn(await api<Me>('POST', '/auth/login', { email, password })));
  return (
    <main className="narrow">
      <div className="row">
        <h1>Sign in to svc</h1>
        <div className="spacer" />
        {themeButton}
      </div>
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
    await api('POST', '/auth/password', { current_password: current, new_password: next });
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
