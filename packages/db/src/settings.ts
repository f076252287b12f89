// Service-wide settings (table `settings`): one text value per key.
import type pg from 'pg';
import { prismaOf, type PrismaDb } from './client.js';
import type { Queryable } from './sql/queryable.js';

/** The value of a setting; undefined when it was never written. */
export async function readSetting(db: pg.Pool | PrismaDb, key: string): Promise<string | undefined> {
  return (await prismaOf(db).setting.findUnique({ where: { key }, select: { value: true } }))?.value;
}

/** The value of a setting through hand-written SQL (a client in a transaction too); null when it was never written. */
export async function readSettingValue(db: Queryable, key: string): Promise<string | null> {
  const r = await db.query<{ value: string }>(`SELECT value FROM settings WHERE key = $1`, [key]);
  return r.rows[0]?.value ?? null;
}

/**
 * Writes `value` only when the setting still holds `expected` (null: absent).
 * Two instances deciding from the same old value: exactly one wins.
 */
export async function compareAndSetSetting(db: Queryable, key: string, expected: string | null, value: string): Promise<boolean> {
  const r =
    expected === null
      ? await db.query(`INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING`, [key, value])
      : await db.query(`UPDATE settings SET value = $3 WHERE key = $1 AND value = $2`, [key, expected, value]);
  return r.rowCount === 1;
}

export async function writeSetting(db: Queryable, key: string, value: string): Promise<void> {
  await db.query(`INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`, [key, value]);
}
