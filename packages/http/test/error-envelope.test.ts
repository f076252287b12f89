import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeCursor } from '../src/index.js';
import { SECRET_IN_ERROR, rawRequest, requestLine, startTestServer, type TestServer } from './support.js';

let srv: TestServer;
before(async () => {
  srv = await startTestServer({ bodyLimit: 1024 });
});
after(() => srv.close());

const editor = { authorization: 'Bearer editor' };
const viewer = { authorization: 'Bearer viewer' };

async function call(path: string, init: RequestInit = {}) {
  const res = await fetch(`${srv.url}${path}`, init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: text ? JSON.parse(text) : undefined };
}

function assertEnvelope(body: any, code: string) {
  assert.deepEqual(Object.keys(body), ['error']);
  assert.equal(body.error.code, code);
  assert.equal(typeof body.error.message, 'string');
  assert.ok(body.error.message.length > 0);
}

test('an unknown API route is 404 not_found with the bare envelope (no details key)', async () => {
  const r = await call('/api/v1/definitely/not/here');
  assert.equal(r.status, 404);
  assertEnvelope(r.json, 'not_found');
  assert.deepEqual(Object.keys(r.json.error).sort(), ['code', 'message']);
  assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
});

test('a body that is not declared JSON is 415 unsupported_media_type', async () => {
  const r = await call('/api/v1/things', { method: 'POST', headers: { ...editor, 'content-type': 'text/plain' }, body: '{"name":"a","count":1}' });
  assert.equal(r.status, 415);
  assertEnvelope(r.json, 'unsupported_media_type');
  const form = await call('/api/v1/things', { method: 'POST', headers: { ...editor, 'content-type': 'application/x-www-form-urlencoded' }, body: 'name=a' });
  assert.equal(form.status, 415);
});

test('application/*+json and a utf-8 charset are JSON', async () => {
  const r = await call('/api/v1/things', {
    method: 'POST',
    headers: { ...editor, 'content-type': 'application/merge-patch+json; charset=UTF-8' },
    body: '{"name":"a","count":1}',
  });
  assert.equal(r.status, 201);
  assert.deepEqual(r.json, { name: 'a', count: 1 });
});

test('a body past the limit is 413 body_too_large', async () => {
  const r = await call('/api/v1/things', {
    method: 'POST',
    headers: { ...editor, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'a', count: 1, pad: 'x'.repeat(2000) }),
  });
  assert.equal(r.status, 413);
  assertEnvelope(r.json, 'body_too_large');
  // Chunked (no Content-Length) is cut off as well.
  const chunked = await rawRequest(srv.url, {
    method: 'POST',
    path: '/api/v1/things',
    headers: { ...editor, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
    body: JSON.stringify({ pad: 'y'.repeat(5000) }),
  });
  assert.equal(chunked.status, 413);
  assertEnvelope(JSON.parse(chunked.text), 'body_too_large');
});

test('invalid JSON is 422 validation_failed on field body', async () => {
  const r = await call('/api/v1/things', { method: 'POST', headers: { ...editor, 'content-type': 'application/json' }, body: '{"name": "a",' });
  assert.equal(r.status, 422);
  assertEnvelope(r.json, 'validation_failed');
  assert.deepEqual(r.json.error.details, [{ field: 'body', message: 'invalid JSON' }]);
});

test('a missing required field and a missing body are named', async () => {
  const r = await call('/api/v1/things', { method: 'POST', headers: { ...editor, 'content-type': 'application/json' }, body: '{"name":"a"}' });
  assert.equal(r.status, 422);
  assert.deepEqual(r.json.error.details, [{ field: 'count', message: 'is required' }]);
  const none = await call('/api/v1/things', { method: 'POST', headers: editor });
  assert.equal(none.status, 422);
  assert.deepEqual(none.json.error.details, [{ field: 'body', message: 'is required' }]);
});

test('each failing field gets exactly one entry, with readable paths and messages', async () => {
  const r = await call('/api/v1/things', {
    method: 'POST',
    headers: { ...editor, 'content-type': 'application/json' },
    body: JSON.stringify({ name: '', count: 9, tags: [{ key: 'ok' }, { key: 'toolong' }], extra: true }),
  });
  assert.equal(r.status, 422);
  assert.deepEqual(
    [...r.json.error.details].sort((a: any, b: any) => a.field.localeCompare(b.field)),
    [
      { field: 'count', message: 'must be at most 5' },
      { field: 'extra', message: 'is not allowed' },
      { field: 'name', message: 'must not be empty' },
      { field: 'tags[1].key', message: 'must be at most 3 characters' },
    ],
  );
  const fields = r.json.error.details.map((d: any) => d.field);
  assert.equal(new Set(fields).size, fields.length);
});

test('a list limit above 200 is 422 on field limit; query values are coerced and defaulted', async () => {
  const r = await call('/api/v1/things?limit=500', { headers: viewer });
  assert.equal(r.status, 422);
  assertEnvelope(r.json, 'validation_failed');
  assert.deepEqual(r.json.error.details, [{ field: 'limit', message: 'must be at most 200' }]);
  const ok = await call('/api/v1/things?state=OPEN', { headers: viewer });
  assert.equal(ok.status, 200);
  assert.deepEqual(ok.json.query, { state: 'OPEN', limit: 50 });
  const two = await call('/api/v1/things?limit=7', { headers: viewer });
  assert.equal(two.json.query.limit, 7);
});

