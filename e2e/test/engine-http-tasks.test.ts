// http tasks against a real local HTTP server: the inline executor sends the
// rendered request; a status in expect_status (default 200..299) succeeds, any
// other fails the task run; outputs carry status and body for later tasks.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { startStack, type Stack } from './stack.js';
import { flow, run, sh } from './engine-support.js';

let s: Stack;
let server: http.Server;
let base = '';
const NS = 'web';
const seen: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[] = [];

before(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      if (req.url === '/ok') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('hello');
      if (req.url === '/missing') return void res.writeHead(404).end('nope');
      if (req.url === '/created') return void res.writeHead(201).end('made');
      if (req.url === '/slow') return void setTimeout(() => res.writeHead(200).end('late'), 5000);
      if (req.url?.startsWith('/echo'))
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ method: req.method, body, auth: req.headers['x-auth'] ?? null }));
      res.writeHead(500).end('unexpected');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  s = await startStack();
  const one = (id: string, task: Record<string, unknown>) => flow({ id, inputs: [{ id: 'base', type: 'string' }], tasks: [{ id: 'call', type: 'http', ...task }] });
  await s.saveFlow(NS, {
    'ok.flow.yaml': flow({
      id: 'ok',
      inputs: [{ id: 'base', type: 'string' }],
      tasks: [
        { id: 'call', type: 'http', url: '{{ inputs.base }}/ok' },
        {
          id: 'use',
          type: 'command',
          depends_on: ['call'],
          env: { B: '{{ tasks.call.outputs.body }}', S: '{{ tasks.call.outputs.status }}' },
          command: sh('printf \'{"outputs": {"got": "%s %s"}}\\n\' "$B" "$S" >> "$SVC_OUTPUTS"'),
        },
      ],
    }),
    'expect404.flow.yaml': one('expect404', { url: '{{ inputs.base }}/missing', expect_status: [404] }),
    'default404.flow.yaml': one('default404', { url: '{{ inputs.base }}/missing' }),
    'expect200.flow.yaml': one('expect200', { url: '{{ inputs.base }}/created', expect_status: [200] }),
    'post.flow.yaml': flow({
      id: 'post',
      inputs: [
        { id: 'base', type: 'string' },
        { id: 'name', type: 'string' },
      ],
      tasks: [
        {
          id: 'call',
          type: 'http',
          method: 'POST',
          url: '{{ inputs.base }}/echo?q={{ inputs.name }}',
          headers: { 'X-Auth': 'token-{{ inputs.name }}', 'Content-Type': 'application/json' },
          body: '{"name": "{{ inputs.name }}"}',
        },
      ],
    }),
    'slow.flow.yaml': one('slow', { url: '{{ inputs.base }}/slow', timeout: '1s' }),
  });
});
after(async () => {
  await s.stop();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

test('an http task with a 2xx answer succeeds with status and body in its outputs, read by the next task', async () => {
  const e = await s.trigger(NS, 'ok', { inputs: { base } });
  const done = await s.waitEnded(e.id);
  assert.equal(done.state, 'SUCCESS', JSON.stringify(done));
  const call = run(done, 'call');
  assert.equal(call.executor_type, 'inline');
  assert.equal(call.outputs.status, 200);
  assert.equal(call.outputs.body, 'hello');
  assert.deepEqual(run(done, 'use').outputs, { got: 'hello 200' });
  assert.ok(seen.some((r) => r.url === '/ok' && r.method === 'GET'));
});

test('expect_status lists the accepted codes: 404 succeeds when listed', async () => {
  const done = await s.waitEnded((await s.trigger(NS, 'expect404', { inputs: { base } })).id);
  assert.equal(done.state, 'SUCCESS');
  assert.equal(run(done, 'call').outputs.status, 404);
  assert.equal(run(done, 'call').outputs.body, 'nope');
});

test('an unexpected status fails the task run, its outputs still holding status and body', async () => {
  const done = await s.waitEnded((await s.trigger(NS, 'default404', { inputs: { base } })).id);
  assert.equal(done.state, 'FAILED');
  const call = run(done, 'call');
  assert.equal(call.state, 'FAILED');
  assert.match(call.error, /404/);
  assert.equal(call.outputs.status, 404);
  assert.equal(call.outputs.body, 'nope');

  // A 2xx that is not listed fails too.
  const strict = await s.waitEnded((await s.trigger(NS, 'expect200', { inputs: { base } })).id);
  assert.equal(strict.state, 'FAILED');
  assert.equal(run(strict, 'call').outputs.status, 201);
  assert.match(run(strict, 'call').error, /201/);
});

test('method, url, headers and body are rendered from templates', async () => {
  const done = await s.waitEnded((await s.trigger(NS, 'post', { inputs: { base, name: 'ada' } })).id);
  assert.equal(done.state, 'SUCCESS', JSON.stringify(done));
  const req = seen.find((r) => r.url === '/echo?q=ada')!;
  assert.ok(req, 'the server got the request');
  assert.equal(req.method, 'POST');
  assert.equal(req.headers['x-auth'], 'token-ada');
  assert.deepEqual(JSON.parse(req.body), { name: 'ada' });
  assert.deepEqual(JSON.parse(run(done, 'call').outputs.body), { method: 'POST', body: '{"name": "ada"}', auth: 'token-ada' });
});

test('an http task past its timeout ends TIMED_OUT reason timeout', async () => {
  const done = await s.waitEnded((await s.trigger(NS, 'slow', { inputs: { base } })).id);
  const call = run(done, 'call');
  assert.equal(call.state, 'TIMED_OUT');
  assert.equal(call.reason, 'timeout');
  assert.ok(call.duration_ms < 4000, `took ${call.duration_ms} ms with a 1s timeout`);
  assert.equal(done.state, 'FAILED');
});
