// Small JSON records of the maintenance work in the `settings` table.
import type { Queryable } from '@svc/db';

export async function readSetting(db: Queryable, key: string): Promise<string | null> {
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
