// What the assistant panel shows of a conversation, as one list of items: the
// user's messages, the assistant's text, each tool it called with what the
// tool answered, and the actions it proposed, each after the call that
// proposed it. Built the same way from a stored conversation (a resumed one)
// and from the events of a turn as they arrive, so both read alike.
import type { Conversation, ShownAction, TurnEvent } from './types';

export type Item =
  | { kind: 'user'; key: string; text: string }
  | { kind: 'assistant'; key: string; text: string; streaming: boolean }
  /** `ok` is known for a streamed call; a stored one has only the text its tool answered. */
  | { kind: 'tool'; key: string; callId: string; name: string; args: unknown; done: boolean; ok?: boolean; result?: unknown }
  | { kind: 'action'; key: string; action: ShownAction }
  | { kind: 'error'; key: string; code: string; message: string };

/** A tool's stored answer: parsed when it is JSON, else the text (a truncated one). */
function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The items of a stored conversation. */
export function itemsOf(c: Conversation): Item[] {
  const items: Item[] = [];
  const actions = new Map((c.actions ?? []).map((a) => [a.id, a]));
  const placed = new Set<string>();
  const tools = new Map<string, Extract<Item, { kind: 'tool' }>>();
  for (const m of c.messages ?? []) {
    if (m.role === 'user') items.push({ kind: 'user', key: m.id, text: m.content });
    else if (m.role === 'assistant') {
      if (m.content) items.push({ kind: 'assistant', key: m.id, text: m.content, streaming: false });
      for (const p of m.parts) {
        if (p.type !== 'tool_call') continue;
        const t: Extract<Item, { kind: 'tool' }> = { kind: 'tool', key: `${m.id}-${p.id}`, callId: p.id, name: p.name, args: parsed(p.arguments), done: false };
        tools.set(p.id, t);
        items.push(t);
      }
    } else {
      for (const p of m.parts) {
        if (p.type !== 'tool_result') continue;
        const result = parsed(p.content);
        const t = tools.get(p.tool_call_id);
        if (t) {
          t.done = true;
          t.result = result;
        }
        const actionId = result && typeof result === 'object' ? (result as { action_id?: unknown }).action_id : undefined;
        const a = typeof actionId === 'string' ? actions.get(actionId) : undefined;
        if (a && t) {
          items.splice(items.indexOf(t) + 1, 0, { kind: 'action', key: a.id, action: a });
          placed.add(a.id);
        }
      }
    }
  }
  for (const a of c.actions ?? []) if (!placed.has(a.id)) items.push({ kind: 'action', key: a.id, action: a });
  return items;
}

let n = 0;
const key = (what: string) => `${what}-live-${++n}`;

/** The items after one event of a turn; `items` is not changed. */
export function applyEvent(items: Item[], e: TurnEvent): Item[] {
  const done = (list: Item[]) => list.map((i) => (i.kind === 'assistant' && i.streaming ? { ...i, streaming: false } : i));
  switch (e.event) {
    case 'text': {
      const last = items[items.length - 1];
      if (last?.kind === 'assistant' && last.streaming) return [...items.slice(0, -1), { ...last, text: last.text + e.data.delta }];
      return [...items, { kind: 'assistant', key: key('assistant'), text: e.data.delta, streaming: true }];
    }
    case 'tool_call':
      return [...done(items), { kind: 'tool', key: key('tool'), callId: e.data.id, name: e.data.name, args: e.data.arguments, done: false }];
    case 'tool_result':
      return items.map((i) => (i.kind === 'tool' && i.callId === e.data.id ? { ...i, done: true, ok: e.data.ok, result: e.data.ok ? e.data.result : e.data.error } : i));
    case 'action_proposed':
      return [...done(items), { kind: 'action', key: e.data.id, action: { ...e.data, status: 'pending' } }];
    case 'error':
      return [...done(items), { kind: 'error', key: key('error'), code: e.data.code, message: e.data.message }];
    case 'end':
      return done(items);
    default: {
      // Every event named in TurnEvent is handled above (the build checks it); one the
      // service added since is skipped.
      const unknown: never = e;
      void unknown;
      return items;
    }
  }
}

/** The items with `action` replaced by its newer state. */
export function withAction(items: Item[], action: ShownAction): Item[] {
  return items.map((i) => (i.kind === 'action' && i.action.id === action.id ? { ...i, action } : i));
}

/** One line for a tool call's arguments: `key: value` pairs, long values cut. */
export function argsLine(args: unknown): string {
  if (!args || typeof args !== 'object') return '';
  return Object.entries(args as Record<string, unknown>)
    .map(([k, v]) => {
      const s = typeof v === 'string' ? v : JSON.stringify(v);
      return `${k}: ${s.length > 60 ? `${s.slice(0, 57)}…` : s}`;
    })
    .join(', ');
}
