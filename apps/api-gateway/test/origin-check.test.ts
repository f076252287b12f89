// The Origin check of cookie requests, every rule both ways.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestGateway, type TestGateway } from './helpers.js';
import { login, makeToken, makeUser, raw } from './identity-helpers.js';

let gw: TestGateway;
let cookie: string;
let token: string;
const PUBLIC = 'https://svc.example.com';

before(async () => {
  gw = await startTestGateway({ env: { SVC_PUBLIC_URL: PUBLIC } });
  await makeUser(gw, 'fay@example.com', 'editor');
  cookie = await login(gw, 'fay@example.com');
  token = await makeToken(gw, cookie, 'editor');
});
after(() => gw.close());

// A state-changing cookie request: PATCH /api/v1/auth/me.
const patchMe = (headers: Record<string, string>) => raw(gw, 'PATCH', '/api/v1/auth/me', { 'content-type': 'application/json', ...headers }, JSON.stringify({ name: 'Fay' }));
const host = () => new URL(gw.url).host;

test('accepted: Origin is the origin of SVC_PUBLIC_URL', async () => {
  assert.equal((await patchMe({ cookie, origin: PUBLIC })).status, 200);
});

test('accepted: the host of Origin is the host of the request', async () => {
  assert.equal((await patchMe({ cookie, origin: `http://${host()}` })).status, 200);
});

test('accepted: no Origin and Sec-Fetch-Site same-origin', async () => {
  assert.equal((await patchMe({ cookie, 'sec-fetch-site': 'same-origin' })).status, 200);
});

for (const [name, headers] of [
  ['Origin: null', { origin: 'null' }],
  ['neither Origin nor Sec-Fetch-Site', {}],
  ['another site as Origin', { origin: 'https://evil.example.net' }],
  ['the public host on another scheme', { origin: 'http://svc.example.com' }],
  ['the request host on another port', { origin: 'http://127.0.0.1:1' }],
  ['no Origin and Sec-Fetch-Site cross-site', { 'sec-fetch-site': 'cross-site' }],
  ['no Origin and Sec-Fetch-Site same-site', { 'sec-fetch-site': 'same-site' }],
  ['a malformed Origin', { origin: 'not a url' }],
] as const) {
  test(`refused with 403 csrf_failed: ${name}`, async () => {
    const r = await patchMe({ cookie, ...headers });
    assert.equal(r.status, 403);
    assert.equal(r.json().error.code, 'csrf_failed');
  });
}

test('the refusal changes nothing', async () => {
  await patchMe({ cookie, origin: PUBLIC, 'x-ignored': '1' });
  await raw(gw, 'PATCH', '/api/v1/auth/me', { cookie, origin: 'null', 'content-type': 'application/json' }, JSON.stringify({ name: 'Mallory' }));
  const me = await raw(gw, 'GET', '/api/v1/auth/me', { cookie });
  assert.equal(me.json<{ name: string }>().name, 'Fay');
});

test('GET, HEAD and OPTIONS with a cookie need no Origin', async () => {
  assert.equal((await raw(gw, 'GET', '/api/v1/auth/me', { cookie })).status, 200);
  assert.equal((await raw(gw, 'GET', '/api/v1/auth/me', { cookie, origin: 'https://evil.example.net' })).status, 200);
});

test('bearer requests skip the Origin check', async () => {
  const r = await patchMe({ authorization: `Bearer ${token}`, origin: 'https://evil.example.net' });
  assert.equal(r.status, 200);
  assert.equal((await patchMe({ authorization: `Bearer ${token}`, origin: 'null' })).status, 200);
});
