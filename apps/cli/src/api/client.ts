// The HTTP client of the CLI: bearer token, JSON bodies, the spec's error
// envelope turned into ApiError (code, message, request ID, details), cursor
// pagination, and event streams that resume with Last-Event-ID.
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { CliError } from '../io.js';
import type { ErrorDetail, ErrorEnvelope, Page } from './types.js';

/** An error response of the API: the envelope `{error: {code, message, details?}}` and the X-Request-Id header. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | undefined,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export type Query = Record<string, string | number | boolean | string[] | undefined>;

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export interface StreamOptions {
  query?: Query;
  /** Called for each event; the stream's `end` event is not passed on. */
  onEvent(event: EventSourceMessage): void;
  /** Called before each reconnect after a dropped connection (attempt counts from 1). */
  onReconnect?(attempt: number, lastEventId: string | undefined, cause: unknown): void;
  signal?: AbortSignal;
  /** Reconnects in a row without receiving an event before giving up (default 30, about a minute). */
  maxRetries?: number;
}

function buildQuery(query: Query | undefined): string {
  if (!query) return '';
  const sp = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined) continue;
    if (Array.isArray(v)) for (const x of v) sp.append(k, x);
    else sp.set(k, String(v));
  }
  const s = sp.toString();
  return s ? `?${s}` : '';
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

export class ApiClient {
  constructor(
    readonly baseUrl: string,
    private readonly token: string | undefined,
    private readonly userAgent = 'svc-cli',
  ) {}

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return { 'user-agent': this.userAgent, ...(this.token ? { authorization: `Bearer ${this.token}` } : {}), ...extra };
  }

  /** Sends a request and returns the raw response; a non-2xx status throws ApiError. */
  async raw(method: string, path: string, opts: RequestOptions = {}): Promise<Response> {
    const url = `${this.baseUrl}${path}${buildQuery(opts.query)}`;
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers: this.headers({ ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}), ...opts.headers }),
        ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
        ...(opts.signal ? { signal: opts.signal } : {}),
      });
    } catch (err) {
      if ((err as Error).name === 'AbortError') throw err;
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new CliError(`cannot reach ${this.baseUrl}: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
    }
    if (res.ok) return res;
    throw await toApiError(res);
  }

  /** A JSON request; 204 and empty bodies give undefined. */
  async request<T = unknown>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const res = await this.raw(method, path, opts);
    const text = await res.text();
    return (text ? JSON.parse(text) : undefined) as T;
  }

  get<T = unknown>(path: string, query?: Query): Promise<T> {
    return this.request<T>('GET', path, query ? { query } : {});
  }

  /** Every item of a cursor-paginated list, or the first `max` of them. */
  async list<T = unknown>(path: string, query: Query = {}, max = Infinity): Promise<T[]> {
    const out: T[] = [];
    let cursor: string | undefined;
    do {
      const limit = Math.min(200, max - out.length);
      const page = await this.get<Page<T>>(path, { ...query, limit, ...(cursor ? { cursor } : {}) });
      out.push(...page.items);
      cursor = page.next_cursor;
    } while (cursor && out.length < max);
    return out;
  }

  /**
   * Follows an event stream until its `end` event. A connection that drops
   * (or closes without `end`) is opened again with the last received event id
   * in Last-Event-ID, so the server sends only what came after it.
   */
  async stream(path: string, opts: StreamOptions): Promise<void> {
    let lastEventId: string | undefined;
    let failures = 0;
    const maxRetries = opts.maxRetries ?? 30;
    for (;;) {
      let ended = false;
      let received = false;
      try {
        const res = await this.raw('GET', path, {
          ...(opts.query ? { query: opts.query } : {}),
          headers: { accept: 'text/event-stream', ...(lastEventId !== undefined ? { 'last-event-id': lastEventId } : {}) },
          ...(opts.signal ? { signal: opts.signal } : {}),
        });
        const parser = createParser({
          onEvent(ev) {
            received = true;
            if (ev.id !== undefined) lastEventId = ev.id;
            if (ev.event === 'end') {
              ended = true;
              return;
            }
            opts.onEvent(ev);
          },
        });
        const decoder = new TextDecoder();
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          parser.feed(decoder.decode(chunk, { stream: true }));
          if (ended) break;
        }
        if (ended) {
          await res.body?.cancel().catch(() => undefined);
          return;
        }
        throw new Error('the stream closed before its end event');
      } catch (err) {
        if (opts.signal?.aborted) return;
        // A refusal (404, 401...) will not get better by retrying.
        if (err instanceof ApiError) throw err;
        failures = received ? 1 : failures + 1;
        if (failures > maxRetries) throw err instanceof CliError ? err : new CliError(`lost the event stream ${path}: ${(err as Error).message}`);
        opts.onReconnect?.(failures, lastEventId, err);
        await sleep(Math.min(2000, 100 * 2 ** Math.min(failures, 5)), opts.signal);
      }
    }
  }
}

async function toApiError(res: Response): Promise<ApiError> {
  const requestId = res.headers.get('x-request-id') ?? undefined;
  const text = await res.text().catch(() => '');
  try {
    // Partial: whatever answered may not be the service (a proxy's error page in JSON, say).
    const body = JSON.parse(text) as Partial<ErrorEnvelope> | null;
    if (body?.error?.code) return new ApiError(res.status, body.error.code, body.error.message ?? res.statusText, requestId, body.error.details ?? []);
  } catch {
    // not the envelope: fall through
  }
  return new ApiError(res.status, `http_${res.status}`, text.slice(0, 200) || res.statusText, requestId);
}
