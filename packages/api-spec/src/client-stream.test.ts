// The event streams of the typed client, as the web UI and the CLI use them:
// events cut at any point, reconnects with Last-Event-ID and a growing
// pause (without end for the web UI), errors of the service thrown at once,
// a POST's streamed answer read once, and bodies read the way a browser
// without async-iterable streams can. Most answers come from a scripted
// fetch, so each case is exact; one goes over real HTTP with the socket cut.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError, createApiClient, type EventSourceMessage, type SvcClientOptions } from './client.js';

const LOGS = '/api/v1/executions/{executionId}/logs/stream';
const logsOf = { params: { path: { executionId: 'ex-1' } } };
const MESSAGES = '/api/v1/ai/conversations/{conversationId}/messages';

/** A text/event-stream answer giving `pieces`, then ending, or failing as a dropped connection does. Its body cannot be async-iterated, as in Safari. */
function sse(pieces: string[], end: 'close' | 'drop' = 'close'): Response {
  const enc = new TextEncoder();
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (i < pieces.length) c.enqueue(enc.encode(pieces[i++]));
      else if (end === 'close') c.close();
      else c.error(new TypeError('network error'));
    },
  });
  Object.defineProperty(body, Symbol.asyncIterator, { value: undefined });
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}

const refused = (status: number, code: string) =>
  new Response(JSON.stringify({ error: { code, message: `refused: ${code}` } }), { status, headers: { 'content-type': 'application/json', 'x-request-id': 'req-9' } });

interface Seen {
  method: string;
  url: string;
  lastEventId: string | null;
  accept: string | null;
  body: string;
}

/** A client whose fetch answers the i-th request with `script[i]` (a Response, or an error thrown as a failed fetch throws). */
function scripted(script: (Response | Error | (() => Response | Error))[], options: SvcClientOptions = {}) {
  const seen: Seen[] = [];
  const api = createApiClient({
    baseUrl: 'http://svc.test',
    ...options,
    fetch: async (req) => {
      seen.push({ method: req.method, url: req.url, lastEventId: req.headers.get('last-event-id'), accept: req.headers.get('accept'), body: await req.text() });
      const next = script.shift();
      if (next === undefined) throw new Error('no answer left in the script');
      const a = typeof next === 'function' ? next() : next;
      if (a instanceof Error) throw a;
      return a;
    },
  });
  return { api, seen };
}

const named = (events: EventSourceMessage[]) => events.map((e) => [e.event, e.id, e.data]);

test('events come whole however the text is cut, comments skipped, data lines joined, CR LF read as LF; `end` goes to onEnd', async () => {
  const text = ': keep-alive\n\nid: 1\nevent: line\ndata: {"n":1}\n\nid: 2\r\nevent: line\r\ndata: {"a":\r\ndata: 2}\r\n\r\nevent: end\ndata: {}\n\n';
  for (const size of [1, 3, 7, text.length]) {
    const pieces: string[] = [];
    for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
    const { api, seen } = scripted([sse(pieces)]);
    const events: EventSourceMessage[] = [];
    const ends: EventSourceMessage[] = [];
    await api.stream(LOGS, logsOf, { onEvent: (e) => events.push(e), onEnd: (e) => ends.push(e) });
    assert.deepEqual(
      named(events),
      [
        ['line', '1', '{"n":1}'],
        ['line', '2', '{"a":\n2}'],
      ],
      `pieces of ${size}`,
    );
    assert.deepEqual(named(ends), [['end', undefined, '{}']]);
    assert.deepEqual(
      seen.map((s) => [s.method, s.url, s.accept, s.lastEventId]),
      [['GET', 'http://svc.test/api/v1/executions/ex-1/logs/stream', 'text/event-stream', null]],
    );
  }
});

