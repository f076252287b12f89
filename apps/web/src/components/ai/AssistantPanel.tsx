// The AI assistant beside every page: the app shell's "Assistant" button opens
// it, and it stays open (with its conversation) while the user moves between
// pages. A turn's answer is shown as it streams; each tool the assistant
// called is listed with what it answered; an action it proposed (save a file,
// trigger, cancel, rerun, restart) waits for the user's Confirm or Refuse,
// with the file's diff for a save. Earlier conversations are listed and
// resumed from the service (the last one opened is reopened after a reload).
import { useEffect, useRef, useState } from 'react';
import { client } from '../../api';
import { Link } from '../../router';
import { useSession } from '../../session';
import { Button, ErrorBox, Loading, fmtTime, useLoad } from '../../ui';
import { DiffView } from '../DiffView';
import { applyEvent, argsLine, itemsOf, withAction, type Item } from './conversation';
import { sendMessage } from './stream';
import type { ConversationSummary, ShownAction } from './types';

const LAST = 'svc-ai-conversation';

export function AssistantPanel({ onClose }: { onClose: () => void }) {
  const { me } = useSession();
  const status = useLoad(() => client.get('/api/v1/ai/status'), []);
  const [list, setList] = useState<ConversationSummary[]>([]);
  const [current, setCurrent] = useState<string>(() => localStorage.getItem(LAST) ?? '');
  const [items, setItems] = useState<Item[]>([]);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<unknown>();
  const [draft, setDraft] = useState('');
  const [busy, setBusy] = useState(false);
  const abort = useRef<AbortController | null>(null);
  const thread = useRef<HTMLDivElement>(null);
  const input = useRef<HTMLTextAreaElement>(null);
  /** A conversation send() just created: its (empty) stored state is not read over the turn streaming into it. */
  const created = useRef('');

  // Only the latest read of the list is shown: an earlier one answering last would bring back an older list.
  const listRead = useRef(0);
  const refreshList = () => {
    const n = ++listRead.current;
    return client.all('/api/v1/ai/conversations', {}, 400).then(
      (l) => n === listRead.current && setList(l),
      (e: unknown) => n === listRead.current && setError(e),
    );
  };
  useEffect(() => {
    void refreshList();
    input.current?.focus();
    return () => abort.current?.abort();
  }, []);

  // The chosen conversation, read whole; one that is gone is forgotten.
  useEffect(() => {
    if (current) localStorage.setItem(LAST, current);
    else localStorage.removeItem(LAST);
    if (!current) {
      setItems([]);
      return;
    }
    if (current === created.current) return;
    let live = true;
    setLoading(true);
    client.get('/api/v1/ai/conversations/{conversationId}', { params: { path: { conversationId: current } } }).then(
      (c) => {
        if (!live) return;
        setItems(itemsOf(c));
        setLoading(false);
      },
      (e: unknown) => {
        if (!live) return;
        setLoading(false);
        if ((e as { status?: number }).status === 404) setCurrent('');
        else setError(e);
      },
    );
    return () => {
      live = false;
    };
  }, [current]);

  // New text keeps the end of the thread in view.
  useEffect(() => {
    const t = thread.current;
    if (t) t.scrollTop = t.scrollHeight;
  }, [items]);

  const send = async () => {
    const content = draft.trim();
    if (!content || busy) return;
    setBusy(true);
    setError(undefined);
    const ctl = new AbortController();
    abort.current = ctl;
    try {
      let id = current;
      if (!id) {
        id = (await client.post('/api/v1/ai/conversations', { body: {} })).id;
        created.current = id;
        setCurrent(id);
      }
      setDraft('');
      setItems((xs) => [...xs, { kind: 'user', key: `user-${Date.now()}`, text: content }]);
      // The title (the first question) is set once the stream opens: the list shows it from the first event.
      let listed = false;
      await sendMessage(
        id,
        content,
        (e) => {
          if (!listed) {
            listed = true;
            void refreshList();
          }
          setItems((xs) => applyEvent(xs, e));
        },
        ctl.signal,
      );
      setItems((xs) => applyEvent(xs, { event: 'end', data: { message_id: null, stop_reason: ctl.signal.aborted ? 'stopped' : 'end_turn' } }));
      void refreshList();
    } catch (e) {
      setError(e);
    } finally {
      abort.current = null;
      setBusy(false);
    }
  };

  const remove = async () => {
    if (!current || !confirm('Delete this conversation?')) return;
    try {
      await client.delete('/api/v1/ai/conversations/{conversationId}', { params: { path: { conversationId: current } } });
      setCurrent('');
      void refreshList();
    } catch (e) {
      setError(e);
    }
  };

  const enabled = status.data?.enabled;
  return (
    <aside id="ai-panel" className="ai-panel" aria-label="AI assistant">
      <header className="ai-head">
        <h2>AI assistant</h2>
        {status.data?.model && (
          <span className="badge" title={`Provider ${status.data.provider ?? ''}`}>
            {status.data.model}
          </span>
        )}
        <div className="spacer" />
        <Button className="ghost" onClick={onClose} aria-label="Close the assistant">
          ✕
        </Button>
      </header>
      {status.error ? (
        <ErrorBox error={status.error} />
      ) : !status.data ? (
        <Loading what="the assistant" />
      ) : !enabled ? (
        <p className="muted ai-off" role="note">
          The assistant is off: no AI provider is configured. {me.role === 'admin' ? <Link to="/admin">An admin sets one in Settings.</Link> : 'An admin sets one in Settings.'}
        </p>
      ) : null}
      <div className="row ai-convs">
        <label className="grow">
          <span className="sr-only">Conversation</span>
          <select aria-label="Conversation" value={current} onChange={(e) => setCurrent(e.target.value)} disabled={busy}>
            <option value="">New conversation</option>
            {list.map((c) => (
              <option key={c.id} value={c.id}>
                {c.title || '(untitled)'} · {fmtTime(c.updated_at ?? c.created_at)}
              </option>
            ))}
            {current && !list.some((c) => c.id === current) && <option value={current}>This conversation</option>}
          </select>
        </label>
        <Button onClick={() => setCurrent('')} disabled={busy || !current}>
          New
        </Button>
        <Button onClick={() => void remove()} disabled={busy || !current} aria-label="Delete this conversation">
          Delete
        </Button>
      </div>
      <div className="ai-thread" ref={thread} role="log" aria-label="Conversation" aria-live="polite" aria-busy={busy}>
        {loading && <Loading what="the conversation" />}
        {!loading && !items.length && (
          <p className="muted">Ask about your flows and executions: why one failed, what a flow does, or to change one. Changes wait for your confirmation.</p>
        )}
        {items.map((i) => (
          <ItemView key={i.key} item={i} conversationId={current} onAction={(a) => setItems((xs) => withAction(xs, a))} />
        ))}
      </div>
      <ErrorBox error={error} />
      <form
        className="ai-compose"
        onSubmit={(e) => {
          e.preventDefault();
          void send();
        }}
      >
        <label className="sr-only" htmlFor="ai-message">
          Message
        </label>
        <textarea
          id="ai-message"
          ref={input}
          rows={3}
          value={draft}
          placeholder={enabled === false ? 'No AI provider is configured' : 'Ask the assistant… (Enter sends, Shift+Enter for a new line)'}
          disabled={enabled === false}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              void send();
            }
          }}
        />
        <div className="row">
          {busy ? (
            <Button onClick={() => abort.current?.abort()}>Stop</Button>
          ) : (
            <button type="submit" className="primary" disabled={!draft.trim() || enabled === false}>
              Send
            </button>
          )}
          {busy && (
            <span className="muted small" role="status">
              Answering…
            </span>
          )}
        </div>
      </form>
    </aside>
  );
}

