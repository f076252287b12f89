import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestGateway, type TestGateway } from './helpers.js';
import { login, makeToken, makeUser, raw, testClock } from './identity-helpers.js';

const clock = testClock();
let gw: TestGateway;
let adminCookie: string;
let carolCookie: string;
let carolId: string;

before(async () => {
  gw = await startTestGateway({ now: clock.now });
  await makeUser(gw, 'root@example.com', 'admin');
  carolId = (await makeUser(gw, 'carol@example.com', 'admin')).id;
  adminCookie = await login(gw, 'root@example.com');
  carolCookie = await login(gw, 'carol@example.com');
});
after(() => gw.close());

const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });

test('a token is svc_ and 43 base62 characters, shown once, stored only as a hash', async () => {
  const r = await raw(
    gw,
    'POST',
    '/api/v1/tokens',
    { cookie: carolCookie, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' },
    JSON.stringify({ name: 'ci', role: 'editor' }),
  );
  assert.equal(r.status, 201);
  const created = r.json<{ id: string; secret: string; role: string; expires_at: null }>();
  assert.match(created.secret, /^svc_[0-9A-Za-z]{43}$/);
  assert.equal(created.expires_at, null);
  const list = await raw(gw, 'GET', '/api/v1/tokens', { cookie: carolCookie });
  assert.equal(list.status, 200);
  assert.doesNotMatch(list.body, new RegExp(created.secret));
  assert.ok(list.json<{ items: { id: string }[] }>().items.some((t) => t.id === created.id));
  const rows = (await gw.db.pool.query(`SELECT * FROM api_tokens WHERE id = $1`, [created.id])).rows;
  assert.doesNotMatch(JSON.stringify(rows), new RegExp(created.secret.slice(4)), 'the secret is nowhere in the row');
  const me = await raw(gw, 'GET', '/api/v1/auth/me', bearer(created.secret));
  assert.equal(me.status, 200);
  assert.deepEqual([me.json<{ auth_type: string }>().auth_type, me.json<{ role: string }>().role], ['token', 'editor']);
});

test('two tokens never collide and use the whole alphabet', async () => {
  const secrets = new Set<string>();
  for (let i = 0; i < 5; i++) secrets.add(await makeToken(gw, carolCookie, 'viewer'));
  assert.equal(secrets.size, 5);
});

test('the effective role is the lower of the token role and the owner role; demoting the owner lowers it', async () => {
  const adminToken = await makeToken(gw, carolCookie, 'admin');
  assert.equal((await raw(gw, 'GET', '/api/v1/users', bearer(adminToken))).status, 200);
  const demote = await raw(
    gw,
    'PATCH',
    `/api/v1/users/${carolId}`,
    { cookie: adminCookie, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' },
    JSON.stringify({ role: 'operator' }),
  );
  assert.equal(demote.status, 200);
  const r = await raw(gw, 'GET', '/api/v1/users', bearer(adminToken));
  assert.equal(r.status, 403);
  assert.equal(r.json().error.code, 'forbidden');
  const me = await raw(gw, 'GET', '/api/v1/auth/me', bearer(adminToken));
  assert.equal(me.json<{ role: string }>().role, 'operator');
  // A viewer token of an operator stays viewer.
  const viewerToken = await makeToken(gw, carolCookie, 'viewer');
  assert.equal((await raw(gw, 'GET', '/api/v1/auth/me', bearer(viewerToken))).json<{ role: string }>().role, 'viewer');
});

test("role is optional: it defaults to the caller's role, and a token never mints a stronger one", async () => {
  await makeUser(gw, 'dave@example.com', 'editor');
  const daveCookie = await login(gw, 'dave@example.com');
  const session = { cookie: daveCookie, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' };
  const r = await raw(gw, 'POST', '/api/v1/tokens', session, JSON.stringify({ name: 'no role' }));
  assert.equal(r.status, 201, r.body);
  const created = r.json<{ role: string; secret: string }>();
  assert.equal(created.role, 'editor', "the owner's current role");
  assert.equal((await raw(gw, 'GET', '/api/v1/auth/me', bearer(created.secret))).json<{ role: string }>().role, 'editor');
  // Above one's own role: refused, for a session and for a token.
  const above = await raw(gw, 'POST', '/api/v1/tokens', session, JSON.stringify({ name: 'too much', role: 'admin' }));
  assert.equal(above.status, 403);
  assert.equal(above.json().error.code, 'forbidden');
  const viewerToken = await makeToken(gw, daveCookie, 'viewer');
  const minted = await raw(gw, 'POST', '/api/v1/tokens', { ...bearer(viewerToken), 'content-type': 'application/json' }, JSON.stringify({ name: 'from a viewer token' }));
  assert.equal(minted.status, 201, minted.body);
  assert.equal(minted.json<{ role: string }>().role, 'viewer', "a token's default is its own effective role");
  const escalate = await raw(gw, 'POST', '/api/v1/tokens', { ...bearer(viewerToken), 'content-type': 'application/json' }, JSON.stringify({ name: 'escalate', role: 'editor' }));
  assert.equal(escalate.status, 403);
  // The effective role still follows the owner: demoted to viewer, the editor token reads as viewer.
  const admin = { cookie: adminCookie, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' };
  const daveId = (await raw(gw, 'GET', '/api/v1/auth/me', bearer(created.secret))).json<{ id: string }>().id;
  assert.equal((await raw(gw, 'PATCH', `/api/v1/users/${daveId}`, admin, JSON.stringify({ role: 'viewer' }))).status, 200);
  assert.equal((await raw(gw, 'GET', '/api/v1/auth/me', bearer(created.secret))).json<{ role: string }>().role, 'viewer');
});

test('expires_in_days: the token works until then and is 401 after (the clock moves, nobody sleeps)', async () => {
  const secret = await makeToken(gw, adminCookie, 'viewer', { expires_in_days: 1 });
  assert.equal((await raw(gw, 'GET', '/api/v1/auth/me', bearer(secret))).status, 200);
  clock.advance(86_400_000 - 1000);
  assert.equal((await raw(gw, 'GET', '/api/v1/auth/me', bearer(secret))).status, 200);
  clock.advance(2000);
  const r = await raw(gw, 'GET', '/api/v1/auth/me', bearer(secret));
  assert.equal(r.status, 401);
  assert.equal(r.json().error.code, 'unauthorized');
});

test('expires_in_days outside 1 to 365 is refused with the field', async () => {
  for (const days of [0, 366, 1.5]) {
    const r = await raw(
      gw,
      'POST',
      '/api/v1/tokens',
      { cookie: adminCookie, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' },
      JSON.stringify({ name: 'x', role: 'viewer', expires_in_days: days }),
    );
    assert.equal(r.status, 422, String(days));
    assert.equal(r.json().error.details![0]!.field, 'expires_in_days');
  }
});

test('a revoked token is 401 at once; others cannot revoke it, an admin can', async () => {
  const secret = await makeToken(gw, carolCookie, 'viewer');
  const id = (await raw(gw, 'GET', '/api/v1/auth/me', bearer(secret))).json<{ token_id: string }>().token_id;
  await makeUser(gw, 'dan@example.com', 'viewer');
  const dan = await login(gw, 'dan@example.com');
  const byDan = await raw(gw, 'DELETE', `/api/v1/tokens/${id}`, { cookie: dan, 'sec-fetch-site': 'same-origin' });
  assert.equal(byDan.status, 404);
  const own = await raw(gw, 'DELETE', `/api/v1/tokens/${id}`, bearer(secret));
  assert.equal(own.status, 204);
  assert.equal((await raw(gw, 'GET', '/api/v1/auth/me', bearer(secret))).status, 401);
  const another = await makeToken(gw, carolCookie, 'viewer');
  const anotherId = (await raw(gw, 'GET', '/api/v1/auth/me', bearer(another))).json<{ token_id: string }>().token_id;
  assert.equal((await raw(gw, 'DELETE', `/api/v1/tokens/${anotherId}`, { cookie: adminCookie, 'sec-fetch-site': 'same-origin' })).status, 204);
  assert.equal((await raw(gw, 'GET', '/api/v1/auth/me', bearer(another))).status, 401);
});

test('a token of a disabled owner is 401; malformed tokens are 401', async () => {
  const u = await makeUser(gw, 'erin@example.com', 'editor');
  const secret = await makeToken(gw, await login(gw, 'erin@example.com'), 'editor');
  await raw(gw, 'PATCH', `/api/v1/users/${u.id}`, { cookie: adminCookie, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' }, JSON.stringify({ disabled: true }));
  assert.equal((await raw(gw, 'GET', '/api/v1/auth/me', bearer(secret))).status, 401);
  for (const bad of [`${secret}x`, secret.slice(0, -1), secret.replace('svc_', 'svx_'), `svc_${'!'.repeat(43)}`, 'Basic dXNlcjpwYXNz']) {
    const r = await raw(gw, 'GET', '/api/v1/auth/me', { authorization: bad.startsWith('Basic') ? bad : `Bearer ${bad}` });
    assert.equal(r.status, 401, bad);
  }
});

test('an admin lists every token with all=true; others see only their own', async () => {
  const mine = await raw(gw, 'GET', '/api/v1/tokens?limit=200', { cookie: carolCookie });
  assert.ok(mine.json<{ items: { user_email: string }[] }>().items.every((t) => t.user_email === 'carol@example.com'));
  const all = await raw(gw, 'GET', '/api/v1/tokens?all=true&limit=200', { cookie: adminCookie });
  const emails = new Set(all.json<{ items: { user_email: string }[] }>().items.map((t) => t.user_email));
  assert.ok(emails.has('carol@example.com') && emails.has('erin@example.com'), [...emails].join(','));
  const page = await raw(gw, 'GET', '/api/v1/tokens?all=true&limit=2', { cookie: adminCookie });
  const p1 = page.json<{ items: { id: string }[]; next_cursor: string }>();
  assert.equal(p1.items.length, 2);
  const p2 = (await raw(gw, 'GET', `/api/v1/tokens?all=true&limit=2&cursor=${p1.next_cursor}`, { cookie: adminCookie })).json<{ items: { id: string }[] }>();
  assert.ok(p2.items.every((t) => !p1.items.some((x) => x.id === t.id)));
});
