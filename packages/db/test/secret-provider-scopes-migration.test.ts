// Migration 20261206101000_secret_provider_scopes on a database that already
// holds secret providers and flows: each provider serves exactly
// the namespaces whose current flows refer to it (`secret('<name>:...')`,
// single or double quotes), so working flows keep working and no other
// namespace keeps it; a provider no current flow names (a deleted flow, an
// older revision, a look-alike name) serves none. The namespaces migration
// before it leaves every namespace with no allowed callers.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type pg from 'pg';
import { newId } from '../src/index.js';
import { applyMigrations, loadMigrations } from '../src/migrate.js';
import { createEmptyTestDatabase } from '../src/testing.js';

const MIGRATION = '20261206101000_secret_provider_scopes';

let db: Awaited<ReturnType<typeof createEmptyTestDatabase>>;
let p: pg.Pool;

before(async () => {
  db = await createEmptyTestDatabase();
  p = db.pool;
});
after(() => db.drop());

/** A flow whose revisions have these sources, the last one current; `deleted` marks the flow deleted. */
async function flowWith(namespace: string, flowId: string, sources: string[], deleted = false): Promise<void> {
  await p.query(`INSERT INTO namespaces (name) VALUES ($1) ON CONFLICT DO NOTHING`, [namespace]);
  await p.query(`INSERT INTO flows (namespace, flow_id, path, deleted_at) VALUES ($1, $2, $3, $4)`, [namespace, flowId, `${flowId}.flow.yaml`, deleted ? new Date() : null]);
  let current = '';
  for (const [i, source] of sources.entries()) {
    current = newId();
    await p.query(`INSERT INTO flow_revisions (id, namespace, flow_id, revision, source_yaml, definition, hash) VALUES ($1, $2, $3, $4, $5, '{}', $6)`, [
      current,
      namespace,
      flowId,
      i + 1,
      source,
      `h${i}`,
    ]);
  }
  await p.query(`UPDATE flows SET current_revision_id = $3 WHERE namespace = $1 AND flow_id = $2`, [namespace, flowId, current]);
}

test('an existing provider serves the namespaces whose current flows refer to it, and no other', async () => {
  const all = loadMigrations();
  const at = all.findIndex((m) => m.name === MIGRATION);
  assert.ok(at > 0, `${MIGRATION} is carried by the build`);
  await applyMigrations(p, all.slice(0, at));

  for (const name of ['vault', 'env', 'idle', 'vaultx']) await p.query(`INSERT INTO secret_providers (name, type) VALUES ($1, 'env')`, [name]);
  await flowWith('team-a', 'etl', [`env: { T: "{{ secret('vault:team-a/db#password') }}" }`]);
  await flowWith('team-b.etl', 'load', [`env:\n  T: '{{ secret( "vault:b/db") }}'\n  U: "{{ secret('env:TOKEN') }}"`]);
  await flowWith('team-c', 'gone', [`{{ secret('idle:x') }}`], true);
  await flowWith('team-d', 'changed', [`{{ secret('idle:x') }}`, 'no reference any more']);
  await flowWith('team-e', 'builtin', [`{{ secret('DB_PASSWORD') }} vaultx mentioned, {{ secret('vault') }}`]);
  assert.deepEqual((await p.query(`SELECT allowed_callers FROM namespaces WHERE name = 'team-a'`)).rows[0].allowed_callers, [], 'no namespace allows callers');

  assert.deepEqual(await applyMigrations(p, all.slice(0, at + 1)), [MIGRATION]);
  const rows = await p.query<{ name: string; namespaces: string[] }>(`SELECT name, namespaces FROM secret_providers ORDER BY name`);
  assert.deepEqual(rows.rows, [
    { name: 'env', namespaces: ['team-b.etl'] },
    { name: 'idle', namespaces: [] },
    { name: 'vault', namespaces: ['team-a', 'team-b.etl'] },
    { name: 'vaultx', namespaces: [] },
  ]);
  // A new provider serves none.
  await p.query(`INSERT INTO secret_providers (name, type) VALUES ('new', 'env')`);
  assert.deepEqual((await p.query(`SELECT namespaces FROM secret_providers WHERE name = 'new'`)).rows[0].namespaces, []);
});
