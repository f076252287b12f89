// The one way the UI talks to the service: same-origin fetches to /api/v1 with
// the session cookie, the live pages' event streams and the assistant's
// streamed answers included. Every failure becomes an ApiError carrying the
// envelope's code and message and the response's X-Request-Id, so any screen
// can show both. A 403 `password_change_required` is also announced to the
// app shell, which then shows the password-change screen whatever page asked.

import { ApiError, createApiClient, type SvcApi } from '@svc/api-spec/client';
import type { ErrorDetail, Upload } from './types';

/** Where the API lives, relative to the page's origin. */
export const API = '/api/v1';

export type { ErrorDetail };
/** A failed API call, as the envelope and headers told it (the shared client's). */
export { ApiError };

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

/** GETs started before React rendered (see `prefetch`), by URL, with when they started. */
const prefetched = new Map<string, { at: number; response: Promise<Response> }>();
/** A prefetched answer older than this is not used: the page may have changed meanwhile. */
const PREFETCH_FRESH_MS = 3000;

/**
 * Starts a GET now, for the client's first GET of the same URL to take over:
 * main.tsx prefetches what the opened page will ask for, so those requests
 * run while the script is still being parsed and the session checked. A
 * successful answer is handed over as it came, so the client reads it as if
 * it had fetched it itself.
 */
export function prefetch(path: string, query?: Query): void {
  const url = withQuery(`${API}${path}`, query);
  if (prefetched.has(url)) return;
  const response = fetch(url, { headers: { accept: 'application/json' }, credentials: 'same-origin' });
  response.catch(() => undefined); // handled by whoever takes it over
  prefetched.set(url, { at: performance.now(), response });
}

/** A prefetched GET of `url` (path and query), taken over once if still fresh. */
function takePrefetched(url: string): Promise<Response> | undefined {
  const early = prefetched.get(url);
  if (!early) return undefined;
  prefetched.delete(url);
  return performance.now() - early.at < PREFETCH_FRESH_MS ? early.response : undefined;
}

/**
 * The typed client of the API (@svc/api-spec/client) as the UI uses it: the
 * session cookie goes along (same origin; the service checks the Origin
 * header of cookie requests), a GET that main.tsx prefetched is taken over,
 * and the sign-in and password-change problems are announced to the shell.
 * A call takes its path, parameters, body and answer from the OpenAPI
 * document: `client.get('/api/v1/executions/{executionId}', { params: { path: { executionId } } })`.
 */
export const client: SvcApi = createApiClient({
  credentials: 'same-origin',
  headers: { accept: 'application/json' },
  fetch: async (request) => {
    const url = new URL(request.url, window.location.href);
    // Only a successful prefetched answer is handed over: a failed one (a 401
    // fetched on the sign-in page, just before signing in) is asked again.
    const early = request.method === 'GET' ? await takePrefetched(url.pathname + url.search)?.catch(() => undefined) : undefined;
    if (early?.ok) return early;
    try {
      return await fetch(request);
    } catch (err) {
      throw new ApiError(0, 'network', `The service could not be reached: ${(err as Error).message}`, '');
    }
  },
  onError: (err) => {
    if (err.status === 401 || err.code === 'password_change_required') for (const l of listeners) l(err);
  },
  // A live page keeps its stream as an EventSource would: reconnecting from
  // the last event id (the service answers with what followed it: no
  // repeat, no gap) for as long as the page is open, the pause growing to
  // 15 s while the service stays away.
  stream: { maxRetries: Infinity, firstPauseMs: 1000, maxPauseMs: 15_000 },
});

/**
 * Uploads a file for a flow input of type `file` (createUpload): the browser
 * sends the File as the raw body, read from disk as it goes; the answer's id is
 * the input's value when the flow is triggered. A file over the service's limit
 * is a 413 `too_large`, a bad name a 422: both thrown as ApiError.
 */
export function uploadFile(namespace: string, file: File, signal?: AbortSignal): Promise<Upload> {
  return client.post('/api/v1/namespaces/{namespace}/uploads', { params: { path: { namespace }, query: { name: file.name } }, body: file, ...(signal ? { signal } : {}) });
}
