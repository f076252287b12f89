// The shell: who is signed in (login and the temporary-password screen come
// first), the navigation, the theme, which page a path shows, and the AI
// assistant's panel beside every page (opened from the header, kept open
// across pages and reloads).
import { lazy, Suspense, useCallback, useEffect, useState, type ReactNode } from 'react';
import { ApiError, client, onAuthProblem } from './api';
import { Link, match, navigate, useLocation } from './router';
import { SessionContext, roleAtLeast } from './session';
import type { Answer, Me, Role } from './types';
import { ErrorBox, Loading } from './ui';
import { Login, PasswordChange } from './pages/Login';
import { Dashboard } from './pages/Dashboard';
import { Executions } from './pages/Executions';
import { ExecutionPage } from './pages/Execution';
import { Flows } from './pages/Flows';
import { FlowPage } from './pages/Flow';
import { Profile } from './pages/Profile';
import { Alerts } from './pages/Alerts';
import { Admin } from './pages/admin/Admin';
import { Shortcuts } from './components/Shortcuts';
import { AssistantPanel } from './components/ai/AssistantPanel';

// The editor carries CodeMirror and the schema tooling: loaded only when opened.
const Editor = lazy(() => import('./pages/Editor'));

type Theme = 'light' | 'dark';

function useTheme(): [Theme, () => void] {
  const [theme, setTheme] = useState<Theme>(() => {
    const saved = localStorage.getItem('svc-theme');
    if (saved === 'light' || saved === 'dark') return saved;
    return window.matchMedia?.('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
  });
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    localStorage.setItem('svc-theme', theme);
  }, [theme]);
  return [theme, () => setTheme((t) => (t === 'dark' ? 'light' : 'dark'))];
}

interface Route {
  pattern: string;
  render: (p: Record<string, string>) => ReactNode;
  minRole?: Role;
}

const ROUTES: Route[] = [
  { pattern: '/', render: () => <Dashboard /> },
  { pattern: '/executions', render: () => <Executions /> },
  { pattern: '/executions/:id', render: (p) => <ExecutionPage id={p.id} /> },
  { pattern: '/flows', render: () => <Flows /> },
  { pattern: '/flows/:ns/:flow', render: (p) => <FlowPage ns={p.ns} flowId={p.flow} /> },
  { pattern: '/editor', render: () => <Editor /> },
  { pattern: '/editor/:ns', render: (p) => <Editor ns={p.ns} /> },
  { pattern: '/alerts', render: () => <Alerts /> },
  { pattern: '/profile', render: () => <Profile /> },
  // Settings read global things (secrets, git sources, providers): not for `none`, whose reads are only its bound namespaces' (docs/operating/roles.md).
  { pattern: '/admin', render: () => <Admin />, minRole: 'viewer' },
  { pattern: '/admin/:tab', render: (p) => <Admin tab={p.tab} />, minRole: 'viewer' },
];

const NAV: { to: string; label: string; minRole?: Role }[] = [
  { to: '/', label: 'Dashboard' },
  { to: '/executions', label: 'Executions' },
  { to: '/flows', label: 'Flows' },
  { to: '/editor', label: 'Editor' },
  { to: '/alerts', label: 'Alerts' },
  { to: '/admin', label: 'Settings', minRole: 'viewer' },
];

