// Migration 20261206140000_organization_namespaces on a database that
// already holds organizations and alert rules: each organization is given
// exactly the namespaces of the rules whose email channels name it (so they
// keep sending after the upgrade), an organization no rule names allows
// none, and webhook and Slack channels, and rules naming an organization
// that does not exist, give nothing to anyone.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type pg from 'pg';
import { newId } from '../src/index.js';
import { applyMigrations, loadMigrations } from '../src/migrate.js';
import { createEmptyTestDatabase } from '../src/testing.js';

const MIGRATION = '20261206140000_organization_namespaces';

let db: Awaited<ReturnType<typeof createEmptyTestDatabase>>;
let p: pg.Pool;

before(async () => {
  db = await createEmptyTestDatabase();
  p = db.pool;
});
after(() => db.drop());

test('each organization keeps the namespaces of the rules already sending as it, and no other', async () => {
  const all = loadMigrations();
  const at = all.findIndex((m) => m.name === MIGRATION);
  assert.ok(at > 0, `${MIGRATION} is carried by the build`);
  await applyMigrations(p, all.slice(0, at));

  for (const name of ['acme', 'idle', 'hooks-only']) await p.query(`INSERT INTO organizations (id, name) VALUES ($1, $2)`, [newId(), name]);
  const email = (organization: string) => ({ type: 'email', organization, from: 'a@acme.test', to: 'b@example.test' });
  const hook = { type: 'webhook', url: 'https://hooks.example.test/x', signing_secret: 'K' };
  const rule = (namespace: string, channels: unknown[]) =>
    p.query(`INSERT INTO alert_rules (id, name, namespace, events, channels, created_by) VALUES ($1, 'r', $2, '{failed}', $3, 'test')`, [
      newId(),
      namespace,
      JSON.stringify(channels),
    ]);
  await rule('team-a', [hook, email('acme')]);
  await rule('team-b.etl', [email('acme'), email('acme')]);
  await rule('team-a', [email('acme')]);
  await rule('team-c', [hook, { type: 'slack', url_secret: 'S' }]);
  await rule('team-d', [email('ghost')]);

  assert.deepEqual(await applyMigrations(p, all.slice(0, at + 1)), [MIGRATION]);
  const rows = await p.query<{ name: string; namespaces: string[] }>(`SELECT name, namespaces FROM organizations ORDER BY name`);
  assert.deepEqual(rows.rows, [
    { name: 'acme', namespaces: ['team-a', 'team-b.etl'] },
    { name: 'hooks-only', namespaces: [] },
    { name: 'idle', namespaces: [] },
  ]);
  // A new organization allows none.
  await p.query(`INSERT INTO organizations (id, name) VALUES ($1, 'new')`, [newId()]);
  assert.deepEqual((await p.query(`SELECT namespaces FROM organizations WHERE name = 'new'`)).rows[0].namespaces, []);
});
