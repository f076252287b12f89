import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { rawRequest, sign, startTestServer, WEBHOOK_KEY, type TestServer } from './support.js';

let srv: TestServer;
before(async () => {
  srv = await startTestServer();
});
after(() => srv.close());

const json = { 'content-type': 'application/json' };

test('a role too low gets 403 forbidden, not the validation details of its invalid body', async () => {
  const r = await rawRequest(srv.url, { method: 'POST', path: '/api/v1/things', headers: { ...json, authorization: 'Bearer viewer' }, body: '{not json' });
  assert.equal(r.status, 403);
  assert.equal(JSON.parse(r.text).error.code, 'forbidden');
  assert.equal(r.text.includes('details'), false);
});

test('the role check answers before the body is read: a body that never finishes still gets 403', async () => {
  // Content-Length promises 1000 bytes but only 10 arrive: reading the body would hang.
  const r = await rawRequest(srv.url, {
    method: 'POST',
    path: '/api/v1/things',
    headers: { ...json, authorization: 'Bearer operator', 'content-length': '1000' },
    body: '{"name":"a',
    endBody: false,
  });
  assert.equal(r.status, 403);
  assert.equal(srv.probe.handlerCalls.includes('createThing'), false);
});

test('no credential is 401 unauthorized, before the body (invalid JSON, wrong media type) matters', async () => {
  const a = await rawRequest(srv.url, { method: 'POST', path: '/api/v1/things', headers: json, body: '{not json' });
  assert.equal(a.status, 401);
  assert.equal(JSON.parse(a.text).error.code, 'unauthorized');
  const b = await rawRequest(srv.url, { method: 'POST', path: '/api/v1/things', headers: { 'content-type': 'text/plain' }, body: 'x' });
  assert.equal(b.status, 401);
  const c = await rawRequest(srv.url, { method: 'GET', path: '/api/v1/things?limit=999' });
  assert.equal(c.status, 401, 'query validation waits for the credential too');
});

test('an invalid credential (authenticate returns nothing) is 401', async () => {
  const r = await fetch(`${srv.url}/api/v1/things`, { headers: { authorization: 'Bearer superuser' } });
  assert.equal(r.status, 401);
  assert.equal(((await r.json()) as { error: { code: string } }).error.code, 'unauthorized');
});

test('a higher role may call an operation of a lower role, and the handler sees the principal', async () => {
  const r = await fetch(`${srv.url}/api/v1/things/t1`, { headers: { authorization: 'Bearer admin' } });
  assert.equal(r.status, 200);
  assert.deepEqual(await r.json(), { id: 't1', role: 'admin' });
  const created = await fetch(`${srv.url}/api/v1/things`, {
    method: 'POST',
    headers: { ...json, authorization: 'Bearer admin' },
    body: JSON.stringify({ name: 'n', count: 2 }),
  });
  assert.equal(created.status, 201, 'the catalog success status (201) is used for a bare return value');
});

test('a public operation needs no credential; a webhook key is checked by its verifier', async () => {
  assert.equal((await fetch(`${srv.url}/api/v1/public/x`)).status, 200);
  const bad = await fetch(`${srv.url}/hooks/wrong-key`, { method: 'POST', headers: json, body: '{"a":1}' });
  assert.equal(bad.status, 401);
  const good = await fetch(`${srv.url}/hooks/${WEBHOOK_KEY}`, { method: 'POST', headers: json, body: '{"a":1}' });
  assert.equal(good.status, 201);
  assert.deepEqual(await good.json(), { got: { a: 1 } });
});

test('a signed webhook is verified over the raw body before the body is parsed or validated', async () => {
  const post = (body: string, signature: string) => fetch(`${srv.url}/hooks/git/src1`, { method: 'POST', headers: { ...json, 'x-signature': signature }, body });
  const forged = await post('{not json', sign('something else'));
  assert.equal(forged.status, 401, 'a bad signature wins over invalid JSON');
  const badJson = await post('{not json', sign('{not json'));
  assert.equal(badJson.status, 422);
  assert.deepEqual(((await badJson.json()) as { error: { details: unknown } }).error.details, [{ field: 'body', message: 'invalid JSON' }]);
  const good = await post('{"ref":"refs/heads/main"}', sign('{"ref":"refs/heads/main"}'));
  assert.equal(good.status, 202, 'the catalog success status');
  assert.deepEqual(await good.json(), { source: 'src1', ref: 'refs/heads/main' });
});
