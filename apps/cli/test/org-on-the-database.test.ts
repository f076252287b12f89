// svc org (docs/using/emails.md): organizations and svc_live_ keys written on the
// database directly; the key is printed once and only its hash is stored.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import { startStack, svc, tempHome, type Stack } from './support.js';

let s: Stack;
const home = tempHome();
let env: Record<string, string>;

before(async () => {
  s = await startStack({ maintenance: false, dispatchers: 0 });
  env = { ...home.env, SVC_DATABASE_URL: (s.db as unknown as { options: { connectionString: string } }).options.connectionString };
});
after(async () => {
  await s.stop();
  home.cleanup();
});

test('svc org create, key create (printed once, stored hashed) and key revoke', async () => {
  const c = await svc(['org', 'create', 'acme'], { env });
  assert.equal(c.code, 0, c.stderr);
  const orgId = c.stdout.trim();
  assert.equal((await svc(['org', 'create', 'acme'], { env })).code, 1, 'names are unique');

  const k = await svc(['org', 'key', 'create', 'acme', '--name', 'mailer'], { env });
  assert.equal(k.code, 0, k.stderr);
  const key = k.stdout.trim();
  assert.match(key, /^svc_live_[0-9A-Za-z]{43}$/);
  const row = (await s.db.query(`SELECT id, organization_id, key_hash, prefix, name, revoked_at FROM organization_keys`)).rows[0];
  assert.equal(row.organization_id, orgId);
  assert.equal(row.key_hash, crypto.createHash('sha256').update(key).digest('hex'));
  assert.ok(key.startsWith(row.prefix));
  assert.equal(row.name, 'mailer');
  assert.equal(row.revoked_at, null);

  assert.equal((await svc(['org', 'key', 'create', 'nobody'], { env })).code, 1);
  const listed = await svc(['org', 'list', '-o', 'json'], { env });
  assert.equal(listed.code, 0, listed.stderr);
  const rows = JSON.parse(listed.stdout) as { organization: string; key_id: string; prefix: string; revoked_at: string | null }[];
  assert.deepEqual(
    rows.map((x) => [x.organization, x.key_id, x.prefix, x.revoked_at]),
    [['acme', row.id, row.prefix, null]],
  );
  assert.ok(!listed.stdout.includes(key), 'the key itself is never listed');
  const r = await svc(['org', 'key', 'revoke', row.id], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.notEqual((await s.db.query(`SELECT revoked_at FROM organization_keys WHERE id = $1`, [row.id])).rows[0].revoked_at, null);
});

test('svc org sender add/remove/list, quota set, show and list: senders, quota, use today and rate on the database', async () => {
  assert.equal((await svc(['org', 'create', 'mailco', '--rate-limit', '3'], { env })).code, 0);
  const add = async (v: string) => svc(['org', 'sender', 'add', 'mailco', v], { env });
  assert.equal((await add('MailCo.test')).code, 0);
  const a = await add('Billing@Partner.test');
  assert.equal(a.code, 0, a.stderr);
  assert.match(a.stderr, /Billing@partner\.test/);
  assert.equal((await add('MailCo.test')).code, 0, 'adding twice is a no-op');
  const bad = await add('*.mailco.test');
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /a domain .* or an address/);
  assert.equal((await svc(['org', 'sender', 'add', 'nobody', 'x.test'], { env })).code, 1);
  const senders = async () => JSON.parse((await svc(['org', 'sender', 'list', 'mailco', '-o', 'json'], { env })).stdout);
  assert.deepEqual(await senders(), [
    { kind: 'address', value: 'Billing@partner.test' },
    { kind: 'domain', value: 'mailco.test' },
  ]);
  assert.equal((await svc(['org', 'sender', 'remove', 'mailco', 'billing@partner.test'], { env })).code, 1, 'the local part matches exactly');
  assert.equal((await svc(['org', 'sender', 'remove', 'mailco', 'Billing@PARTNER.test'], { env })).code, 0);
  assert.deepEqual(await senders(), [{ kind: 'domain', value: 'mailco.test' }]);

  assert.equal((await svc(['org', 'quota', 'set', 'mailco', 'many'], { env })).code, 2);
  const q = await svc(['org', 'quota', 'set', 'mailco', '250'], { env });
  assert.equal(q.code, 0, q.stderr);
  const orgId = (await s.db.query(`SELECT id, daily_quota FROM organizations WHERE name = 'mailco'`)).rows[0];
  assert.equal(orgId.daily_quota, 250);
  await s.db.query(`INSERT INTO org_email_usage (organization_id, day, count) VALUES ($1, (now() AT TIME ZONE 'UTC')::date, 17)`, [orgId.id]);

  const shown = await svc(['org', 'show', 'mailco', '-o', 'json'], { env });
  assert.equal(shown.code, 0, shown.stderr);
  const o = JSON.parse(shown.stdout);
  assert.deepEqual(o.rate_limit, { per_second: 3, source: 'organization' });
  assert.deepEqual(o.daily_quota, { limit: 250, used_today: 17, remaining: 233, source: 'organization' });
  assert.deepEqual(o.senders, [{ kind: 'domain', value: 'mailco.test' }]);
  const table = await svc(['org', 'show', 'mailco'], { env });
  assert.match(table.stdout, /17 of 250 used today/);
  assert.match(table.stdout, /mailco\.test \(domain\)/);

  assert.equal((await svc(['org', 'quota', 'set', 'mailco', 'default'], { env: { ...env, SVC_ORG_DAILY_QUOTA: '5000' } })).code, 0);
  const listed = JSON.parse((await svc(['org', 'list', '-o', 'json'], { env: { ...env, SVC_ORG_DAILY_QUOTA: '5000' } })).stdout) as Record<string, unknown>[];
  const m = listed.find((r) => r.organization === 'mailco')!;
  assert.equal(m.daily_quota, null);
  assert.equal(m.effective_daily_quota, 5000);
  assert.equal(m.used_today, 17);
  assert.equal(m.effective_rate_limit, 3);
  assert.deepEqual(m.senders, ['mailco.test']);
});
