// The typed HTTP client of the API, the one the web UI and the CLI use:
// openapi-fetch over the generated `paths`, so a call's path, parameters,
// body and answer are checked against the OpenAPI document at compile time
// and no call site names its own answer type. On top of openapi-fetch:
// - errors: a failure throws ApiError with the envelope's code, message and
//   details and the X-Request-Id header;
// - paging: `pages` and `all` follow `next_cursor` as every list answers it;
// - streams: `stream` reads a text/event-stream to its `end` event and
//   reconnects with Last-Event-ID after a dropped connection, with a growing
//   pause (the web UI never gives up, the CLI after about a minute);
//   `streamPost` reads the event stream a POST answers (the assistant's
//   turn), once; `ndjson` reads one JSON value per line. Bodies are read
//   with getReader(), which every browser has.
// The web UI (session cookie) and the CLI (bearer token) add only their
// credentials and their stream policy. Imported as `@svc/api-spec/client`,
// apart from the package root, so the server never loads it; browser-safe:
// no Node module is imported here or in what it imports.
import createClient, { type Client, type FetchResponse, type MaybeOptionalInit } from 'openapi-fetch';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { paths } from './openapi-types.generated.js';
import type { ErrorDetail, Page } from './api-types.js';
import { bodyChunks, reconnectPause, sleep, type StreamPolicy } from './stream-reading.js';

export type { ClientOptions } from 'openapi-fetch';
export type { EventSourceMessage } from 'eventsource-parser';
export type { components, operations, paths } from './openapi-types.generated.js';
export type * from './api-types.js';
export type { StreamPolicy } from './stream-reading.js';

/** The bare openapi-fetch client of the svc API: answers `{data, error, response}` instead of throwing. */
export type ApiClient = Client<paths>;

