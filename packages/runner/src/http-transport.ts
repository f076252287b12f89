// The runner protocol over HTTP, as `svc exec` speaks it inside a container.
// Transient failures (no connection, a reset, a 5xx, a 429) are retried for up
// to `retryForMs` with @svc/timing's backoff: full jitter, and a Retry-After
// the gateway sends as the earliest return, so that the hundreds of runners of
// a gateway that restarts come back spread out, not in step, and lose no log
// line and no completion; any other 4xx is an answer and is never retried.
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { reopenFileStream } from './artifacts.js';
import { backoffDelay, pause, retryAfterMs } from '@svc/timing/backoff';
import { RunnerHttpError, errorMessage } from './errors.js';
import type { Completion, LogLine, RunnerEvent, RunnerSpec, RunnerTransport } from './types.js';

export interface HttpTransportOptions {
  /** Base URL of the service, e.g. `http://127.0.0.1:8080` (a trailing slash is ignored). */
  server: string;
  taskRunId: string;
  /** The run token, sent as `Authorization: Bearer <token>`. */
  token: string;
  /** Default: the global fetch. */
  fetch?: typeof fetch;
  /** How long transient failures of one request are retried. Default 60_000 ms. */
  retryForMs?: number;
  /** Ceiling of the first backoff delay; doubles up to maxBackoffMs, the delay drawn below it. Default 200 ms. */
  initialBackoffMs?: number;
  /** Largest ceiling of a backoff delay. Default 5_000 ms. */
  maxBackoffMs?: number;
  /** Per-attempt time limit of requests other than the bundle and artifact bodies. Default 30_000 ms. */
  requestTimeoutMs?: number;
}

type RequestBody = NonNullable<RequestInit['body']>;

interface RequestSpec {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  /** Builds the body for each attempt (a stream cannot be sent twice). */
  body?: () => { body: RequestBody; headers: Record<string, string>; stream?: boolean };
  /** Per-attempt timeout; null for requests whose body size makes any fixed limit wrong. */
  timeoutMs: number | null;
}

/** Statuses worth another attempt: the gateway's own failures and unavailability, and a rate limit (429). */
const retried = (status: number) => status >= 500 || status === 429;

export function createHttpTransport(opts: HttpTransportOptions): RunnerTransport {
  const doFetch = opts.fetch ?? fetch;
  const base = `${opts.server.replace(/\/+$/, '')}/api/runner/v1/task-runs/${encodeURIComponent(opts.taskRunId)}`;
  const retryForMs = opts.retryForMs ?? 60_000;
  const initialBackoffMs = opts.initialBackoffMs ?? 200;
  const maxBackoffMs = opts.maxBackoffMs ?? 5_000;
  const requestTimeoutMs = opts.requestTimeoutMs ?? 30_000;

  async function request(r: RequestSpec): Promise<Response> {
    const url = base + r.path;
    const deadline = Date.now() + retryForMs;
    for (let attempt = 1; ; attempt++) {
      let failure: RunnerHttpError;
      let retryAfter: number | undefined;
      try {
        const built = r.body?.();
        const res = await doFetch(url, {
          method: r.method,
          headers: { authorization: `Bearer ${opts.token}`, ...built?.headers },
          body: built?.body,
          signal: r.timeoutMs === null ? undefined : AbortSignal.timeout(r.timeoutMs),
          ...(built?.stream ? { duplex: 'half' } : {}),
        });
        if (res.ok) return res;
        const text = await res.text().catch(() => '');
        failure = new RunnerHttpError(r.method, url, res.status, `${r.method} ${url}: HTTP ${res.status}${text ? ` ${text.slice(0, 300)}` : ''}`);
        if (!retried(res.status)) throw failure;
        retryAfter = retryAfterMs(res.headers.get('retry-after'));
      } catch (err) {
        if (err instanceof RunnerHttpError && err.status !== null && !retried(err.status)) throw err;
        failure = err instanceof RunnerHttpError ? err : new RunnerHttpError(r.method, url, null, `${r.method} ${url}: ${describeNetworkError(err)}`, { cause: err });
      }
      const delay = backoffDelay(attempt, { firstMs: initialBackoffMs, maxMs: maxBackoffMs }, retryAfter);
      if (Date.now() + delay > deadline) {
        throw new RunnerHttpError(failure.method, url, failure.status, `${failure.message} (gave up after ${attempt} attempts)`, { cause: failure });
      }
      await pause(delay);
    }
  }

  const json = (value: unknown) => () => ({ body: JSON.stringify(value), headers: { 'content-type': 'application/json' } });

  return {
    async getSpec() {
      const res = await request({ method: 'GET', path: '/spec', timeoutMs: requestTimeoutMs });
      return (await res.json()) as RunnerSpec;
    },
    async getBundle() {
      const res = await request({ method: 'GET', path: '/bundle', timeoutMs: null });
      if (res.status === 204 || res.headers.get('content-length') === '0' || !res.body) {
        await res.body?.cancel();
        return null;
      }
      return Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>);
    },
    async getFile(artifactId: string) {
      const res = await request({ method: 'GET', path: `/files/${encodeURIComponent(artifactId)}`, timeoutMs: null });
      if (!res.body) return Readable.from([]);
      return Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>);
    },
    async heartbeat() {
      const res = await request({ method: 'POST', path: '/heartbeat', body: json({}), timeoutMs: requestTimeoutMs });
      const body = (await res.json().catch(() => ({}))) as { cancel?: unknown };
      return { cancel: body?.cancel === true };
    },
    async postLogs(lines: LogLine[]) {
      const res = await request({ method: 'POST', path: '/logs', body: json({ lines }), timeoutMs: requestTimeoutMs });
      await res.body?.cancel();
    },
    async putArtifact(name: string, body: NodeJS.ReadableStream, size: number, o: { kind?: 'artifact' | 'output'; sha256?: string } = {}) {
      // A file stream is reopened for each retry; any other stream is read once into memory so that it can be resent.
      const reopen = reopenFileStream(body);
      const buffered = reopen ? null : await readAll(body);
      const reopened: fs.ReadStream[] = [];
      let used = false;
      try {
        const res = await request({
          method: 'PUT',
          path: `/artifacts/${encodeURIComponent(name)}${o.kind === 'output' ? '?kind=output' : ''}`,
          timeoutMs: null,
          body: () => {
            const headers: Record<string, string> = { 'content-type': 'application/octet-stream', 'content-length': String(buffered ? buffered.length : size) };
            if (o.sha256) headers['x-svc-sha256'] = o.sha256;
            if (buffered) return { body: buffered, headers };
            let stream = body as fs.ReadStream;
            if (used) reopened.push((stream = reopen!()));
            used = true;
            return { body: Readable.toWeb(stream), headers, stream: true };
          },
        });
        await res.body?.cancel();
      } finally {
        for (const s of reopened) s.destroy();
      }
    },
    async postEvent(e: RunnerEvent) {
      const res = await request({ method: 'POST', path: '/events', body: json(e), timeoutMs: requestTimeoutMs });
      await res.body?.cancel();
    },
    async complete(c: Completion) {
      const res = await request({ method: 'POST', path: '/complete', body: json(c), timeoutMs: requestTimeoutMs });
      await res.body?.cancel();
    },
  };
}

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer | string>) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

/** fetch hides the reason under `cause` (ECONNREFUSED, ECONNRESET…); show it. */
function describeNetworkError(err: unknown): string {
  const cause = err instanceof Error ? (err.cause as { code?: string; message?: string } | undefined) : undefined;
  return cause?.code ?? cause?.message ?? errorMessage(err);
}
