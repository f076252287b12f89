// Header and log injection through webhook inputs: CR/LF in a webhook body
// that flows into an http task's header, URL and body, into a task's output,
// and into the gateway's own log lines (text format). An upstream server in
// this test records every raw request it gets: no injected header or request
// ever reaches it, no stored log line is split or re-attributed, and no line
// of the gateway's log starts with the injected text. (A lone CR a task prints
// stays inside its line's text, attributed to that task and stream.)
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { startStack, type Stack } from './stack.js';

let s: Stack;
const NS = 'inject';
const MARK = 'INJECTED-7f3a';
const EVIL = [`a\r\nX-${MARK}: yes`, `a\nX-${MARK}: yes`, `a\rX-${MARK}: yes`, `a\r\n\r\nGET /${MARK} HTTP/1.1\r\nHost: x`, `a\u2028X-${MARK}: yes`, `a%0d%0aX-${MARK}:%20yes`];

/** The upstream: every request's raw head, as received. */
const heads: string[] = [];
const upstream = net.createServer((sock) => {
  let buf = '';
  let answered = false;
  sock.on('data', (d) => {
    buf += d.toString('latin1');
    const at = buf.indexOf('\r\n\r\n');
    if (at < 0) return;
    // Answer once the whole body (by its Content-Length) is in, then keep reading: anything more would be a smuggled request.
    const length = Number(/\r\ncontent-length: (\d+)/i.exec(buf.slice(0, at))?.[1] ?? 0);
    if (Buffer.byteLength(buf, 'latin1') - at - 4 < length || answered) return;
    answered = true;
    setTimeout(() => {
      heads.push(buf);
      sock.end('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok');
    }, 200);
  });
  sock.on('error', () => undefined);
});
let upstreamPort = 0;

before(async () => {
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  upstreamPort = (upstream.address() as net.AddressInfo).port;
  s = await startStack({ env: { SVC_LOG_FORMAT: 'text', SVC_LOG_LEVEL: 'info' } });
  await s.saveFlow(NS, {
    'relay.flow.yaml': [
      'id: relay',
      'inputs: [{id: who, type: string}]',
      'triggers: [{id: hook, type: webhook, inputs: {who: "{{ trigger.body.who }}"}}]',
      'tasks:',
      '  - id: call',
      '    type: http',
      '    method: POST',
      `    url: "http://127.0.0.1:${upstreamPort}/relay?who={{ inputs.who }}"`,
      '    headers: {X-Who: "{{ inputs.who }}", Content-Type: text/plain}',
      '    body: "who={{ inputs.who }}"',
      '  - id: call_url',
      '    type: http',
      '    method: POST',
      `    url: "http://127.0.0.1:${upstreamPort}/url/{{ inputs.who }}?who={{ inputs.who }}"`,
      '    body: "{{ inputs.who }}"',
      '  - id: echo',
      '    type: command',
      '    env: {WHO: "{{ inputs.who }}"}',
      `    command: [sh, -c, 'printf "%s\\n" "$WHO"']`,
      '',
    ].join('\n'),
  });
});
after(async () => {
  await s?.stop();
  upstream.close();
});

