// Service-wide settings shared by every instance (the `settings` table).

/** Writes setting $1 = $2 unless it exists (the first instance's value wins). */
export const INSERT_SETTING_SQL = `INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING`;

/** The value of setting $1. */
export const SETTING_SQL = `SELECT value FROM settings WHERE key = $1`;
