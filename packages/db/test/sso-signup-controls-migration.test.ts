// Migration 20261206120000_sso_signup_controls on a database that already
// holds single sign-on settings: the stored default_role stays what it was
// (`viewer`, the column default of the time), the sign-up controls come in
// off, and only settings written afterwards default to `none`.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type pg from 'pg';
import { applyMigrations, loadMigrations } from '../src/migrate.js';
import { createEmptyTestDatabase } from '../src/testing.js';

const MIGRATION = '20261206120000_sso_signup_controls';

let db: Awaited<ReturnType<typeof createEmptyTestDatabase>>;
let p: pg.Pool;

before(async () => {
  db = await createEmptyTestDatabase();
  p = db.pool;
});
after(() => db.drop());

test('stored settings keep their default_role; new settings default to none with every control off', async () => {
  const all = loadMigrations();
  const at = all.findIndex((m) => m.name === MIGRATION);
  assert.ok(at > 0, `${MIGRATION} is carried by the build`);
  await applyMigrations(p, all.slice(0, at));
  // Written as the gateway of the time wrote it, default_role left to its column default.
  await p.query(
    `INSERT INTO sso_settings (id, display_name, issuer_url, client_id, client_secret_secret) VALUES ('oidc', 'IdP', 'https://idp.example.com', 'svc', 'oidc_client_secret')`,
  );
  await p.query(`INSERT INTO users (id, email, password_hash, role) VALUES ('u1', 'u1@example.com', 'x', 'viewer')`);
  await p.query(`INSERT INTO sessions (id, user_id, token_hash, expires_at) VALUES ('s1', 'u1', 'h1', now() + interval '1 hour')`);
  assert.deepEqual(await applyMigrations(p, all.slice(0, at + 1)), [MIGRATION]);

  const row = (await p.query(`SELECT * FROM sso_settings WHERE id = 'oidc'`)).rows[0];
  assert.deepEqual(
    [row.default_role, row.link_by_email, row.allowed_email_domains, row.google_hd, row.entra_tid, row.existing_users_only, row.session_max_age_seconds],
    ['viewer', false, [], '', '', false, null],
  );
  assert.equal((await p.query(`SELECT max_expires_at FROM sessions WHERE id = 's1'`)).rows[0].max_expires_at, null, 'existing sessions have no cap');
  await p.query(`DELETE FROM sso_settings`);
  await p.query(
    `INSERT INTO sso_settings (id, display_name, issuer_url, client_id, client_secret_secret) VALUES ('oidc', 'IdP', 'https://idp.example.com', 'svc', 'oidc_client_secret')`,
  );
  assert.equal((await p.query(`SELECT default_role FROM sso_settings`)).rows[0].default_role, 'none');
});
