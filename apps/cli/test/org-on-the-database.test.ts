// svc org (decisions.md): organizations and svc_live_ keys written on the
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
  assert.deepEqual(rows.map((x) => [x.organization, x.key_id, x.prefix, x.revoked_at]), [['acme', row.id, row.prefix, null]]);
  assert.ok(!listed.stdout.includes(key), 'the key itself is never listed');
  const r = await svc(['org', 'key', 'revoke', row.id], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.notEqual((await s.db.query(`SELECT revoked_at FROM organization_keys WHERE id = $1`, [row.id])).rows[0].revoked_at, null);
});
