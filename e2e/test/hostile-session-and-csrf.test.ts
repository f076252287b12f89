// Session fixation and cross-site request forgery against a real gateway.
// Fixation: a session id the client brings to login is never adopted (login
// always issues a new one, and the planted one stays what it was); logout ends
// the session on the server. CSRF: every cookie-authenticated state-changing
// route refuses a cross-site Origin, a missing Origin without Sec-Fetch-Site
// same-origin, `Origin: null`, look-alike origins, and form content types,
// and the refused request changed nothing.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createUser } from '@svc/identity';
import { startStack, type Stack } from './stack.js';
import { answerOf, assertWellFormed } from './hostile/envelope.js';

let s: Stack;
const PUBLIC_URL = 'https://svc.example.test';

async function login(email: string, password: string, cookie?: string) {
  const r = await fetch(`${s.url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
    body: JSON.stringify({ email, password }),
  });
  assert.equal(r.status, 200, await r.clone().text());
  const setCookie = r.headers.get('set-cookie') ?? '';
  return { cookie: /svc_session=[^;]+/.exec(setCookie)![0], setCookie };
}

const me = async (cookie: string) => {
  const r = await fetch(`${s.url}/api/v1/auth/me`, { headers: { cookie } });
  return { status: r.status, body: (await r.json()) as any };
};

before(async () => {
  s = await startStack({ dispatchers: 0, maintenance: false, env: { SVC_PUBLIC_URL: PUBLIC_URL } });
  await createUser(s.db, { email: 'victim@example.com', role: 'admin', password: 'victim password 1' }, new Date());
  await createUser(s.db, { email: 'attacker@example.com', role: 'viewer', password: 'attacker password 1' }, new Date());
  await s.saveFlow('csrf', { 'f.flow.yaml': 'id: f\ntasks:\n  - {id: t, type: command, command: ["true"]}\n' });
});
after(() => s?.stop());

test('a session id planted before login is not honoured after it: login issues a new one', async () => {
  const planted = `svc_session=${'A'.repeat(43)}`;
  const v = await login('victim@example.com', 'victim password 1', planted);
  assert.notEqual(v.cookie, planted);
  assert.match(v.setCookie, /HttpOnly/i);
  assert.match(v.setCookie, /SameSite=Lax/i);
  assert.match(v.setCookie, /Path=\//);
  assert.match(v.setCookie, /Secure/, 'Secure with an https SVC_PUBLIC_URL');
  assert.equal((await me(planted)).status, 401, 'the planted id is no session');
  assert.equal((await me(v.cookie)).body.email, 'victim@example.com');
});

test("an attacker's own session planted in the victim's browser stays the attacker's after the victim logs in", async () => {
  const a = await login('attacker@example.com', 'attacker password 1');
  const v = await login('victim@example.com', 'victim password 1', a.cookie);
  assert.notEqual(v.cookie, a.cookie);
  const asAttacker = await me(a.cookie);
  assert.equal(asAttacker.body.email, 'attacker@example.com', 'not upgraded to the victim');
  assert.equal(asAttacker.body.role, 'viewer');
  assert.equal((await me(v.cookie)).body.email, 'victim@example.com');
});

test('logout ends the session on the server: the old cookie is refused afterwards', async () => {
  const v = await login('victim@example.com', 'victim password 1');
  const out = await fetch(`${s.url}/api/v1/auth/logout`, { method: 'POST', headers: { cookie: v.cookie, 'sec-fetch-site': 'same-origin' } });
  assert.ok(out.status < 300, String(out.status));
  assert.match(out.headers.get('set-cookie') ?? '', /svc_session=;/);
  assert.equal((await me(v.cookie)).status, 401);
});

/** Cookie-authenticated state-changing routes, each with a request that would change something, and how to see whether it did. */
const ROUTES: { name: string; method: string; path: string; body?: unknown; changed: () => Promise<boolean> }[] = [
  {
    name: 'createToken',
    method: 'POST',
    path: '/api/v1/tokens',
    body: { name: 'csrf-token', role: 'admin' },
    changed: async () => (await s.api('GET', '/api/v1/tokens')).body.items.some((t: any) => t.name === 'csrf-token'),
  },
  {
    name: 'putGlobalVariable',
    method: 'PUT',
    path: '/api/v1/variables/CSRF_VAR',
    body: { value: 'csrf' },
    changed: async () => (await s.api('GET', '/api/v1/variables')).body.items.some((v: any) => v.key === 'CSRF_VAR'),
  },
  {
    name: 'putGlobalSecret',
    method: 'PUT',
    path: '/api/v1/secrets/CSRF_SECRET',
    body: { value: 'csrf-secret-value' },
    changed: async () => (await s.api('GET', '/api/v1/secrets')).body.items.some((v: any) => v.key === 'CSRF_SECRET'),
  },
  {
    name: 'createUser',
    method: 'POST',
    path: '/api/v1/users',
    body: { email: 'csrf@example.com', role: 'admin', name: 'x' },
    changed: async () => (await s.api('GET', '/api/v1/users')).body.items.some((u: any) => u.email === 'csrf@example.com'),
  },
  {
    name: 'updateMe',
    method: 'PATCH',
    path: '/api/v1/auth/me',
    body: { name: 'CSRF was here' },
    changed: async () => (await s.db.query(`SELECT 1 FROM users WHERE display_name = 'CSRF was here'`)).rowCount! > 0,
  },
  {
    name: 'triggerFlow',
    method: 'POST',
    path: '/api/v1/flows/csrf/f/executions',
    body: {},
    changed: async () => (await s.db.query(`SELECT 1 FROM executions WHERE namespace = 'csrf'`)).rowCount! > 0,
  },
  { name: 'deleteNamespace', method: 'DELETE', path: '/api/v1/namespaces/csrf', changed: async () => (await s.api('GET', '/api/v1/namespaces/csrf')).status === 404 },
  { name: 'logout', method: 'POST', path: '/api/v1/auth/logout', changed: async () => false /* checked below: the session still works */ },
];

test('cross-site variants of cookie requests are 403 csrf_failed on every state-changing route, and change nothing', async () => {
  const v = await login('victim@example.com', 'victim password 1');
  const host = new URL(s.url).host;
  const variants: { name: string; headers: Record<string, string>; contentType?: string }[] = [
    { name: 'cross-site Origin', headers: { origin: 'https://evil.example' } },
    { name: 'cross-site Origin claiming Sec-Fetch-Site same-origin', headers: { origin: 'https://evil.example', 'sec-fetch-site': 'same-origin' } },
    { name: 'Origin: null (sandboxed frame, file:, redirects)', headers: { origin: 'null' } },
    { name: 'no Origin and no Sec-Fetch-Site', headers: {} },
    { name: 'no Origin, Sec-Fetch-Site cross-site', headers: { 'sec-fetch-site': 'cross-site' } },
    { name: 'no Origin, Sec-Fetch-Site same-site (a sibling subdomain)', headers: { 'sec-fetch-site': 'same-site' } },
    { name: 'no Origin, Sec-Fetch-Site none', headers: { 'sec-fetch-site': 'none' } },
    { name: 'look-alike: the host as a subdomain of another', headers: { origin: `http://${host}.evil.example` } },
    { name: 'look-alike: the public host as a prefix', headers: { origin: `${PUBLIC_URL}.evil.example` } },
    { name: 'the public host over http (another origin)', headers: { origin: PUBLIC_URL.replace('https:', 'http:') } },
    { name: 'the request host on another port', headers: { origin: `http://${host.split(':')[0]}:1` } },
    { name: 'userinfo trick', headers: { origin: `http://${host}@evil.example` } },
    { name: 'an Origin that is no URL', headers: { origin: 'not a url' } },
    { name: 'form post (urlencoded), cross-site', headers: { origin: 'https://evil.example' }, contentType: 'application/x-www-form-urlencoded' },
    { name: 'form post (multipart), no Origin', headers: {}, contentType: 'multipart/form-data; boundary=x' },
    { name: 'form post (text/plain, the JSON-in-a-form trick), cross-site', headers: { origin: 'https://evil.example' }, contentType: 'text/plain' },
  ];
  let refused = 0;
  for (const route of ROUTES) {
    for (const variant of variants) {
      const headers: Record<string, string> = { cookie: v.cookie, ...variant.headers };
      if (route.body !== undefined) headers['content-type'] = variant.contentType ?? 'application/json';
      const r = await fetch(`${s.url}${route.path}`, { method: route.method, headers, body: route.body === undefined ? undefined : JSON.stringify(route.body) });
      const a = await answerOf(r);
      assertWellFormed(a, `${route.name} with ${variant.name}`);
      assert.equal(a.status, 403, `${route.name} with ${variant.name}: ${a.status} ${a.text}`);
      assert.equal(JSON.parse(a.text).error.code, 'csrf_failed', `${route.name} with ${variant.name}`);
      refused++;
    }
    assert.equal(await route.changed(), false, `${route.name} changed state through a refused request`);
  }
  assert.equal((await me(v.cookie)).status, 200, 'the refused logouts did not end the session');
  console.log(`CSRF: ${refused} cross-site cookie requests refused (${ROUTES.length} routes x ${variants.length} variants)`);
});

