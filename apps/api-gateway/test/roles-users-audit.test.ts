import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestGateway, type TestGateway } from './helpers.js';
import { login, makeToken, makeUser, PASSWORD, raw, testClock } from './identity-helpers.js';

const clock = testClock();
let gw: TestGateway;
let admin: string;
let adminId: string;

before(async () => {
  gw = await startTestGateway({ now: clock.now });
  adminId = (await makeUser(gw, 'admin@example.com', 'admin')).id;
  admin = await login(gw, 'admin@example.com');
});
after(() => gw.close());

const as = (cookie: string) => ({ cookie, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' });

test('a viewer sending an invalid body to an editor operation gets 403, not 422', async () => {
  await makeUser(gw, 'vic@example.com', 'viewer');
  const viewer = await makeToken(gw, await login(gw, 'vic@example.com'), 'viewer');
  const r = await raw(gw, 'POST', '/api/v1/namespaces/team/validate', { authorization: `Bearer ${viewer}`, 'content-type': 'application/json' }, '{"this is": not json');
  assert.equal(r.status, 403);
  assert.equal(r.json().error.code, 'forbidden');
  const editor = await makeToken(gw, admin, 'editor');
  const e = await raw(gw, 'POST', '/api/v1/namespaces/team/validate', { authorization: `Bearer ${editor}`, 'content-type': 'application/json' }, '{"this is": not json');
  assert.equal(e.status, 422);
  assert.deepEqual(e.json().error.details, [{ field: 'body', message: 'invalid JSON' }]);
});

test('roles are ordered: each role reaches its own operations and those below', async () => {
  const tokens = {
    viewer: await makeToken(gw, admin, 'viewer'),
    operator: await makeToken(gw, admin, 'operator'),
    editor: await makeToken(gw, admin, 'editor'),
    admin: await makeToken(gw, admin, 'admin'),
  };
  const call = (role: keyof typeof tokens, method: string, path: string, body?: string) =>
    raw(gw, method, path, { authorization: `Bearer ${tokens[role]}`, 'content-type': 'application/json' }, body);
  const validate = JSON.stringify({ path: 'a.flow.yaml', content: 'id: a\ntasks: [{id: a, type: command, command: [x]}]' });
  assert.equal((await call('viewer', 'GET', '/api/v1/auth/me')).status, 200);
  assert.equal((await call('viewer', 'POST', '/api/v1/namespaces/a/validate', validate)).status, 403);
  assert.equal((await call('operator', 'POST', '/api/v1/namespaces/a/validate', validate)).status, 403);
  assert.equal((await call('editor', 'POST', '/api/v1/namespaces/a/validate', validate)).status, 200);
  assert.equal((await call('admin', 'POST', '/api/v1/namespaces/a/validate', validate)).status, 200);
  for (const role of ['viewer', 'operator', 'editor'] as const) assert.equal((await call(role, 'GET', '/api/v1/users')).status, 403, role);
  assert.equal((await call('admin', 'GET', '/api/v1/users')).status, 200);
  assert.equal((await call('editor', 'GET', '/api/v1/audit')).status, 403);
});

test('a user created without a password gets a temporary one and must change it before anything else', async () => {
  const r = await raw(gw, 'POST', '/api/v1/users', as(admin), JSON.stringify({ email: 'new@example.com', role: 'editor', name: 'New' }));
  assert.equal(r.status, 201);
  const created = r.json<{ id: string; temporary_password: string; must_change_password: boolean }>();
  assert.equal(created.must_change_password, true);
  const cookie = await login(gw, 'new@example.com', created.temporary_password);
  const me = await raw(gw, 'GET', '/api/v1/auth/me', { cookie });
  assert.equal(me.status, 200);
  assert.equal(me.json<{ must_change_password: boolean }>().must_change_password, true);
  const blocked = await raw(gw, 'GET', '/api/v1/tokens', { cookie });
  assert.equal(blocked.status, 403);
  assert.equal(blocked.json().error.code, 'password_change_required');
  assert.equal((await raw(gw, 'POST', '/api/v1/namespaces/a/validate', as(cookie), '{}')).json().error.code, 'password_change_required');
  assert.equal((await raw(gw, 'PATCH', '/api/v1/auth/me', as(cookie), JSON.stringify({ name: 'Newer' }))).status, 200, 'own profile allowed');
  const wrong = await raw(gw, 'POST', '/api/v1/auth/password', as(cookie), JSON.stringify({ current_password: 'not it at all', new_password: 'a brand new password' }));
  assert.equal(wrong.status, 422);
  assert.equal(wrong.json().error.details![0]!.field, 'current_password');
  const short = await raw(gw, 'POST', '/api/v1/auth/password', as(cookie), JSON.stringify({ current_password: created.temporary_password, new_password: 'short' }));
  assert.equal(short.status, 422);
  const ok = await raw(gw, 'POST', '/api/v1/auth/password', as(cookie), JSON.stringify({ current_password: created.temporary_password, new_password: 'a brand new password' }));
  assert.equal(ok.status, 204);
  assert.equal((await raw(gw, 'GET', '/api/v1/tokens', { cookie })).status, 200, 'the session that changed it stays and is unblocked');
  assert.equal((await raw(gw, 'POST', '/api/v1/auth/logout', as(cookie))).status, 204);
  await login(gw, 'new@example.com', 'a brand new password');
});

test('resetUserPassword: a temporary password, sessions ended, change required', async () => {
  const u = await makeUser(gw, 'gus@example.com', 'operator');
  const before = await login(gw, 'gus@example.com');
  const r = await raw(gw, 'POST', `/api/v1/users/${u.id}/reset-password`, as(admin));
  assert.equal(r.status, 200);
  const temp = r.json<{ temporary_password: string }>().temporary_password;
  assert.equal((await raw(gw, 'GET', '/api/v1/auth/me', { cookie: before })).status, 401);
  const after = await login(gw, 'gus@example.com', temp);
  assert.equal((await raw(gw, 'GET', '/api/v1/tokens', { cookie: after })).json().error.code, 'password_change_required');
  assert.equal((await raw(gw, 'POST', '/api/v1/auth/logout', as(after))).status, 204, 'logout stays allowed');
});

test('409 last_admin: the last enabled admin cannot be demoted or disabled', async () => {
  const others = (await gw.db.pool.query(`SELECT id FROM users WHERE role = 'admin' AND id <> $1`, [adminId])).rows;
  for (const o of others) await gw.db.pool.query(`UPDATE users SET role = 'viewer' WHERE id = $1`, [o.id]);
  for (const change of [{ role: 'editor' }, { disabled: true }]) {
    const r = await raw(gw, 'PATCH', `/api/v1/users/${adminId}`, as(admin), JSON.stringify(change));
    assert.equal(r.status, 409, JSON.stringify(change));
    assert.equal(r.json().error.code, 'last_admin');
  }
  const second = await makeUser(gw, 'second-admin@example.com', 'admin');
  assert.equal((await raw(gw, 'PATCH', `/api/v1/users/${second.id}`, as(admin), JSON.stringify({ disabled: true }))).status, 200);
  assert.equal((await raw(gw, 'PATCH', `/api/v1/users/${adminId}`, as(admin), JSON.stringify({ role: 'editor' }))).status, 409, 'a disabled admin does not count');
  assert.equal((await raw(gw, 'PATCH', `/api/v1/users/${second.id}`, as(admin), JSON.stringify({ disabled: false }))).status, 200);
  const demoted = await raw(gw, 'PATCH', `/api/v1/users/${adminId}`, as(admin), JSON.stringify({ role: 'editor' }));
  assert.equal(demoted.status, 200);
  // Restore for the tests below.
  await gw.db.pool.query(`UPDATE users SET role = 'admin' WHERE id = $1`, [adminId]);
});

test('createUser: duplicate email 409, bad password 422, listUsers pages by email', async () => {
  assert.equal((await raw(gw, 'POST', '/api/v1/users', as(admin), JSON.stringify({ email: 'ADMIN@example.com', role: 'viewer', password: PASSWORD }))).status, 409);
  const bad = await raw(gw, 'POST', '/api/v1/users', as(admin), JSON.stringify({ email: 'p@example.com', role: 'viewer', password: 'x'.repeat(80) }));
  assert.equal(bad.status, 422);
  assert.equal(bad.json().error.details![0]!.field, 'password');
  const p1 = (await raw(gw, 'GET', '/api/v1/users?limit=3', { cookie: admin })).json<{ items: { email: string }[]; next_cursor: string }>();
  const p2 = (await raw(gw, 'GET', `/api/v1/users?limit=3&cursor=${p1.next_cursor}`, { cookie: admin })).json<{ items: { email: string }[] }>();
  assert.equal(p1.items.length, 3);
  assert.ok(p2.items[0]!.email > p1.items[2]!.email);
});

test('the audit log records logins, tokens, user changes and resets; admin-only, paged and filtered', async () => {
  clock.advance(60_000);
  const from = clock.now().toISOString();
  clock.advance(1000);
  await raw(gw, 'POST', '/api/v1/auth/login', { 'content-type': 'application/json' }, JSON.stringify({ email: 'admin@example.com', password: 'wrong password' }));
  const cookie = await login(gw, 'admin@example.com');
  const tok = await makeToken(gw, cookie, 'viewer');
  const tokId = (await raw(gw, 'GET', '/api/v1/auth/me', { authorization: `Bearer ${tok}` })).json<{ token_id: string }>().token_id;
  await raw(gw, 'DELETE', `/api/v1/tokens/${tokId}`, as(cookie));
  const u = await makeUser(gw, 'hal@example.com', 'viewer');
  await raw(gw, 'PATCH', `/api/v1/users/${u.id}`, as(cookie), JSON.stringify({ role: 'editor' }));
  await raw(gw, 'POST', `/api/v1/users/${u.id}/reset-password`, as(cookie));
  await raw(gw, 'POST', '/api/v1/users', as(cookie), JSON.stringify({ email: 'ivy@example.com', role: 'viewer' }));
  const all = (await raw(gw, 'GET', `/api/v1/audit?from=${encodeURIComponent(from)}&limit=200`, { cookie })).json<{
    items: { action: string; actor: string; target?: string; payload: Record<string, unknown> }[];
  }>();
  const actions = all.items.map((e) => e.action).reverse();
  assert.deepEqual(actions, ['auth.login_failed', 'auth.login', 'token.create', 'token.revoke', 'user.role_change', 'user.password_reset', 'user.create']);
  assert.equal(all.items.find((e) => e.action === 'user.role_change')!.payload.to, 'editor');
  assert.equal(all.items.find((e) => e.action === 'auth.login')!.actor, 'admin@example.com');
  assert.equal(all.items.find((e) => e.action === 'auth.login_failed')!.payload.email, 'admin@example.com');

  const onlyTokens = (await raw(gw, 'GET', `/api/v1/audit?action=token.create&from=${encodeURIComponent(from)}`, { cookie })).json<{ items: unknown[] }>();
  assert.equal(onlyTokens.items.length, 1);
  // By resource (a type, or a type and id as `target` reads) and by action prefix.
  const onUser = (await raw(gw, 'GET', `/api/v1/audit?resource=${encodeURIComponent(`user:${u.id}`)}&from=${encodeURIComponent(from)}`, { cookie })).json<{
    items: { action: string; target: string }[];
  }>();
  assert.deepEqual(onUser.items.map((e) => e.action).reverse(), ['user.role_change', 'user.password_reset']);
  assert.ok(onUser.items.every((e) => e.target === `user:${u.id}`));
  const onTokens = (await raw(gw, 'GET', `/api/v1/audit?resource=token&from=${encodeURIComponent(from)}`, { cookie })).json<{ items: { action: string }[] }>();
  assert.deepEqual(onTokens.items.map((e) => e.action).reverse(), ['token.create', 'token.revoke']);
  const userActions = (await raw(gw, 'GET', `/api/v1/audit?action=user.*&from=${encodeURIComponent(from)}`, { cookie })).json<{ items: { action: string }[] }>();
  assert.deepEqual(userActions.items.map((e) => e.action).reverse(), ['user.role_change', 'user.password_reset', 'user.create']);
  const byActor = (await raw(gw, 'GET', `/api/v1/audit?actor=admin@example.com&from=${encodeURIComponent(from)}`, { cookie })).json<{ items: { action: string }[] }>();
  assert.ok(byActor.items.length >= 5 && !byActor.items.some((e) => e.action === 'auth.login_failed'));
  const earlier = (await raw(gw, 'GET', `/api/v1/audit?to=${encodeURIComponent(from)}&action=user.create`, { cookie })).json<{
    items: { created_at: string; payload: { email: string } }[];
  }>();
  assert.ok(earlier.items.length >= 1, 'the user created in an earlier test');
  assert.ok(earlier.items.every((e) => e.created_at < from && e.payload.email !== 'ivy@example.com'));

  const seen: string[] = [];
  let cursor = '';
  for (let i = 0; i < 10; i++) {
    const page = (await raw(gw, 'GET', `/api/v1/audit?limit=2&from=${encodeURIComponent(from)}${cursor}`, { cookie })).json<{
      items: { action: string }[];
      next_cursor?: string;
    }>();
    seen.push(...page.items.map((e) => e.action));
    if (!page.next_cursor) break;
    cursor = `&cursor=${page.next_cursor}`;
  }
  assert.deepEqual(seen.reverse(), actions, 'paging returns every event once, in order');
  const bad = await raw(gw, 'GET', '/api/v1/audit?cursor=%%%', { cookie });
  assert.equal(bad.status, 422);
  assert.equal(bad.json().error.details![0]!.field, 'cursor');
});
