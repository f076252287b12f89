// Global keyboard shortcuts, as GitHub and Kestra users expect them: `/`
// focuses the page's search, `g` then a letter goes to a page, `?` shows the
// list. Keys typed into a field, the code editor or with a modifier are left
// alone.
import { useEffect, useRef, useState } from 'react';
import { navigate } from '../router';

/** `g` + key: where it goes. */
export const GO_TO: { key: string; to: string; label: string }[] = [
  { key: 'd', to: '/', label: 'Dashboard' },
  { key: 'e', to: '/executions', label: 'Executions' },
  { key: 'f', to: '/flows', label: 'Flows' },
  { key: 'c', to: '/editor', label: 'Editor (code)' },
  { key: 's', to: '/admin', label: 'Settings' },
  { key: 'p', to: '/profile', label: 'Profile' },
];

/** How long after `g` the second key still counts. */
const SEQUENCE_MS = 1500;

/** True when a key press belongs to what has the focus (a field, the editor, a select). */
export function typingInto(el: EventTarget | null): boolean {
  if (!(el instanceof HTMLElement)) return false;
  if (el.isContentEditable) return true;
  if (el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement) return true;
  if (el instanceof HTMLInputElement) return !['checkbox', 'radio', 'button', 'submit', 'reset', 'range', 'file'].includes(el.type);
  return false;
}

/** The page's search field: a search input in the page, else the first field of a search form; none gives undefined. */
function searchField(): HTMLInputElement | undefined {
  const main = document.getElementById('main');
  if (!main) return undefined;
  const field = main.querySelector<HTMLInputElement>('input[type="search"]:not([disabled])') ?? main.querySelector<HTMLInputElement>('[role="search"] input:not([disabled])');
  return field ?? undefined;
}

export function Shortcuts() {
  const [help, setHelp] = useState(false);
  const [hint, setHint] = useState<string>();
  const pendingG = useRef(0);
  const dialog = useRef<HTMLDivElement>(null);
  const opener = useRef<Element | null>(null);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.key === 'Escape' && help) {
        e.preventDefault();
        setHelp(false);
        return;
      }
      if (typingInto(e.target)) return;
      if (pendingG.current && Date.now() - pendingG.current < SEQUENCE_MS) {
        pendingG.current = 0;
        setHint(undefined);
        const go = GO_TO.find((g) => g.key === e.key.toLowerCase());
        if (go) {
          e.preventDefault();
          setHelp(false);
          navigate(go.to);
        }
        return;
      }
      if (e.key === 'g') {
        pendingG.current = Date.now();
        setHint('g …');
        setTimeout(() => setHint(undefined), SEQUENCE_MS);
        return;
      }
      if (e.key === '?') {
        e.preventDefault();
        opener.current = document.activeElement;
        setHelp((h) => !h);
        return;
      }
      if (e.key === '/') {
        const field = searchField();
        if (field) {
          e.preventDefault();
          field.focus();
          field.select();
        } else {
          // No search on this page: the flow list's search is the one to use.
          e.preventDefault();
          navigate('/flows');
          const wait = setInterval(() => {
            const f = searchField();
            if (f) {
              f.focus();
              clearInterval(wait);
            }
          }, 50);
          setTimeout(() => clearInterval(wait), 5000);
        }
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [help]);

  useEffect(() => {
    if (help) dialog.current?.focus();
    else if (opener.current instanceof HTMLElement) {
      opener.current.focus();
      opener.current = null;
    }
  }, [help]);

  return (
    <>
      {hint && (
        <div className="key-hint" role="status">
          <kbd>g</kbd> then a page key (<kbd>?</kbd> lists them)
        </div>
      )}
      {help && (
        <div className="dialog-backdrop" onClick={() => setHelp(false)}>
          <div className="dialog shortcuts" role="dialog" aria-modal="true" aria-labelledby="shortcuts-title" tabIndex={-1} ref={dialog} onClick={(e) => e.stopPropagation()}>
            <h2 id="shortcuts-title">Keyboard shortcuts</h2>
            <table aria-label="Keyboard shortcuts">
              <tbody>
                <tr>
                  <th scope="row">
                    <kbd>/</kbd>
                  </th>
                  <td>Focus the search of the page (the flow list's when the page has none)</td>
                </tr>
                {GO_TO.map((g) => (
                  <tr key={g.key}>
                    <th scope="row">
                      <kbd>g</kbd> <kbd>{g.key}</kbd>
                    </th>
                    <td>Go to {g.label}</td>
                  </tr>
                ))}
                <tr>
                  <th scope="row">
                    <kbd>?</kbd>
                  </th>
                  <td>Show or hide this list</td>
                </tr>
                <tr>
                  <th scope="row">
                    <kbd>Esc</kbd>
                  </th>
                  <td>Close this list</td>
                </tr>
                <tr>
                  <th scope="row">
                    <kbd>Ctrl</kbd> <kbd>S</kbd>
                  </th>
                  <td>Save, in the editor</td>
                </tr>
              </tbody>
            </table>
            <p className="muted small">Shortcuts do nothing while you type in a field or in the code editor.</p>
            <button type="button" onClick={() => setHelp(false)}>
              Close
            </button>
          </div>
        </div>
      )}
    </>
  );
}
