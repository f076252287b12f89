// Parameters express cannot decode and NUL characters, which PostgreSQL text
// refuses: both are the caller's mistake, so 422 `validation_failed` naming
// the field, never a 500.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { replaceNul } from '../src/validation.js';
import { startTestServer, type TestServer } from './support.js';

let srv: TestServer;
before(async () => {
  srv = await startTestServer({ bodyLimit: 1024 });
});
after(() => srv.close());

const editor = { authorization: 'Bearer editor' };

async function call(path: string, init: RequestInit = {}) {
  const res = await fetch(`${srv.url}${path}`, init);
  return { status: res.status, json: (await res.json()) as any };
}

test('a path parameter that is not valid percent-encoding is 422 naming the parameter', async () => {
  for (const bad of ['%', '%zz', '%ff%fe', '%c0%ae']) {
    const r = await call(`/api/v1/things/${bad}`, { headers: editor });
    assert.equal(r.status, 422, bad);
    assert.deepEqual(r.json.error.details, [{ field: 'thingId', message: 'is not valid percent-encoded UTF-8' }], bad);
  }
});

test('a NUL in a path or query parameter is 422 naming it', async () => {
  const r = await call('/api/v1/things/a%00b', { headers: editor });
  assert.equal(r.status, 422);
  assert.deepEqual(r.json.error.details, [{ field: 'thingId', message: 'must not contain a NUL character' }]);
  const q = await call('/api/v1/things?cursor=x%00', { headers: editor });
  assert.equal(q.status, 422);
  assert.equal(q.json.error.details[0].field, 'cursor');
});

test('a NUL in a JSON body string is 422 naming its field', async () => {
  const r = await call('/api/v1/things', {
    method: 'POST',
    headers: { ...editor, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'a', count: 1, tags: [{ key: 'b\u0000' }] }),
  });
  assert.equal(r.status, 422);
  assert.equal(r.json.error.details[0].field, 'tags[0].key');
});

test('replaceNul keeps a value readable and storable', () => {
  assert.deepEqual(replaceNul({ 'k\u0000': ['a\u0000b', 1, null, { t: 'x' }] }), { 'k\ufffd': ['a\ufffdb', 1, null, { t: 'x' }] });
});
