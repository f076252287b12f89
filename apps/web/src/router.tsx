// A small history router: the UI has a dozen routes and needs nothing more
// than path matching, links and navigation, so no router library is loaded.
import { createContext, useContext, useEffect, useState, type AnchorHTMLAttributes, type ReactNode } from 'react';

// The default only serves code outside LocationProvider (tests of pure helpers).
const LocationContext = createContext<URL>(new URL('http://localhost/'));

/** Moves to `to` (a path with an optional query) without reloading. */
export function navigate(to: string, opts: { replace?: boolean } = {}): void {
  if (opts.replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  window.dispatchEvent(new PopStateEvent('popstate'));
}

export function LocationProvider({ children }: { children: ReactNode }) {
  const [loc, setLoc] = useState(() => new URL(window.location.href));
  useEffect(() => {
    const on = () => setLoc(new URL(window.location.href));
    window.addEventListener('popstate', on);
    return () => window.removeEventListener('popstate', on);
  }, []);
  return <LocationContext.Provider value={loc}>{children}</LocationContext.Provider>;
}

export function useLocation(): URL {
  return useContext(LocationContext);
}

/** The query parameter `name` of the current location, and a setter that replaces it in history. */
export function useQueryParam(name: string): [string, (v: string) => void] {
  const loc = useLocation();
  const value = loc.searchParams.get(name) ?? '';
  const set = (v: string) => {
    const u = new URL(window.location.href);
    if (v) u.searchParams.set(name, v);
    else u.searchParams.delete(name);
    navigate(`${u.pathname}${u.search}`, { replace: true });
  };
  return [value, set];
}

/**
 * Matches `path` against a pattern such as `/executions/:id`; a trailing `*`
 * param takes the rest. Returns the decoded params or null.
 */
export function match(pattern: string, path: string): Record<string, string> | null {
  const p = pattern.split('/').filter(Boolean);
  const s = path.split('/').filter(Boolean);
  const out: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    const part = p[i];
    if (part === '*') {
      out['*'] = s.slice(i).map(decodeURIComponent).join('/');
      return out;
    }
    if (i >= s.length) return null;
    if (part.startsWith(':')) out[part.slice(1)] = decodeURIComponent(s[i]);
    else if (part !== s[i]) return null;
  }
  return p.length === s.length ? out : null;
}

/** An <a> that navigates in the app; modified clicks open a tab as usual. */
export function Link({ to, children, ...rest }: { to: string; children: ReactNode } & AnchorHTMLAttributes<HTMLAnchorElement>) {
  return (
    <a
      href={to}
      {...rest}
      onClick={(e) => {
        rest.onClick?.(e);
        if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}