test('two failing query parameters give two entries, one per field', async () => {
  const r = await call('/api/v1/things?limit=0&state=MAYBE', { headers: viewer });
  assert.equal(r.status, 422);
  assert.deepEqual(r.json.error.details, [
    { field: 'limit', message: 'must be at least 1' },
    { field: 'state', message: 'must be one of: OPEN, CLOSED' },
  ]);
});

test('a cursor that does not decode is 422 on field cursor; a good one reaches the handler decoded', async () => {
  for (const bad of ['not a cursor', 'bm9wZQ', encodeURIComponent(Buffer.from('[1,2]').toString('base64url'))]) {
    const r = await call(`/api/v1/things?cursor=${encodeURIComponent(bad)}`, { headers: viewer });
    assert.equal(r.status, 422, bad);
    assert.deepEqual(r.json.error.details, [{ field: 'cursor', message: 'is not a valid cursor' }]);
  }
  // Well-formed cursors holding values the database would refuse: never a 500 from a handler's query.
  const impossible = [
    { created_at: '2024-02-30T00:00:00Z', id: 'e1' },
    { created_at: '2023-02-29T00:00:00Z', id: 'e1' },
    { created_at: '2026-01-01T24:00:00Z', id: 'e1' },
    { created_at: 'yesterday', id: 'e1' },
    { created_at: '2026-01-01T00:00:00Z', id: 'e\u0000' },
    { created_at: '2026-01-01T00:00:00Z', id: 7 },
    { created_at: '2026-01-01T00:00:00Z', id: 'e1', n: 2 ** 31 },
    { created_at: '2026-01-01T00:00:00Z', id: 'e1', n: 1.5 },
    { created_at: '2026-01-01T00:00:00Z', id: 'e1', ts: '9223372036854775808' },
    { created_at: '2026-01-01T00:00:00Z', id: 'e1', extra: true },
    { id: 'e1' },
  ];
  for (const value of impossible) {
    const r = await call(`/api/v1/things?cursor=${encodeCursor(value)}`, { headers: viewer });
    assert.equal(r.status, 422, JSON.stringify(value));
    assert.deepEqual(r.json.error.details, [{ field: 'cursor', message: 'is not a valid cursor' }]);
  }
  const leap = await call(`/api/v1/things?cursor=${encodeCursor({ created_at: '2024-02-29T23:59:59.123456+02:00', id: 'e1', n: -(2 ** 31), ts: '-9223372036854775808' })}`, {
    headers: viewer,
  });
  assert.equal(leap.status, 200);
  const cursor = encodeCursor({ created_at: '2026-01-01T00:00:00Z', id: 'e1' });
  const ok = await call(`/api/v1/things?cursor=${cursor}`, { headers: viewer });
  assert.equal(ok.status, 200);
  assert.deepEqual(ok.json.cursor, { created_at: '2026-01-01T00:00:00Z', id: 'e1' });
});

test('a path parameter failing its schema is named by the parameter', async () => {
  const r = await call('/api/v1/things/NOT_OK', { headers: viewer });
  assert.equal(r.status, 422);
  assert.deepEqual(r.json.error.details, [{ field: 'thingId', message: 'has an invalid format' }]);
});

test('an unexpected error is 500 internal without leaking the cause, which is logged with the request id', async () => {
  const r = await call('/api/v1/explode', { headers: viewer });
  assert.equal(r.status, 500);
  assertEnvelope(r.json, 'internal');
  assert.equal(r.text.includes('hunter2'), false);
  assert.equal(r.text.includes('at '), false, 'no stack trace');
  const id = r.headers.get('x-request-id')!;
  const errLine = srv.log.lines.find((l) => l.level === 'error' && l.fields.request_id === id);
  assert.ok(errLine, 'an error-level line with the request id');
  assert.equal(errLine.fields.error, SECRET_IN_ERROR);
  assert.match(String(errLine.fields.stack), /explode|Error/);
  assert.equal((await requestLine(srv.log, id))?.fields.status, 500);
});

test('an operation without a handler is 501 not_implemented, even without a credential', async () => {
  const r = await call('/api/v1/not-yet', { method: 'POST' });
  assert.equal(r.status, 501);
  assertEnvelope(r.json, 'not_implemented');
  assert.match(r.json.error.message, /notYet/);
});

test('handlers may reply with an explicit status and headers', async () => {
  const r = await call('/api/v1/public/world');
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('x-extra'), 'yes');
  assert.deepEqual(r.json, { hello: 'world' });
});

test('a rate-limited request is 429 with Retry-After in whole seconds', async () => {
  const r = await call('/api/v1/public/busy');
  assert.equal(r.status, 429);
  assertEnvelope(r.json, 'rate_limited');
  assert.equal(r.headers.get('retry-after'), '13');
  assert.ok(r.headers.get('x-request-id'));
});