function ItemView({ item, conversationId, onAction }: { item: Item; conversationId: string; onAction: (a: ShownAction) => void }) {
  switch (item.kind) {
    case 'user':
      return (
        <div className="ai-msg ai-user" data-kind="user">
          <span className="ai-who">You</span>
          <p>{item.text}</p>
        </div>
      );
    case 'assistant':
      return (
        <div className="ai-msg ai-assistant" data-kind="assistant" aria-busy={item.streaming}>
          <span className="ai-who">Assistant</span>
          <p>
            {item.text}
            {item.streaming && <span className="ai-cursor" aria-hidden="true" />}
          </p>
        </div>
      );
    case 'tool':
      return (
        <details className="ai-tool" data-kind="tool">
          <summary>
            <span className="ai-tool-state" aria-hidden="true">
              {!item.done ? '…' : item.ok === false ? '✗' : '✓'}
            </span>{' '}
            Called <code>{item.name}</code> <span className="muted small">{argsLine(item.args)}</span>
            {item.ok === false && <span className="sr-only"> (failed)</span>}
          </summary>
          {item.done ? (
            <pre className="json" tabIndex={0} aria-label={`What ${item.name} answered`}>
              {typeof item.result === 'string' ? item.result : JSON.stringify(item.result, null, 2)}
            </pre>
          ) : (
            <p className="muted small">Running…</p>
          )}
        </details>
      );
    case 'action':
      return <ActionView action={item.action} conversationId={conversationId} onChange={onAction} />;
    case 'error':
      return (
        <div className="error" role="alert" data-kind="error">
          <strong>The assistant stopped: {item.message}</strong>
          <div className="muted small">{item.code}</div>
        </div>
      );
  }
}