test('same-origin cookie requests pass, form content types are still refused (415), and bearer tokens need no Origin', async () => {
  const v = await login('victim@example.com', 'victim password 1');
  const host = new URL(s.url).host;
  for (const headers of [{ origin: PUBLIC_URL }, { origin: `http://${host}` }, { 'sec-fetch-site': 'same-origin' }] as Record<string, string>[]) {
    const r = await fetch(`${s.url}/api/v1/variables/SAME_ORIGIN`, {
      method: 'PUT',
      headers: { cookie: v.cookie, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ value: 'ok' }),
    });
    assert.ok(r.status < 300, `${JSON.stringify(headers)}: ${r.status} ${await r.text()}`);
  }
  for (const contentType of ['application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'text/plain']) {
    const r = await fetch(`${s.url}/api/v1/variables/FORM_VAR`, {
      method: 'PUT',
      headers: { cookie: v.cookie, 'content-type': contentType, 'sec-fetch-site': 'same-origin' },
      body: '{"value":"form"}',
    });
    assert.equal(r.status, 415, contentType);
  }
  assert.equal(
    (await s.api('GET', '/api/v1/variables')).body.items.some((x: any) => x.key === 'FORM_VAR'),
    false,
  );
  const bearer = await fetch(`${s.url}/api/v1/variables/BEARER_VAR`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json', origin: 'https://evil.example' },
    body: JSON.stringify({ value: 'ok' }),
  });
  assert.ok(bearer.status < 300, 'no Origin check for bearer tokens (spec)');
  // A safe method with a cross-site Origin reads, as the spec allows, and changes nothing.
  assert.equal((await fetch(`${s.url}/api/v1/auth/me`, { headers: { cookie: v.cookie, origin: 'https://evil.example' } })).status, 200);
});
