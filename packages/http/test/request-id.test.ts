import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { requestLine, startTestServer, WEBHOOK_KEY, type TestServer } from './support.js';

let srv: TestServer;
before(async () => {
  srv = await startTestServer();
});
after(() => srv.close());

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

test('a request without X-Request-Id gets a generated, time-sortable one, logged with the route pattern', async () => {
  const res = await fetch(`${srv.url}/api/v1/things/abc-1`, { headers: { authorization: 'Bearer viewer' } });
  assert.equal(res.status, 200);
  const id = res.headers.get('x-request-id');
  assert.match(id ?? '', ULID);
  const line = await requestLine(srv.log, id!);
  assert.ok(line, 'one log line carries the request id');
  assert.equal(line.fields.method, 'GET');
  assert.equal(line.fields.route, '/api/v1/things/{thingId}');
  assert.equal(line.fields.status, 200);
  assert.equal(typeof line.fields.duration_ms, 'number');
  assert.equal(srv.log.lines.filter((l) => l.fields.request_id === id && l.message === 'http request').length, 1);
});

test('generated ids sort by time', async () => {
  const a = (await fetch(`${srv.url}/api/v1/nothing`)).headers.get('x-request-id')!;
  await new Promise((r) => setTimeout(r, 5));
  const b = (await fetch(`${srv.url}/api/v1/nothing`)).headers.get('x-request-id')!;
  assert.ok(a < b, `${a} < ${b}`);
});

test('a well-formed incoming X-Request-Id is echoed', async () => {
  const res = await fetch(`${srv.url}/api/v1/things/x`, { headers: { authorization: 'Bearer viewer', 'x-request-id': 'lb-7f3a:01.2_x' } });
  assert.equal(res.headers.get('x-request-id'), 'lb-7f3a:01.2_x');
  assert.ok(await requestLine(srv.log, 'lb-7f3a:01.2_x'));
});

test('a malicious or oversized incoming X-Request-Id is replaced', async () => {
  for (const bad of ['a b"} {"level":"error', '<script>', 'x'.repeat(129), '']) {
    const res = await fetch(`${srv.url}/api/v1/things/x`, { headers: { authorization: 'Bearer viewer', 'x-request-id': bad } });
    const id = res.headers.get('x-request-id');
    assert.notEqual(id, bad);
    assert.match(id ?? '', ULID);
  }
});

test('error responses, unknown API routes and unmatched paths carry X-Request-Id too', async () => {
  for (const [path, status] of [
    ['/api/v1/nope', 404],
    ['/elsewhere', 404],
    ['/api/v1/explode', 401],
  ] as const) {
    const res = await fetch(`${srv.url}${path}`, { headers: { 'x-request-id': `t-${status}-${path.length}` } });
    assert.equal(res.status, status, path);
    assert.equal(res.headers.get('x-request-id'), `t-${status}-${path.length}`);
  }
  const res = await fetch(`${srv.url}/api/v1/explode`, { headers: { authorization: 'Bearer viewer' } });
  assert.equal(res.status, 500);
  assert.match(res.headers.get('x-request-id') ?? '', ULID);
});

test('the request log names the route pattern, never the raw path (webhook keys stay out of logs)', async () => {
  const res = await fetch(`${srv.url}/hooks/${WEBHOOK_KEY}`, { method: 'POST' });
  assert.equal(res.status, 201);
  const line = await requestLine(srv.log, res.headers.get('x-request-id')!);
  assert.equal(line?.fields.route, '/hooks/{key}');
  assert.equal(JSON.stringify(srv.log.lines).includes(WEBHOOK_KEY), false);
  const unknown = await fetch(`${srv.url}/api/v1/no/such/route`);
  assert.equal((await requestLine(srv.log, unknown.headers.get('x-request-id')!))?.fields.route, '/api/*');
  const other = await fetch(`${srv.url}/favicon.ico`);
  assert.equal((await requestLine(srv.log, other.headers.get('x-request-id')!))?.fields.route, 'unmatched');
});