export function App() {
  const [me, setMe] = useState<Me | null | undefined>(undefined);
  const [mustChange, setMustChange] = useState(false);
  const [error, setError] = useState<unknown>();
  const [theme, toggleTheme] = useTheme();
  const [assistant, setAssistant] = useState(() => localStorage.getItem('svc-ai-open') === '1');
  useEffect(() => localStorage.setItem('svc-ai-open', assistant ? '1' : '0'), [assistant]);
  const loc = useLocation();

  const refresh = useCallback(() => {
    client.get('/api/v1/auth/me').then(
      (m) => {
        setMe(m);
        setMustChange(m.must_change_password);
        setError(undefined);
      },
      (e: unknown) => {
        if (e instanceof ApiError && e.status === 401) setMe(null);
        else setError(e);
      },
    );
  }, []);
  useEffect(refresh, [refresh]);
  useEffect(
    () =>
      onAuthProblem((e) => {
        if (e.status === 401) setMe(null);
        if (e.code === 'password_change_required') setMustChange(true);
      }),
    [],
  );

  const signOut = () => {
    // The SSO logout ends the session like /auth/logout and, for an SSO user, names the IdP's logout page to go to next.
    void client
      .post('/api/v1/sso/oidc/logout')
      .catch(() => client.post('/api/v1/auth/logout').then((): Answer<'oidcLogout'> => ({})))
      .catch((): Answer<'oidcLogout'> => ({}))
      .then((r) => {
        setMe(null);
        if (r.end_session_url) window.location.assign(r.end_session_url);
        else navigate('/');
      });
  };

  const themeButton = (
    <button type="button" className="ghost" onClick={toggleTheme} aria-label={`Switch to ${theme === 'dark' ? 'light' : 'dark'} theme`}>
      {theme === 'dark' ? '☀ Light' : '☾ Dark'}
    </button>
  );

  if (me === undefined)
    return error ? (
      <main className="narrow">
        <ErrorBox error={error} />
      </main>
    ) : (
      <main className="narrow">
        <Loading />
      </main>
    );
  if (me === null)
    return (
      <Login
        onSignedIn={(m) => {
          setMe(m);
          setMustChange(m.must_change_password);
        }}
        themeButton={themeButton}
      />
    );
  if (mustChange)
    return (
      <PasswordChange
        me={me}
        onDone={() => {
          setMustChange(false);
          refresh();
        }}
        onSignOut={signOut}
      />
    );

  let page: ReactNode = <NotFound />;
  for (const r of ROUTES) {
    const p = match(r.pattern, loc.pathname);
    if (!p) continue;
    page = r.minRole && !roleAtLeast(me.role, r.minRole) ? <p>This page needs the {r.minRole} role.</p> : r.render(p);
    break;
  }
  const current = (to: string) => (to === '/' ? loc.pathname === '/' : loc.pathname.startsWith(to));

  return (
    <SessionContext.Provider value={{ me, refresh, signOut }}>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <Link to="/" className="brand" aria-label="svc home">
          svc
        </Link>
        <nav aria-label="Main">
          {NAV.filter((n) => !n.minRole || roleAtLeast(me.role, n.minRole)).map((n) => (
            <Link key={n.to} to={n.to} aria-current={current(n.to) ? 'page' : undefined}>
              {n.label}
            </Link>
          ))}
        </nav>
        <div className="spacer" />
        <button
          type="button"
          className="ghost"
          aria-label="Keyboard shortcuts"
          title="Keyboard shortcuts (?)"
          aria-keyshortcuts="?"
          onClick={() => document.dispatchEvent(new KeyboardEvent('keydown', { key: '?' }))}
        >
          ?
        </button>
        <button
          type="button"
          id="ai-toggle"
          className={assistant ? 'ghost active' : 'ghost'}
          aria-expanded={assistant}
          aria-controls="ai-panel"
          onClick={() => setAssistant((a) => !a)}
        >
          <span aria-hidden="true">✦</span> Assistant
        </button>
        {themeButton}
        <Link to="/profile" className="who" aria-label={`Profile of ${me.email} (${me.role})`}>
          {me.name || me.email} <span className="badge">{me.role}</span>
        </Link>
        <button type="button" className="ghost" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1} className={assistant ? 'beside-ai' : undefined}>
        <Suspense fallback={<Loading what="the editor" />}>{page}</Suspense>
      </main>
      {assistant && (
        <AssistantPanel
          onClose={() => {
            setAssistant(false);
            document.getElementById('ai-toggle')?.focus();
          }}
        />
      )}
      <Shortcuts />
    </SessionContext.Provider>
  );
}

function NotFound() {
  return (
    <div>
      <h1>Not found</h1>
      <p>
        No page here. <Link to="/">Back to the dashboard</Link>
      </p>
    </div>
  );
}