/** A failed API call, as the error envelope `{error: {code, message, details?}}` and the X-Request-Id header tell it. */
export class ApiError extends Error {
  constructor(
    /** HTTP status; 0 when the service could not be reached. */
    readonly status: number,
    /** The envelope's code (`execution_not_found`...), or `http_<status>` when the answer was no envelope. */
    readonly code: string,
    message: string,
    readonly requestId: string | undefined,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'patch';
type PathsWith<M extends HttpMethod> = { [P in keyof paths]: paths[P] extends { [K in M]: object } ? P : never }[keyof paths];
type RequiredKeysOf<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];
/** The init argument: optional when nothing in it is required (openapi-fetch's rule). */
type InitArg<I> = RequiredKeysOf<I> extends never ? [init?: I] : [init: I];
type Init<M extends HttpMethod, P extends PathsWith<M>> = NonNullable<MaybeOptionalInit<paths[P], M>>;
/** What a successful call gives: the answer's JSON, or what `parseAs` asked for. */
type Data<M extends HttpMethod, P extends PathsWith<M>, I> =
  NonNullable<Extract<FetchResponse<paths[P][M] & Record<string | number, unknown>, I, `${string}/${string}`>, { error?: never }>['data']> | undefined;
/** A typed call that resolves with the answer and throws ApiError on a failure. */
type Call<M extends HttpMethod> = <P extends PathsWith<M>, I extends Init<M, P>>(path: P, ...init: InitArg<I>) => Promise<Exclude<Data<M, P, I>, undefined>>;

/** The GET paths that answer a page `{items, next_cursor?}`. */
export type ListPath = {
  [P in PathsWith<'get'>]: Exclude<Data<'get', P, object>, undefined> extends { items: unknown[]; next_cursor?: string } ? P : never;
}[PathsWith<'get'>];
/** One item of the list at `P`. */
export type ListItem<P extends ListPath> = Exclude<Data<'get', P, object>, undefined> extends { items: (infer T)[] } ? T : never;

/** What a caller of `stream` or `streamPost` is told; the policy fields override the client's `stream` option. */
export interface StreamHandlers extends StreamPolicy {
  /** Called for each event; the stream's `end` event is not passed on. */
  onEvent(event: EventSourceMessage): void;
  /** Called with the stream's `end` event (the assistant's carries the turn's outcome), before the call resolves. */
  onEnd?(event: EventSourceMessage): void;
  /** Called before each reconnect after a dropped connection (attempt counts from 1). */
  onReconnect?(attempt: number, lastEventId: string | undefined, cause: unknown): void;
  /** Stops the stream: the call then resolves, without `onEnd`. */
  signal?: AbortSignal;
}

/** The svc API: typed calls that throw ApiError, paging and streams over one openapi-fetch client. */
export interface SvcApi {
  /** The openapi-fetch client underneath, for a caller that wants the response as it is. */
  readonly raw: ApiClient;
  get: Call<'get'>;
  post: Call<'post'>;
  put: Call<'put'>;
  patch: Call<'patch'>;
  delete: Call<'delete'>;
  /** Every page of a list, following `next_cursor`. */
  pages<P extends ListPath>(path: P, ...init: InitArg<Init<'get', P>>): AsyncGenerator<Page<ListItem<P>>>;
  /** Every item of a list, or the first `max` (pages of up to 200). */
  all<P extends ListPath>(path: P, init?: Init<'get', P>, max?: number): Promise<ListItem<P>[]>;
  /**
   * Follows a text/event-stream until its `end` event. A connection that
   * cannot be made or drops (or closes without `end`) is opened again, after
   * a pause that grows with each failure in a row, with the last received
   * event id in Last-Event-ID, so the server sends only what came after it;
   * an answer of the service that is an error (404, 401...) is thrown at
   * once as an ApiError, as retrying will not help.
   */
  stream<P extends PathsWith<'get'>>(path: P, init: Init<'get', P> | undefined, handlers: StreamHandlers): Promise<void>;
  /**
   * Sends a POST whose answer is a text/event-stream and reads it until its
   * `end` event. Sent once: a second POST would ask again (a second turn of
   * the assistant), so a stream cut off is thrown as `lostStream`; a refusal
   * before the stream opened is thrown as an ApiError.
   */
  streamPost<P extends PathsWith<'post'>>(path: P, init: Init<'post', P>, handlers: StreamHandlers): Promise<void>;
  /** The values of an `application/x-ndjson` answer, one per line, as they arrive. */
  ndjson<P extends PathsWith<'get'>>(path: P, init?: Init<'get', P> & { signal?: AbortSignal }): AsyncGenerator<unknown>;
}

export interface SvcClientOptions {
  /** The server's origin. Default `''`, the page's own; the paths carry `/api/v1`. */
  baseUrl?: string;
  /** Headers of every request (the CLI's `authorization: Bearer svc_...`, the web's CSRF header). */
  headers?: Record<string, string>;
  /** Replaces globalThis.fetch (the web's prefetch, the CLI's message for an unreachable server). */
  fetch?: (input: Request) => Promise<Response>;
  /** Sent with every request: the web's `same-origin`, so the session cookie goes along. */
  credentials?: RequestInit['credentials'];
  /** Called with every ApiError before it is thrown (the web's sign-in and password-change prompts). */
  onError?(err: ApiError): void;
  /** How every event stream of this client reconnects and gives up; each field defaults as in {@link StreamPolicy}. */
  stream?: StreamPolicy;
}

/**
 * `query` as the service reads it: arrays repeat the key, `undefined`,
 * `null` and `''` are left out.
 */
export function querystring(query: Record<string, unknown> | undefined): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v === undefined || v === null || v === '') continue;
    if (Array.isArray(v)) for (const item of v) q.append(k, String(item));
    else if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') q.set(k, String(v));
    else q.set(k, JSON.stringify(v));
  }
  return q.toString();
}

/** A body goes as JSON, except raw bytes (uploadFile), which go as they are. */
function serializeBody(body: unknown): NonNullable<RequestInit['body']> {
  if (body instanceof Blob || body instanceof ArrayBuffer || body instanceof Uint8Array) return body as NonNullable<RequestInit['body']>;
  return JSON.stringify(body);
}