/** A text argument of a tool (`path`, `namespace`), or `fallback` when it is missing. */
const textArg = (v: unknown, fallback: string): string => (typeof v === 'string' ? v : fallback);

const STATUS_TEXT: Record<ShownAction['status'], string> = {
  pending: 'Waiting for your decision',
  confirmed: 'Confirmed, running',
  succeeded: 'Done',
  failed: 'Failed',
  rejected: 'Refused',
};

/** A proposed change: what it does (the diff of a save), and Confirm or Refuse while pending; then its outcome. */
function ActionView({ action, conversationId, onChange }: { action: ShownAction; conversationId: string; onChange: (a: ShownAction) => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const at = { params: { path: { conversationId, actionId: action.id } } };
  const decide = async (how: 'confirm' | 'reject') => {
    setBusy(true);
    setError(undefined);
    try {
      if (how === 'confirm') {
        const r = await client.post('/api/v1/ai/conversations/{conversationId}/actions/{actionId}/confirm', at);
        onChange({ ...action, status: r.status, result: r.result });
      } else {
        await client.post('/api/v1/ai/conversations/{conversationId}/actions/{actionId}/reject', at);
        onChange({ ...action, status: 'rejected' });
      }
    } catch (e) {
      setError(e);
      // The service stores why it failed (or that it was decided elsewhere): read it back.
      const c = await client.get('/api/v1/ai/conversations/{conversationId}', { params: { path: { conversationId } } }).catch(() => undefined);
      const now = c?.actions?.find((a) => a.id === action.id);
      if (now) onChange(now);
    } finally {
      setBusy(false);
    }
  };
  const args = action.arguments;
  return (
    <section className={`ai-action ai-action-${action.status}`} aria-label={`Proposed action: ${action.summary}`} data-kind="action">
      <header className="row wrap">
        <strong>{action.summary}</strong>
        <span className="badge">{action.tool}</span>
        <span className="badge ai-action-status" role="status">
          {STATUS_TEXT[action.status]}
        </span>
      </header>
      {action.diff !== undefined ? (
        <DiffView diff={action.diff} leftTitle={`${textArg(args.path, 'file')} now`} rightTitle="proposed" />
      ) : (
        Object.keys(args).length > 0 && <pre className="json small">{JSON.stringify(args, null, 2)}</pre>
      )}
      {action.status === 'pending' && (
        <div className="row">
          <Button className="primary" disabled={busy} onClick={() => void decide('confirm')}>
            Confirm
          </Button>
          <Button disabled={busy} onClick={() => void decide('reject')}>
            Refuse
          </Button>
        </div>
      )}
      {action.status === 'succeeded' && <ActionOutcome action={action} />}
      {action.status === 'failed' && action.error && (
        <p className="error" role="note">
          {action.error}
        </p>
      )}
      <ErrorBox error={error} />
    </section>
  );
}

/** Where a done action's result lives: the execution it started or changed, the file it saved. */
function ActionOutcome({ action }: { action: ShownAction }) {
  const r = (action.result ?? {}) as { id?: unknown; version?: unknown };
  if (action.tool === 'save_flow') {
    const ns = textArg(action.arguments.namespace, '');
    const file = textArg(action.arguments.path, '');
    return (
      <p>
        Saved{typeof r.version === 'number' ? ` as version ${r.version}` : ''}:{' '}
        <Link to={`/editor/${encodeURIComponent(ns)}?file=${encodeURIComponent(file)}`}>open {file} in the editor</Link>
      </p>
    );
  }
  if (typeof r.id === 'string') {
    return (
      <p>
        Execution <Link to={`/executions/${encodeURIComponent(r.id)}`}>{r.id}</Link>
      </p>
    );
  }
  return <p className="muted">Done.</p>;
}
