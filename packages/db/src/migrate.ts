// Services apply migrations themselves at start instead of shelling out to the
// Prisma CLI (whose native engine cannot be installed everywhere). The
// bookkeeping table and advisory lock key are Prisma's own, so `prisma migrate
// status` and this runner agree and never run at the same time.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';

/** Prisma Migrate's advisory lock key: holding it excludes the CLI too. */
const PRISMA_MIGRATE_LOCK = 72707369;

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
  /**
   * Marked `-- svc: additive` in its leading comment lines: it only adds what
   * the release before it ignores (tables, nullable or defaulted columns,
   * indexes, enum values it never reads), so that release may keep serving
   * traffic on the migrated database during a rolling upgrade.
   */
  additive: boolean;
}

/** `-- svc: additive` among the comment lines a migration starts with. */
export const ADDITIVE_MARK = /^(?:\s*--[^\n]*\n)*?\s*--\s*svc:\s*additive\b/;

export interface MigrationStatus {
  /** Migrations of this build that the database recorded as finished. */
  applied: string[];
  /** Migrations of this build the database has not recorded. */
  pending: string[];
  /** Migrations the database recorded that this build does not carry (a newer build ran). */
  unknown: string[];
  /** Migrations recorded as started but not finished. */
  failed: string[];
  /** Of `unknown`, those whose newer build recorded them as additive (`schema_migration_notes`). */
  unknownAdditive: string[];
}

export class MigrationError extends Error {
  constructor(
    readonly migration: string,
    cause: unknown,
  ) {
    super(`migration ${migration} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'MigrationError';
  }
}

/** The migrations directory this build carries (dist/migrations, or the repo's prisma/migrations from source). */
export function defaultMigrationsDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const built = path.resolve(here, 'migrations');
  if (fs.existsSync(built)) return built;
  return path.resolve(here, '../../../prisma/migrations');
}

export function loadMigrations(dir = defaultMigrationsDir()): Migration[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && fs.existsSync(path.join(dir, e.name, 'migration.sql')))
    .map((e) => e.name)
    .sort()
    .map((name) => {
      const sql = fs.readFileSync(path.join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: crypto.createHash('sha256').update(sql).digest('hex'), additive: ADDITIVE_MARK.test(sql) };
    });
}

const BOOKKEEPING_DDL = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

async function recorded(client: pg.ClientBase | pg.Pool): Promise<{ name: string; finished: boolean }[]> {
  const exists = await client.query<{ t: string | null }>(`SELECT to_regclass('"_prisma_migrations"') AS t`);
  if (!exists.rows[0]?.t) return [];
  const r = await client.query<{ migration_name: string; finished_at: Date | null; rolled_back_at: Date | null }>(
    `SELECT migration_name, finished_at, rolled_back_at FROM "_prisma_migrations"`,
  );
  return r.rows.filter((x) => !x.rolled_back_at).map((x) => ({ name: x.migration_name, finished: x.finished_at !== null }));
}

/** Compares the migrations of this build with those the database recorded. */
export async function migrationStatus(db: pg.Pool | pg.ClientBase, migrations = loadMigrations()): Promise<MigrationStatus> {
  const rows = await recorded(db);
  const finished = new Set(rows.filter((r) => r.finished).map((r) => r.name));
  const carried = new Set(migrations.map((m) => m.name));
  const unknown = [...finished].filter((n) => !carried.has(n)).sort();
  return {
    applied: migrations.filter((m) => finished.has(m.name)).map((m) => m.name),
    pending: migrations.filter((m) => !finished.has(m.name)).map((m) => m.name),
    unknown,
    failed: rows.filter((r) => !r.finished).map((r) => r.name),
    unknownAdditive: unknown.length ? await additiveOf(db, unknown) : [],
  };
}

/** Which of `names` were recorded as additive by the build that applied them (none before the notes table exists). */
async function additiveOf(db: pg.Pool | pg.ClientBase, names: string[]): Promise<string[]> {
  const exists = await db.query<{ t: string | null }>(`SELECT to_regclass('schema_migration_notes') AS t`);
  if (!exists.rows[0]?.t) return [];
  const r = await db.query<{ migration_name: string }>(
    `SELECT migration_name FROM schema_migration_notes WHERE additive AND migration_name = ANY($1::text[]) ORDER BY migration_name`,
    [names],
  );
  return r.rows.map((x) => x.migration_name);
}

/**
 * Applies every pending migration, each in its own transaction, under
 * Prisma's advisory lock so concurrent starts of many instances are safe.
 * Returns the names applied by this call.
 */
export async function applyMigrations(pool: pg.Pool, migrations = loadMigrations()): Promise<string[]> {
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [PRISMA_MIGRATE_LOCK]);
    await client.query(BOOKKEEPING_DDL);
    const done = new Set((await recorded(client)).filter((r) => r.finished).map((r) => r.name));
    for (const m of migrations) {
      if (done.has(m.name)) continue;
      try {
        await client.query('BEGIN');
        await client.query(m.sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count)
           VALUES ($1, $2, now(), $3, now(), 1)`,
          [crypto.randomUUID(), m.checksum, m.name],
        );
        // What older releases read to tell whether they may keep serving (from the migration that adds the table on).
        const notes = await client.query<{ t: string | null }>(`SELECT to_regclass('schema_migration_notes') AS t`);
        if (notes.rows[0]?.t) {
          await client.query(
            `INSERT INTO schema_migration_notes (migration_name, additive) VALUES ($1, $2)
             ON CONFLICT (migration_name) DO UPDATE SET additive = EXCLUDED.additive`,
            [m.name, m.additive],
          );
        }
        await client.query('COMMIT');
        applied.push(m.name);
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw new MigrationError(m.name, err);
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [PRISMA_MIGRATE_LOCK]).catch(() => undefined);
    client.release();
  }
  return applied;
}