test('CR/LF from a webhook body never becomes a header or a request upstream, nor splits a stored log line', async () => {
  const key = (await s.api('GET', `/api/v1/flows/${NS}/relay`)).body.triggers.find((t: any) => t.id === 'hook').webhook_key;
  const outcomes: Record<string, string> = {};
  for (const who of EVIL) {
    const r = await fetch(`${s.url}/hooks/${key}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ who }) });
    assert.equal(r.status, 201, await r.clone().text());
    const { id } = (await r.json()) as { id: string };
    const done = await s.waitEnded(id, 90_000);
    const call = done.task_runs.find((t: any) => t.task_key === 'call');
    // Refusing to send (http_error) and sending a harmless value are both fine; an injected header is not.
    assert.ok(call.state === 'SUCCESS' || (call.state === 'FAILED' && call.reason === 'http_error'), `${JSON.stringify(who)}: ${call.state} ${call.reason} ${call.error}`);
    // In the URL (path and query) and the body only: sent, the URL parser drops or escapes line breaks.
    const callUrl = done.task_runs.find((t: any) => t.task_key === 'call_url');
    assert.ok(
      callUrl.state === 'SUCCESS' || (callUrl.state === 'FAILED' && callUrl.reason === 'http_error'),
      `${JSON.stringify(who)} in the URL: ${callUrl.state} ${callUrl.reason} ${callUrl.error}`,
    );
    outcomes[JSON.stringify(who)] =
      `header: ${call.state === 'SUCCESS' ? 'sent, value kept inside its header' : `refused (${call.reason})`}; url and body: ${callUrl.state === 'SUCCESS' ? 'sent' : `refused (${callUrl.reason})`}`;
    const echo = done.task_runs.find((t: any) => t.task_key === 'echo');
    assert.equal(echo.state, 'SUCCESS');
    const lines = (await s.db.query(`SELECT task_key, stream, text FROM log_lines WHERE execution_id = $1`, [id])).rows;
    for (const l of lines) {
      assert.equal(l.task_key, 'echo', 'every line stays attributed to its task');
      // Lines end at LF: no stored line holds one, so none can pose as a second line. A lone CR stays
      // inside its line's text (as `kubectl logs` keeps it); it cannot change the line's task or stream.
      assert.doesNotMatch(l.text, /\n/, 'a stored line holds no line feed');
    }
  }
  for (const received of heads) {
    // The head ends at the first blank line; what follows is the body (where the value may sit, as data).
    const head = received.slice(0, received.indexOf('\r\n\r\n'));
    const lines = head.split('\r\n');
    assert.equal(lines.filter((l) => new RegExp(`^X-${MARK}`, 'i').test(l)).length, 0, `an injected header arrived:\n${head}`);
    assert.match(lines[0]!, /^POST \/(relay\?who=|url\/)\S+ HTTP\/1\.1$/, `the request line was split or changed: ${lines[0]}`);
    assert.equal(lines.filter((l) => l.startsWith('GET ')).length, 0, 'no smuggled request');
  }
  // Every request arrived framed by its Content-Length: the body holds the value as data, and nothing follows it.
  for (const received of heads) {
    const at = received.indexOf('\r\n\r\n');
    const length = Number(/\r\ncontent-length: (\d+)/i.exec(received.slice(0, at))?.[1] ?? 0);
    assert.equal(Buffer.byteLength(received.slice(at + 4), 'latin1'), length, `bytes beyond the body:\n${received}`);
  }
  console.log(`header injection: ${EVIL.length} payloads; upstream got ${heads.length} requests, none with an injected header: ${JSON.stringify(outcomes)}`);
});

test('a raw CR inside a request header is refused by the gateway (400) and it keeps serving', async () => {
  const { port } = new URL(s.url);
  const answer = await new Promise<string>((resolve) => {
    const sock = net.connect(Number(port), '127.0.0.1', () => sock.write(`POST /hooks/x HTTP/1.1\r\nHost: a\r\nX-Evil: a\rX-${MARK}: yes\r\nContent-Length: 0\r\n\r\n`));
    let out = '';
    sock.on('data', (d) => (out += d));
    sock.on('close', () => resolve(out));
    sock.on('error', () => resolve(out));
    setTimeout(() => sock.destroy(), 10_000);
  });
  assert.match(answer, /^HTTP\/1\.1 400/);
  assert.equal((await fetch(`${s.url}/healthz`)).status, 200);
});

test("injected line breaks never start a line of the gateway's own (text) log", async () => {
  // Values that reach log fields: the path (route patterns only are logged), a request id, a webhook key, a body.
  const tries = [
    fetch(`${s.url}/hooks/abc%0d%0a${MARK}%20ERROR%20forged`, { method: 'POST' }),
    fetch(`${s.url}/api/v1/executions/%0a${MARK}`, { headers: { authorization: `Bearer ${s.token}` } }),
    fetch(`${s.url}/healthz`, { headers: { 'x-request-id': `a${MARK}` } }),
    fetch(`${s.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `x\n${MARK} ERROR forged`, password: `p\r\n${MARK}` }),
    }),
  ];
  for (const r of await Promise.all(tries)) await r.text();
  await new Promise((r) => setTimeout(r, 500));
  const out = s.procs.map((p) => p.output()).join('\n');
  const forged = out.split(/\r?\n|\r/).filter((l) => l.startsWith(MARK) || l.startsWith(`X-${MARK}`));
  assert.deepEqual(forged, [], 'a log line starts with injected text');
});
