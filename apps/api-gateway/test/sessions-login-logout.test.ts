import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestGateway, type TestGateway } from './helpers.js';
import { login, makeUser, PASSWORD, raw, testClock } from './identity-helpers.js';

const clock = testClock();
let gw: TestGateway;
let second: TestGateway;

before(async () => {
  gw = await startTestGateway({ now: clock.now, env: { SVC_SESSION_TTL: '2h' } });
  second = await startTestGateway({ now: clock.now, shareWith: gw, env: { SVC_SESSION_TTL: '2h' } });
  await makeUser(gw, 'ana@example.com', 'editor');
});
after(async () => {
  await second.close();
  await gw.close();
});

const me = (cookie: string, g = gw) => raw(g, 'GET', '/api/v1/auth/me', { cookie });

test('login sets svc_session with HttpOnly, SameSite=Lax, Path=/ and no Secure on http', async () => {
  const r = await raw(gw, 'POST', '/api/v1/auth/login', { 'content-type': 'application/json' }, JSON.stringify({ email: 'Ana@Example.com ', password: PASSWORD }));
  assert.equal(r.status, 200);
  const cookie = String(r.headers['set-cookie']);
  assert.match(cookie, /^svc_session=[A-Za-z0-9_-]{43};/);
  assert.match(cookie, /HttpOnly/);
  assert.match(cookie, /SameSite=Lax/);
  assert.match(cookie, /Path=\//);
  assert.doesNotMatch(cookie, /Secure/);
  const body = r.json<{ email: string; role: string; auth_type: string }>();
  assert.equal(body.email, 'ana@example.com');
  assert.equal(body.auth_type, 'session');
});

test('the cookie is Secure when SVC_PUBLIC_URL is https', async () => {
  const g = await startTestGateway({ shareWith: gw, env: { SVC_PUBLIC_URL: 'https://svc.example.com' } });
  try {
    const r = await raw(g, 'POST', '/api/v1/auth/login', { 'content-type': 'application/json' }, JSON.stringify({ email: 'ana@example.com', password: PASSWORD }));
    assert.equal(r.status, 200);
    assert.match(String(r.headers['set-cookie']), /Secure/);
  } finally {
    await g.close();
  }
});

test('sessions live in PostgreSQL: another gateway instance accepts the cookie', async () => {
  const cookie = await login(gw, 'ana@example.com');
  const r = await me(cookie, second);
  assert.equal(r.status, 200);
  assert.equal(r.json<{ auth_type: string; role: string }>().auth_type, 'session');
  assert.equal((await gw.db.pool.query(`SELECT count(*)::int AS n FROM sessions`)).rows[0].n > 0, true);
});

test('a wrong password and an unknown email both get 401 with the same message', async () => {
  const a = await raw(gw, 'POST', '/api/v1/auth/login', { 'content-type': 'application/json' }, JSON.stringify({ email: 'ana@example.com', password: 'wrong password!' }));
  const b = await raw(gw, 'POST', '/api/v1/auth/login', { 'content-type': 'application/json' }, JSON.stringify({ email: 'nobody@example.com', password: 'wrong password!' }));
  assert.equal(a.status, 401);
  assert.equal(b.status, 401);
  assert.deepEqual(a.json(), b.json());
  assert.equal(a.json().error.code, 'unauthorized');
});

test('the lifetime slides: a session used within SVC_SESSION_TTL lives on, an idle one ends', async () => {
  const cookie = await login(gw, 'ana@example.com');
  clock.advance(90 * 60_000); // 1h30 of 2h
  const used = await me(cookie);
  assert.equal(used.status, 200);
  assert.match(String(used.headers['set-cookie']), /svc_session=.*Max-Age=7200/, 'the cookie is refreshed with the extension');
  clock.advance(90 * 60_000); // 3h after login, 1h30 after last use
  assert.equal((await me(cookie)).status, 200);
  clock.advance(2 * 3600_000 + 1000); // idle past the TTL
  const late = await me(cookie);
  assert.equal(late.status, 401);
  assert.equal(late.json().error.code, 'unauthorized');
});

test('logout ends the session and clears the cookie', async () => {
  const cookie = await login(gw, 'ana@example.com');
  const r = await raw(gw, 'POST', '/api/v1/auth/logout', { cookie, 'sec-fetch-site': 'same-origin' });
  assert.equal(r.status, 204);
  assert.match(String(r.headers['set-cookie']), /svc_session=;.*Max-Age=0/);
  assert.equal((await me(cookie)).status, 401);
});

test('revokeOtherSessions ends every other session at once and keeps this one', async () => {
  const a = await login(gw, 'ana@example.com');
  const b = await login(gw, 'ana@example.com');
  const c = await login(second, 'ana@example.com');
  const r = await raw(gw, 'POST', '/api/v1/auth/sessions/revoke-others', { cookie: a, 'sec-fetch-site': 'same-origin' });
  assert.equal(r.status, 200);
  assert.ok(r.json<{ revoked: number }>().revoked >= 2);
  assert.equal((await me(a)).status, 200);
  assert.equal((await me(b)).status, 401);
  assert.equal((await me(c, second)).status, 401);
});

test('a disabled user cannot log in and their sessions end', async () => {
  const u = await makeUser(gw, 'dis@example.com', 'viewer');
  const cookie = await login(gw, 'dis@example.com');
  await gw.db.pool.query(`UPDATE users SET disabled = true WHERE id = $1`, [u.id]);
  assert.equal((await me(cookie)).status, 401);
  const r = await raw(gw, 'POST', '/api/v1/auth/login', { 'content-type': 'application/json' }, JSON.stringify({ email: 'dis@example.com', password: PASSWORD }));
  assert.equal(r.status, 401);
});

test('no credential at all: 401 with the envelope', async () => {
  const r = await raw(gw, 'GET', '/api/v1/auth/me');
  assert.equal(r.status, 401);
  assert.equal(r.json().error.code, 'unauthorized');
  assert.ok(r.headers['x-request-id']);
});
