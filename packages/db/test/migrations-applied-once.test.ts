import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { ADDITIVE_MARK, applyMigrations, loadMigrations, migrationStatus, type Migration } from '../src/migrate.js';
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

test('a newer build’s migrations are recorded additive or not by their `-- svc: additive` mark, and an older build reads which', async () => {
  const mine = loadMigrations();
  const add: Migration = {
    name: '99990201000000_add_a_table',
    sql: '-- svc: additive\n-- A table nothing older reads.\nCREATE TABLE upgrade_probe_a (id int);',
    checksum: 'a',
    additive: true,
  };
  const breaking: Migration = {
    name: '99990202000000_drop_a_column',
    sql: '-- Drops what older releases read.\nCREATE TABLE upgrade_probe_b (id int);',
    checksum: 'b',
    additive: false,
  };
  assert.equal(ADDITIVE_MARK.test(add.sql), true);
  assert.equal(ADDITIVE_MARK.test(breaking.sql), false);
  assert.equal(ADDITIVE_MARK.test('CREATE TABLE x (id int);\n-- svc: additive'), false, 'only the leading comment lines count');
  // The newer build applies its first migration: the older build (`mine`) sees it unknown and additive.
  assert.deepEqual(await applyMigrations(pool, [add]), [add.name]);
  let s = await migrationStatus(pool, mine);
  assert.ok(s.unknown.includes(add.name));
  assert.deepEqual(s.unknownAdditive, [add.name]);
  // Then one that is not marked: unknown, and not additive.
  assert.deepEqual(await applyMigrations(pool, [add, breaking]), [breaking.name]);
  s = await migrationStatus(pool, mine);
  assert.ok(s.unknown.includes(breaking.name));
  assert.deepEqual(s.unknownAdditive, [add.name]);
  await pool.query(`DELETE FROM "_prisma_migrations" WHERE migration_name LIKE '9999%'`);
  await pool.query(`DROP TABLE upgrade_probe_a, upgrade_probe_b`);
});