/** The ApiError of a failed answer; `error` is openapi-fetch's parse of its body (the envelope, or text). */
export function toApiError(response: Response, error: unknown): ApiError {
  const requestId = response.headers.get('x-request-id') ?? undefined;
  // Whatever answered may not be the service (a proxy's error page, say), so every field is checked.
  const e = typeof error === 'object' && error !== null ? (error as { error?: { code?: unknown; message?: unknown; details?: unknown } }).error : undefined;
  if (e && typeof e.code === 'string') {
    const message = typeof e.message === 'string' ? e.message : response.statusText;
    return new ApiError(response.status, e.code, message, requestId, Array.isArray(e.details) ? (e.details as ErrorDetail[]) : []);
  }
  const text = typeof error === 'string' ? error.slice(0, 200) : '';
  return new ApiError(response.status, `http_${response.status}`, text || response.statusText || `HTTP ${response.status}`, requestId);
}

type AnyInit = { params?: { query?: Record<string, unknown> }; headers?: Record<string, string>; parseAs?: string; signal?: AbortSignal } & Record<string, unknown>;

/**
 * The svc API client.
 * @param options see {@link SvcClientOptions}; every field is optional.
 */
export function createApiClient(options: SvcClientOptions = {}): SvcApi {
  const raw = createClient<paths>({
    baseUrl: options.baseUrl ?? '',
    ...(options.headers ? { headers: options.headers } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
    querySerializer: (q) => querystring(q),
    bodySerializer: serializeBody,
  });
  const fail = (err: ApiError): never => {
    options.onError?.(err);
    throw err;
  };
  // The typed signatures are the interface's; inside, one untyped path for every method.
  const send = async (method: HttpMethod, path: string, init: AnyInit = {}): Promise<unknown> => {
    const binary = (init as { body?: unknown }).body instanceof Blob || (init as { body?: unknown }).body instanceof ArrayBuffer;
    const headers = binary ? { 'content-type': 'application/octet-stream', ...init.headers } : init.headers;
    const r = await (raw.request as (m: string, p: string, i: AnyInit) => Promise<{ data?: unknown; error?: unknown; response: Response }>)(method, path, {
      ...init,
      ...(headers ? { headers } : {}),
    });
    if (!r.response.ok) return fail(toApiError(r.response, r.error));
    return r.data;
  };
  const call =
    <M extends HttpMethod>(method: M): Call<M> =>
    (path, ...init) =>
      send(method, path, init[0] as AnyInit | undefined) as never;

  async function* pages(path: string, init: AnyInit = {}): AsyncGenerator<Page<unknown>> {
    let cursor: string | undefined;
    do {
      const page = (await send('get', path, { ...init, params: { ...init.params, query: { ...init.params?.query, cursor } } })) as Page<unknown>;
      yield page;
      cursor = page.next_cursor;
    } while (cursor);
  }

  async function all(path: string, init: AnyInit = {}, max = Infinity): Promise<unknown[]> {
    const out: unknown[] = [];
    let cursor: string | undefined;
    do {
      const limit = Math.min(200, max - out.length);
      const page = (await send('get', path, { ...init, params: { ...init.params, query: { ...init.params?.query, limit, cursor } } })) as Page<unknown>;
      out.push(...page.items);
      cursor = page.next_cursor;
    } while (cursor && out.length < max);
    return out;
  }

  /**
   * One event stream, GET (reconnected) or POST (sent once). Modes:
   * - connecting: the request is sent; an error answer is thrown as an
   *   ApiError, a connection that cannot be made is a failure;
   * - reading: events go to the handlers, the ids kept; `end` resolves;
   * - failed: the connection dropped or closed without `end`. A GET pauses
   *   and connects again from the last event id, and gives up after
   *   `maxRetries` failures without an event in between; a POST gives up.
   * An aborted signal resolves in any mode; a throwing handler is thrown.
   */
  async function follow(method: 'get' | 'post', path: string, init: AnyInit, h: StreamHandlers): Promise<void> {
    const client = options.stream ?? {};
    const maxRetries = h.maxRetries ?? client.maxRetries ?? 30;
    const pauses = { firstPauseMs: h.firstPauseMs ?? client.firstPauseMs, maxPauseMs: h.maxPauseMs ?? client.maxPauseMs };
    const lostStream = h.lostStream ?? client.lostStream;
    const lost = (cause: unknown): Error => (lostStream ? lostStream(path, cause) : new Error(`lost the event stream ${path}: ${(cause as Error).message}`, { cause }));
    let lastEventId: string | undefined;
    let failures = 0;
    for (;;) {
      let ended = false;
      let received = false;
      let opened = false;
      // An error of the caller's handler, kept apart from the connection's errors, which are retried.
      let handlerFailed: { error: unknown } | undefined;
      try {
        const body = (await send(method, path, {
          ...init,
          parseAs: 'stream',
          headers: { ...init.headers, accept: 'text/event-stream', ...(lastEventId !== undefined ? { 'last-event-id': lastEventId } : {}) },
          ...(h.signal ? { signal: h.signal } : {}),
        })) as ReadableStream<Uint8Array> | null;
        opened = true;
        const parser = createParser({
          onEvent(ev) {
            if (ended || handlerFailed) return;
            received = true;
            if (ev.id !== undefined) lastEventId = ev.id;
            try {
              if (ev.event === 'end') {
                ended = true;
                h.onEnd?.(ev);
              } else h.onEvent(ev);
            } catch (error) {
              handlerFailed = { error };
            }
          },
        });
        const decoder = new TextDecoder();
        if (body) {
          for await (const chunk of bodyChunks(body)) {
            parser.feed(decoder.decode(chunk, { stream: true }));
            if (ended || handlerFailed) break;
          }
        }
        if (handlerFailed) throw handlerFailed.error;
        if (ended) return;
        throw new Error('the stream closed before its end event');
      } catch (err) {
        if (handlerFailed) throw handlerFailed.error;
        if (h.signal?.aborted) return;
        // An answer of the service (status 0 is an adapter's word for "not reached") will be the same next time.
        if (err instanceof ApiError && err.status !== 0) throw err;
        if (method === 'post') {
          if (!opened) throw err;
          throw lost(err);
        }
        failures = received ? 1 : failures + 1;
        if (failures > maxRetries) throw lost(err);
        h.onReconnect?.(failures, lastEventId, err);
        await sleep(reconnectPause(failures, pauses), h.signal);
        if (h.signal?.aborted) return;
      }
    }
  }

  async function* ndjson(path: string, init: AnyInit = {}): AsyncGenerator<unknown> {
    const body = (await send('get', path, { ...init, parseAs: 'stream', headers: { ...init.headers, accept: 'application/x-ndjson' } })) as ReadableStream<Uint8Array> | null;
    if (!body) return;
    const decoder = new TextDecoder();
    let rest = '';
    for await (const chunk of bodyChunks(body)) {
      rest += decoder.decode(chunk, { stream: true });
      const lines = rest.split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) if (line.trim() !== '') yield JSON.parse(line);
    }
    if (rest.trim() !== '') yield JSON.parse(rest);
  }

  return {
    raw,
    get: call('get'),
    post: call('post'),
    put: call('put'),
    patch: call('patch'),
    delete: call('delete'),
    pages: pages as SvcApi['pages'],
    all: all as SvcApi['all'],
    stream: ((path: string, init: AnyInit | undefined, h: StreamHandlers) => follow('get', path, init ?? {}, h)) as SvcApi['stream'],
    streamPost: ((path: string, init: AnyInit, h: StreamHandlers) => follow('post', path, init, h)) as SvcApi['streamPost'],
    ndjson: ndjson as SvcApi['ndjson'],
  };
}
