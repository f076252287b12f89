// The one way the UI talks to the service: same-origin fetches to /api/v1 with
// the session cookie. Every failure becomes an ApiError carrying the envelope's
// code and message and the response's X-Request-Id, so any screen can show
// both. A 403 `password_change_required` is also announced to the app shell,
// which then shows the password-change screen whatever page asked.

import type { ErrorDetail, ErrorEnvelope, Page } from './types';

/** Where the API lives, relative to the page's origin. */
export const API = '/api/v1';

export type { ErrorDetail };

/** A failed API call, as the envelope and headers told it. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

type Listener = (err: ApiError) => void;
const listeners = new Set<Listener>();

/** Called with every ApiError whose code needs the shell's attention (401, password change). */
export function onAuthProblem(fn: Listener): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

export type Query = Record<string, string | number | boolean | string[] | undefined | null>;

/** `path` with `query` appended; arrays repeat the key, empty values are left out. */
export function withQuery(path: string, query?: Query): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v === undefined || v === null || v === '') continue;
    if (Array.isArray(v)) for (const item of v) q.append(k, item);
    else q.set(k, String(v));
  }
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

async function toError(res: Response): Promise<ApiError> {
  const requestId = res.headers.get('x-request-id') ?? '';
  let code = `http_${res.status}`;
  let message = res.statusText || `HTTP ${res.status}`;
  let details: ErrorDetail[] = [];
  try {
    const body = (await res.json()) as Partial<ErrorEnvelope>;
    if (body.error) {
      code = body.error.code ?? code;
      message = body.error.message ?? message;
      details = body.error.details ?? [];
    }
  } catch {
    // Not an envelope (a proxy's page, say): keep the status text.
  }
  return new ApiError(res.status, code, message, requestId, details);
}

/** GETs started before React rendered (see `prefetch`), by URL, with when they started. */
const prefetched = new Map<string, { at: number; result: Promise<unknown> }>();
/** A prefetched answer older than this is not used: the page may have changed meanwhile. */
const PREFETCH_FRESH_MS = 3000;

/**
 * Starts a GET now, for the first `api('GET', ...)` of the same URL to take
 * over: main.tsx prefetches what the opened page will ask for, so those
 * requests run while the script is still being parsed and the session checked.
 */
export function prefetch(path: string, query?: Query): void {
  const url = withQuery(`${API}${path}`, query);
  if (prefetched.has(url)) return;
  const result = request('GET', path, undefined, query);
  result.catch(() => undefined); // handled by whoever takes it over
  prefetched.set(url, { at: performance.now(), result });
}

/**
 * Calls `method path` under /api/v1 and returns the parsed JSON (undefined for
 * an empty body). `body` is sent as JSON unless it is a Blob or ArrayBuffer,
 * which go as application/octet-stream.
 */
export function api<T = unknown>(method: string, path: string, body?: unknown, query?: Query): Promise<T> {
  if (method === 'GET') {
    const url = withQuery(`${API}${path}`, query);
    const early = prefetched.get(url);
    if (early) {
      prefetched.delete(url);
      if (performance.now() - early.at < PREFETCH_FRESH_MS) return early.result as Promise<T>;
    }
  }
  return request<T>(method, path, body, query);
}

async function request<T>(method: string, path: string, body?: unknown, query?: Query): Promise<T> {
  const binary = body instanceof Blob || body instanceof ArrayBuffer;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = binary ? 'application/octet-stream' : 'application/json';
  let res: Response;
  try {
    res = await fetch(withQuery(`${API}${path}`, query), {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined ? undefined : binary ? (body as BodyInit) : JSON.stringify(body),
    });
  } catch (err) {
    throw new ApiError(0, 'network', `The service could not be reached: ${(err as Error).message}`, '');
  }
  if (!res.ok) {
    const err = await toError(res);
    if (err.status === 401 || err.code === 'password_change_required') for (const l of listeners) l(err);
    throw err;
  }
  const text = await res.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

export type { Page } from './types';

/** Every page of a list, for the small lists (namespaces, tokens) a screen shows whole. */
export async function listAll<T>(path: string, query?: Query, maxPages = 20): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < maxPages; i++) {
    const page = await api<Page<T>>('GET', path, undefined, { ...query, limit: 200, cursor });
    out.push(...page.items);
    if (!page.next_cursor) break;
    cursor = page.next_cursor;
  }
  return out;
}

export interface StreamHandlers {
  /** One event of the stream: its name and parsed data. */
  onEvent(name: string, data: unknown): void;
  /** The stream sent `end` (the execution ended): it is closed and will not reconnect. */
  onEnd?(): void;
  /** The connection dropped; EventSource reconnects by itself with Last-Event-ID. */
  onError?(): void;
}

/**
 * Opens an SSE stream under /api/v1. EventSource resends the last event id on
 * reconnect, which the service answers with what followed it (no repeat, no
 * gap). Returns a function that closes it.
 */
export function openStream(path: string, names: string[], h: StreamHandlers): () => void {
  const es = new EventSource(`${API}${path}`, { withCredentials: true });
  for (const name of names) {
    es.addEventListener(name, (ev) => h.onEvent(name, JSON.parse((ev as MessageEvent<string>).data)));
  }
  es.addEventListener('end', () => {
    es.close();
    h.onEnd?.();
  });
  es.onerror = () => h.onError?.();
  return () => es.close();
}
