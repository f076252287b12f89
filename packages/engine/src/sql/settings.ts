// Service-wide settings shared by every instance (the `settings` table).
import type { Queryable } from '@svc/db';

/** Writes setting `key` = `value` unless it exists (the first instance's value wins). */
export async function insertSetting(db: Queryable, p: { key: string; value: string }): Promise<void> {
  await db.query(`INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING`, [p.key, p.value]);
}

/** The value of setting `key`. */
export async function setting(db: Queryable, p: { key: string }): Promise<string> {
  return (await db.query<{ value: string }>(`SELECT value FROM settings WHERE key = $1`, [p.key])).rows[0].value;
}
