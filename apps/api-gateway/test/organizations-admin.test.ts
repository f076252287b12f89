// The admin operations on organizations of the email interface:
// an admin creates an organization, a key (in the answer once, never again:
// not in the list, the audit log or a log line), a verified sender and a
// daily quota; the key sends through POST /api/v1/emails and the admin sees
// the email (without its text) and today's use; a revoked key is refused at
// once; a lower role is refused before anything is read.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestGateway, type TestGateway } from './helpers.js';
import { login, makeToken, makeUser } from './identity-helpers.js';
import { assertPagesEveryRow, sameMillisecond } from './paging-helpers.js';

let gw: TestGateway;
let admin = '';
let editor = '';

before(async () => {
  gw = await startTestGateway({ env: { SVC_ORG_DAILY_QUOTA: '500', SVC_ORG_RATE_LIMIT: '50' } });
  await makeUser(gw, 'admin@example.com', 'admin');
  await makeUser(gw, 'ed@example.com', 'editor');
  admin = await makeToken(gw, await login(gw, 'admin@example.com'), 'admin');
  editor = await makeToken(gw, await login(gw, 'ed@example.com'), 'editor');
});
after(async () => gw?.close());

async function call(token: string, method: string, path: string, body?: unknown) {
  const r = await fetch(`${gw.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, text, body: text ? JSON.parse(text) : undefined };
}

test('organizations, keys, senders, quotas and sent emails through the admin API; the key is shown once', async () => {
  assert.equal((await call(editor, 'GET', '/api/v1/organizations')).status, 403);
  assert.equal((await call(editor, 'POST', '/api/v1/organizations', { name: 'acme' })).status, 403);

  const made = await call(admin, 'POST', '/api/v1/organizations', { name: 'acme' });
  assert.equal(made.status, 201, made.text);
  assert.deepEqual(
    { ...made.body, id: 'x', created_at: 'x' },
    {
      id: 'x',
      name: 'acme',
      created_at: 'x',
      daily_quota: { own: null, limit: 500, used_today: 0 },
      rate_limit: { own: null, per_second: 50 },
      senders: [],
      namespaces: [],
      keys: [],
    },
  );
  assert.equal((await call(admin, 'POST', '/api/v1/organizations', { name: 'acme' })).status, 409);
  const bad = await call(admin, 'POST', '/api/v1/organizations', { name: 'Not A Name' });
  assert.equal(bad.status, 422);
  assert.equal(bad.body.error.details[0].field, 'name');

  const key = await call(admin, 'POST', '/api/v1/organizations/acme/keys', { name: 'billing app' });
  assert.equal(key.status, 201, key.text);
  assert.match(key.body.key, /^svc_live_[0-9A-Za-z]{43}$/);
  assert.equal(key.body.prefix, key.body.key.slice(0, 15));
  assert.equal(key.body.name, 'billing app');
  assert.equal((await call(admin, 'POST', '/api/v1/organizations/nope/keys', {})).status, 404);

  const sender = await call(admin, 'POST', '/api/v1/organizations/acme/senders', { value: 'Acme.test' });
  assert.equal(sender.status, 201, sender.text);
  assert.deepEqual(sender.body, { kind: 'domain', value: 'acme.test' });
  assert.equal((await call(admin, 'POST', '/api/v1/organizations/acme/senders', { value: 'not a sender' })).status, 422);

  const quota = await call(admin, 'PATCH', '/api/v1/organizations/acme', { daily_quota: 1 });
  assert.equal(quota.status, 200, quota.text);
  assert.deepEqual(quota.body.daily_quota, { own: 1, limit: 1, used_today: 0 });
  assert.equal((await call(admin, 'PATCH', '/api/v1/organizations/acme', { daily_quota: -1 })).status, 422);

  // The namespaces whose alert rules may send as it: the whole list, each once, a child of a listed one dropped.
  const ns = await call(admin, 'PATCH', '/api/v1/organizations/acme', { namespaces: ['team-b', 'team-a.etl', 'team-a', 'team-b'] });
  assert.equal(ns.status, 200, ns.text);
  assert.deepEqual(ns.body.namespaces, ['team-a', 'team-b']);
  assert.equal(ns.body.daily_quota.own, 1, 'the quota is left as it was');
  for (const bad of [{ namespaces: ['Not/A/Namespace'] }, { namespaces: Array.from({ length: 101 }, (_, i) => `n${i}`) }, {}]) {
    const r = await call(admin, 'PATCH', '/api/v1/organizations/acme', bad);
    assert.equal(r.status, 422, JSON.stringify(bad));
  }
  const badName = await call(admin, 'PATCH', '/api/v1/organizations/acme', { namespaces: ['ok', 'UPPER'] });
  assert.ok(
    badName.body.error.details.some((d: { field: string }) => d.field.startsWith('namespaces')),
    badName.text,
  );
  assert.deepEqual((await call(admin, 'PATCH', '/api/v1/organizations/acme', { namespaces: ['team-a'] })).body.namespaces, ['team-a']);
  assert.equal((await call(admin, 'PATCH', '/api/v1/organizations/nope', { namespaces: ['team-a'] })).status, 404);

  // The key sends; past the quota of one, the next is refused.
  const send = (k: string) => call(k, 'POST', '/api/v1/emails', { from: 'Billing <billing@acme.test>', to: 'bob@example.test', subject: 'Invoice 7', text: 'secret body text' });
  assert.equal((await send(key.body.key)).status, 202);
  assert.equal((await send(key.body.key)).status, 429);

  const listed = await call(admin, 'GET', '/api/v1/organizations');
  assert.equal(listed.status, 200);
  const acme = listed.body.items[0];
  assert.equal(acme.daily_quota.used_today, 1);
  assert.deepEqual(acme.senders, [{ kind: 'domain', value: 'acme.test' }]);
  assert.deepEqual(
    acme.keys.map((k: { id: string; prefix: string; revoked_at: null }) => [k.id, k.prefix, k.revoked_at]),
    [[key.body.id, key.body.prefix, null]],
  );
  assert.ok(acme.keys[0].last_used_at, 'the key was used');

  const emails = await call(admin, 'GET', '/api/v1/organizations/acme/emails');
  assert.equal(emails.status, 200, emails.text);
  assert.equal(emails.body.items.length, 1);
  const e = emails.body.items[0];
  assert.deepEqual([e.key_id, e.from, e.to, e.subject, e.status, e.error], [key.body.id, 'Billing <billing@acme.test>', 'bob@example.test', 'Invoice 7', 'queued', '']);
  assert.ok(!('text' in e), 'the text is not shown');
  assert.equal((await call(admin, 'GET', '/api/v1/organizations/nope/emails')).status, 404);

  // Revoked: refused at once; a key of another organization is not found here.
  assert.equal((await call(admin, 'DELETE', `/api/v1/organizations/acme/keys/${key.body.id}`)).status, 204);
  assert.equal((await send(key.body.key)).status, 401);
  assert.equal((await call(admin, 'DELETE', '/api/v1/organizations/acme/keys/unknown')).status, 404);
  assert.equal((await call(admin, 'DELETE', '/api/v1/organizations/acme/senders/acme.test')).status, 204);
  assert.equal((await call(admin, 'DELETE', '/api/v1/organizations/acme/senders/acme.test')).status, 404);

  // The key itself only ever was in the create answer.
  const audit = await call(admin, 'GET', '/api/v1/audit?action=organization.*&limit=200');
  assert.deepEqual([...new Set(audit.body.items.map((a: { action: string }) => a.action))].sort(), [
    'organization.create',
    'organization.key_create',
    'organization.key_revoke',
    'organization.sender_add',
    'organization.sender_remove',
    'organization.update',
  ]);
  const changed = audit.body.items.find((a: { payload?: { namespaces?: string[] } }) => a.payload?.namespaces?.length === 1);
  assert.deepEqual(changed?.payload, { name: 'acme', namespaces_before: ['team-a', 'team-b'], namespaces: ['team-a'] }, 'the list before and after is audited');
  for (const text of [audit.text, (await call(admin, 'GET', '/api/v1/organizations')).text, JSON.stringify(gw.logs())]) assert.ok(!text.includes(key.body.key));
});

test('emails accepted in one millisecond (their time is the database clock at the queueing) page each once, newest first', async () => {
  const made = await call(admin, 'POST', '/api/v1/organizations', { name: 'paged' });
  assert.equal(made.status, 201, made.text);
  const ids = Array.from({ length: 12 }, (_, k) => `em-${String(k).padStart(2, '0')}`);
  await gw.db.pool.query(
    `INSERT INTO emails (id, organization_id, from_address, to_address, subject, text, created_at)
     SELECT id, $1, 'a@paged.test', 'b@example.test', id, 'body', at FROM unnest($2::text[], $3::timestamptz[]) AS e(id, at)`,
    [made.body.id, ids, ids.map((_, k) => sameMillisecond(k))],
  );
  const expected = (await gw.db.pool.query(`SELECT id FROM emails WHERE organization_id = $1 ORDER BY created_at DESC, id DESC`, [made.body.id])).rows.map((r) => r.id);
  await assertPagesEveryRow(gw, admin, '/api/v1/organizations/paged/emails', expected);
});