test('with unlimited retries (the web UI), a dropped or unreachable stream is opened again from the last event id, with attempts counted until an event arrives', async () => {
  const down = Array.from({ length: 40 }, (_, i) =>
    // A failed fetch as the browser throws it, and as the web UI's adapter says it (status 0: not reached).
    i % 2 ? new TypeError('Failed to fetch') : new ApiError(0, 'network', 'The service could not be reached', undefined),
  );
  const { api, seen } = scripted(
    [
      sse(['id: 1\nevent: line\ndata: {"n":1}\n\n'], 'drop'),
      ...down,
      sse(['id: 2\nevent: line\ndata: {"n":2}\n\n'], 'close'),
      sse(['id: 3\nevent: line\ndata: {"n":3}\n\nevent: end\ndata: {}\n\n']),
    ],
    { stream: { maxRetries: Infinity, firstPauseMs: 1, maxPauseMs: 4 } },
  );
  const events: EventSourceMessage[] = [];
  const attempts: number[] = [];
  await api.stream(LOGS, logsOf, { onEvent: (e) => events.push(e), onReconnect: (n, last) => void attempts.push(n, Number(last)) });
  assert.deepEqual(
    events.map((e) => e.data),
    ['{"n":1}', '{"n":2}', '{"n":3}'],
  );
  // 41 failures in a row (more than the default 30) before an event; the stream closed without `end` counts from 1 again.
  // Each reconnect: its attempt and the last event id it resumes from.
  assert.deepEqual(attempts, [...Array.from({ length: 41 }, (_, i) => [i + 1, 1]).flat(), 1, 2]);
  assert.deepEqual(
    seen.map((s) => s.lastEventId),
    [null, ...Array.from({ length: 41 }, () => '1'), '2'],
  );
});

test('a stream gives up after maxRetries failures without an event, with lostStream', async () => {
  const { api, seen } = scripted([new TypeError('Failed to fetch'), new TypeError('Failed to fetch'), new TypeError('Failed to fetch'), sse([])]);
  const lost = new Error('lost it');
  await assert.rejects(
    api.stream(LOGS, logsOf, {
      onEvent: () => undefined,
      maxRetries: 2,
      firstPauseMs: 1,
      lostStream: (path, cause) => (assert.equal(path, LOGS), assert.match(String(cause), /Failed to fetch/), lost),
    }),
    (err) => err === lost,
  );
  assert.equal(seen.length, 3);
});

test('an error answer of the service is thrown at once as ApiError, not retried', async () => {
  const { api, seen } = scripted([refused(404, 'execution_not_found')]);
  let reconnects = 0;
  await assert.rejects(
    api.stream(LOGS, logsOf, { onEvent: () => undefined, onReconnect: () => reconnects++, maxRetries: Infinity }),
    (err) => err instanceof ApiError && err.status === 404 && err.code === 'execution_not_found' && err.requestId === 'req-9',
  );
  assert.equal(seen.length, 1);
  assert.equal(reconnects, 0);
});

test('aborting resolves the stream, while reading or in the pause before a reconnect, without onEnd', async () => {
  const stop = new AbortController();
  let ends = 0;
  // Reading: the body never ends on its own.
  const api = createApiClient({
    baseUrl: 'http://svc.test',
    fetch: (req) =>
      Promise.resolve(
        new Response(
          new ReadableStream<Uint8Array>({
            start(c) {
              c.enqueue(new TextEncoder().encode('id: 1\nevent: line\ndata: {}\n\n'));
              req.signal.addEventListener('abort', () => c.error(req.signal.reason));
            },
          }),
          { status: 200 },
        ),
      ),
  });
  await api.stream(LOGS, logsOf, { onEvent: () => stop.abort(), onEnd: () => ends++, signal: stop.signal });
  // In the pause: a long one, cut short.
  const pausing = new AbortController();
  const { api: down } = scripted([new TypeError('Failed to fetch')]);
  const started = Date.now();
  await down.stream(LOGS, logsOf, { onEvent: () => undefined, onReconnect: () => setTimeout(() => pausing.abort(), 10), firstPauseMs: 60_000, signal: pausing.signal });
  assert.ok(Date.now() - started < 5000, 'the pause was cut short');
  assert.equal(ends, 0);
});

test("a handler's own error is thrown, not taken for a dropped connection", async () => {
  const { api, seen } = scripted([sse(['event: line\ndata: not json\n\n'])]);
  await assert.rejects(api.stream(LOGS, logsOf, { onEvent: (e) => JSON.parse(e.data) as unknown, maxRetries: Infinity }), SyntaxError);
  assert.equal(seen.length, 1);
});

