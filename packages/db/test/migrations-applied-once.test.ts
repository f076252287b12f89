import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { applyMigrations, loadMigrations, migrationStatus } from '../src/migrate.js';
import { createTestDatabase, type TestDatabase } from '../src/testing.js';

let tdb: TestDatabase;
let pool: pg.Pool;

before(async () => {
  tdb = await createTestDatabase();
  pool = new pg.Pool({ connectionString: tdb.url, max: 4 });
  pool.on('error', () => undefined);
});
after(async () => {
  await pool.end();
  await tdb.drop();
});

test('the build carries at least one migration and the template has all of them', async () => {
  const migrations = loadMigrations();
  assert.ok(migrations.length >= 1);
  const s = await migrationStatus(pool);
  assert.deepEqual(s.pending, []);
  assert.deepEqual(s.unknown, []);
  assert.deepEqual(
    s.applied,
    migrations.map((m) => m.name),
  );
});

test('applying again is a no-op, even from several callers at once', async () => {
  const results = await Promise.all([applyMigrations(pool), applyMigrations(pool), applyMigrations(pool)]);
  assert.deepEqual(results, [[], [], []]);
});

test('a migration recorded by a newer build shows as unknown, a missing one as pending', async () => {
  await pool.query(
    `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count)
     VALUES ('x', 'y', now(), '99990101000000_from_the_future', now(), 1)`,
  );
  const first = loadMigrations()[0]!;
  await pool.query(`DELETE FROM "_prisma_migrations" WHERE migration_name = $1`, [first.name]);
  const s = await migrationStatus(pool);
  assert.deepEqual(s.unknown, ['99990101000000_from_the_future']);
  assert.deepEqual(s.pending, [first.name]);
});

test('a fresh database gets every migration applied, with Prisma-compatible checksums', async () => {
  const fresh = `${tdb.name}_fresh`;
  const admin = new pg.Client({ connectionString: tdb.adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${fresh}`);
  const u = new URL(tdb.url);
  u.pathname = `/${fresh}`;
  const p = new pg.Pool({ connectionString: u.toString(), max: 2 });
  p.on('error', () => undefined); // DROP ... WITH (FORCE) below may race the pool's own disconnects
  try {
    const applied = await applyMigrations(p);
    assert.deepEqual(
      applied,
      loadMigrations().map((m) => m.name),
    );
    const r = await p.query(`SELECT migration_name, checksum FROM "_prisma_migrations" ORDER BY migration_name`);
    assert.deepEqual(
      r.rows.map((x) => x.checksum),
      loadMigrations().map((m) => m.checksum),
    );
    const tables = await p.query(`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public'`);
    assert.ok(tables.rows[0].n > 20, `expected the domain tables, got ${tables.rows[0].n}`);
  } finally {
    await p.end();
    await admin.query(`DROP DATABASE ${fresh} WITH (FORCE)`);
    await admin.end();
  }
});
