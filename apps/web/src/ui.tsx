// Shared pieces of every screen: data loading, the error box (message and
// request ID), state badges, buttons that say why they are disabled, and
// formatting of times and durations.
import { useCallback, useEffect, useRef, useState, type ButtonHTMLAttributes, type KeyboardEvent, type ReactNode } from 'react';
import { ApiError } from './api';

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
  setData: (d: T) => void;
}

/**
 * Runs `load` when `deps` change (and every `refreshMs` when given), keeping
 * the last good data while a reload runs so screens do not flicker.
 */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[], refreshMs?: number): Loaded<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<unknown>();
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    let live = true;
    setLoading(true);
    loadRef.current().then(
      (d) => {
        if (!live) return;
        setData(d);
        setError(undefined);
        setLoading(false);
      },
      (e: unknown) => {
        if (!live) return;
        setError(e);
        setLoading(false);
      },
    );
    return () => {
      live = false;
    };
    // Deliberately keyed on `deps` only: `load` is a new closure every render.
  }, [...deps, tick]);
  useEffect(() => {
    if (!refreshMs) return;
    const t = setInterval(() => setTick((x) => x + 1), refreshMs);
    return () => clearInterval(t);
  }, [refreshMs]);
  const reload = useCallback(() => setTick((x) => x + 1), []);
  return { data, error, loading, reload, setData };
}

/** Runs an action, holding its error for an ErrorBox and a busy flag for its button. */
export function useAction<A extends unknown[], R>(fn: (...args: A) => Promise<R>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const run = async (...args: A): Promise<R | undefined> => {
    setBusy(true);
    setError(undefined);
    try {
      return await fn(...args);
    } catch (e) {
      setError(e);
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { run, busy, error, clear: () => setError(undefined) };
}

/** An error as the user sees it: the message, the field problems, and the request ID to quote. */
export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null;
  const e = error instanceof ApiError ? error : null;
  return (
    <div className="error" role="alert">
      <strong>{e ? e.message : String((error as Error)?.message ?? error)}</strong>
      {e && e.details.length > 0 && (
        <ul>
          {e.details.map((d, i) => (
            <li key={i}>
              <code>{d.field}</code>: {d.message}
            </li>
          ))}
        </ul>
      )}
      {e && (
        <div className="muted small">
          {e.code} · HTTP {e.status}
          {e.requestId && (
            <>
              {' '}
              · request ID <code data-testid="request-id">{e.requestId}</code>
            </>
          )}
        </div>
      )}
    </div>
  );
}

export function StateBadge({ state }: { state: string }) {
  return <span className={`badge state-${state.toLowerCase()}`}>{state}</span>;
}

/** A button; when `disabledReason` is set it is disabled and says why (tooltip and screen readers). */
export function Button({ disabledReason, children, ...rest }: ButtonHTMLAttributes<HTMLButtonElement> & { disabledReason?: string | null }) {
  return (
    <button type="button" {...rest} disabled={rest.disabled || !!disabledReason} title={disabledReason ?? rest.title} aria-description={disabledReason ?? undefined}>
      {children}
    </button>
  );
}

export function Loading({ what }: { what?: string }) {
  return (
    <p className="muted" role="status">
      Loading{what ? ` ${what}` : ''}…
    </p>
  );
}

export function Section({ title, children, actions }: { title: string; children: ReactNode; actions?: ReactNode }) {
  return (
    <section className="card" aria-label={title}>
      <header className="card-head">
        <h2>{title}</h2>
        {actions}
      </header>
      {children}
    </section>
  );
}

export function fmtDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(s < 10 ? 2 : 1)} s`;
  // Whole seconds first, so 599.6 s reads 10m 0s, not 9m 60s.
  const whole = Math.round(s);
  const m = Math.floor(whole / 60);
  if (m < 60) return `${m}m ${whole % 60}s`;
  return `${Math.floor(m / 60)}h ${m % 60}m`;
}

export function fmtTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return d.toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'medium' });
}

/** A JSON value shown readably. */
export function Json({ value }: { value: unknown }) {
  return <pre className="json">{JSON.stringify(value, null, 2)}</pre>;
}

/** A key/value table of a flat object; empty says so. */
export function KeyValues({ value, empty = 'None' }: { value: Record<string, unknown> | null | undefined; empty?: string }) {
  const entries = Object.entries(value ?? {});
  if (!entries.length) return <p className="muted">{empty}</p>;
  return (
    <table className="kv">
      <tbody>
        {entries.map(([k, v]) => (
          <tr key={k}>
            <th scope="row">{k}</th>
            <td>{typeof v === 'string' ? v : <code>{JSON.stringify(v)}</code>}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Copies `text` to the clipboard, with a fallback for pages that are not a secure context. */
export async function copyText(text: string): Promise<void> {
  if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
  const ta = document.createElement('textarea');
  ta.value = text;
  document.body.appendChild(ta);
  ta.select();
  document.execCommand('copy');
  ta.remove();
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [done, setDone] = useState(false);
  return (
    <Button
      aria-label={label}
      onClick={() => {
        void copyText(text).then(() => {
          setDone(true);
          setTimeout(() => setDone(false), 1500);
        });
      }}
    >
      {done ? 'Copied' : label}
    </Button>
  );
}

/**
 * Arrow-key movement through a list of controls (a tree, a file list): Up and
 * Down move the focus to the previous or next `selector` inside the element
 * that has the handler, Home and End to the first and last.
 */
export function arrowFocus(selector: string) {
  return (e: KeyboardEvent<HTMLElement>) => {
    if (!['ArrowDown', 'ArrowUp', 'Home', 'End'].includes(e.key) || e.altKey || e.ctrlKey || e.metaKey) return;
    const items = [...e.currentTarget.querySelectorAll<HTMLElement>(selector)];
    const at = items.indexOf(document.activeElement as HTMLElement);
    if (at < 0) return;
    const next = e.key === 'Home' ? 0 : e.key === 'End' ? items.length - 1 : Math.min(items.length - 1, Math.max(0, at + (e.key === 'ArrowDown' ? 1 : -1)));
    e.preventDefault();
    items[next]?.focus();
  };
}

/**
 * Arrow keys in a group where moving also selects (the WAI-ARIA tabs and radio
 * group patterns): the next or previous of `items` (wrapping) is selected and
 * its `[role=…]` control, among the handler's siblings, focused. Tabs move with
 * Left and Right, radios with Up and Down too.
 */
export function arrowSelect<T>(items: readonly T[], current: T, select: (t: T) => void, role: 'tab' | 'radio') {
  const [forward, back] =
    role === 'radio'
      ? [
          ['ArrowRight', 'ArrowDown'],
          ['ArrowLeft', 'ArrowUp'],
        ]
      : [['ArrowRight'], ['ArrowLeft']];
  return (e: KeyboardEvent<HTMLElement>) => {
    const step = forward.includes(e.key) ? 1 : back.includes(e.key) ? -1 : 0;
    if (!step) return;
    e.preventDefault();
    const next = items[(items.indexOf(current) + step + items.length) % items.length];
    select(next);
    e.currentTarget.parentElement?.querySelectorAll<HTMLElement>(`[role=${role}]`)[items.indexOf(next)]?.focus();
  };
}