test('a POST sends its body once and reads its event stream to `end`, which onEnd gets with its data', async () => {
  const { api, seen } = scripted([
    sse(['event: text\ndata: {"delta":"Hel"}\n\nevent: text\ndata: {"delta":"lo"}\n\n', 'event: end\ndata: {"message_id":"m-1","stop_reason":"end_turn"}\n\n']),
  ]);
  const events: EventSourceMessage[] = [];
  let end: unknown;
  await api.streamPost(
    MESSAGES,
    { params: { path: { conversationId: 'c-1' } }, body: { content: 'hello' } },
    { onEvent: (e) => events.push(e), onEnd: (e) => (end = JSON.parse(e.data)) },
  );
  assert.deepEqual(
    events.map((e) => [e.event, e.data]),
    [
      ['text', '{"delta":"Hel"}'],
      ['text', '{"delta":"lo"}'],
    ],
  );
  assert.deepEqual(end, { message_id: 'm-1', stop_reason: 'end_turn' });
  assert.deepEqual(
    seen.map((s) => [s.method, s.url, s.accept, s.body]),
    [['POST', 'http://svc.test/api/v1/ai/conversations/c-1/messages', 'text/event-stream', '{"content":"hello"}']],
  );
});

test('a POST is never sent again: cut off it is lost, refused or unreachable it throws what the fetch gave', async () => {
  const init = { params: { path: { conversationId: 'c-1' } }, body: { content: 'hello' } };
  const cut = scripted([sse(['event: text\ndata: {"delta":"Hel"}\n\n'], 'drop'), sse([])]);
  const texts: string[] = [];
  await assert.rejects(
    cut.api.streamPost(MESSAGES, init, { onEvent: (e) => texts.push(e.data), maxRetries: Infinity, lostStream: (_p, cause) => new Error(`cut off: ${(cause as Error).message}`) }),
    /cut off: network error/,
  );
  assert.deepEqual(texts, ['{"delta":"Hel"}']);
  assert.equal(cut.seen.length, 1);

  const closed = scripted([sse(['event: text\ndata: {"delta":"Hel"}\n\n'], 'close'), sse([])]);
  await assert.rejects(closed.api.streamPost(MESSAGES, init, { onEvent: () => undefined }), /closed before its end event/);
  assert.equal(closed.seen.length, 1);

  const limited = scripted([refused(429, 'rate_limited'), sse([])]);
  await assert.rejects(limited.api.streamPost(MESSAGES, init, { onEvent: () => undefined }), (err) => err instanceof ApiError && err.status === 429 && err.code === 'rate_limited');
  assert.equal(limited.seen.length, 1);

  const unreachable = new ApiError(0, 'network', 'The service could not be reached', undefined);
  const away = scripted([unreachable, sse([])]);
  await assert.rejects(away.api.streamPost(MESSAGES, init, { onEvent: () => undefined }), (err) => err === unreachable);
  assert.equal(away.seen.length, 1);
});

test('over real HTTP, a socket cut mid-stream is reconnected with Last-Event-ID and the stream resumes after it', async () => {
  const asked: (string | undefined)[] = [];
  const server = http.createServer((req, res) => {
    const last = req.headers['last-event-id'] as string | undefined;
    asked.push(last);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    if (last === undefined) {
      res.write('id: 1\nevent: line\ndata: {"n":1}\n\n');
      setTimeout(() => req.socket.destroy(), 50);
      return;
    }
    res.end(`id: 2\nevent: line\ndata: {"n":2,"after":"${last}"}\n\nevent: end\ndata: {}\n\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const api = createApiClient({ baseUrl: `http://127.0.0.1:${port}`, stream: { maxRetries: Infinity, firstPauseMs: 10 } });
    const data: string[] = [];
    await api.stream(LOGS, logsOf, { onEvent: (e) => data.push(e.data) });
    assert.deepEqual(data, ['{"n":1}', '{"n":2,"after":"1"}']);
    assert.deepEqual(asked, [undefined, '1']);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
