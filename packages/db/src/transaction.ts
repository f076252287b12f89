import type pg from 'pg';

/** Runs `fn` in a transaction (READ ONLY with `readOnly`) on one pooled connection: COMMIT on success, ROLLBACK on any error. */
export async function inTransaction<T>(
  pool: pg.Pool,
  fn: (c: pg.PoolClient) => Promise<T>,
  /** `fnBegins`: `fn` sends BEGIN itself (in a pipeline with its first statements); it is committed or rolled back here all the same. */
  opts: { readOnly?: boolean; fnBegins?: boolean } = {},
): Promise<T> {
  const c = await pool.connect();
  try {
    if (!opts.fnBegins) await c.query(opts.readOnly ? 'BEGIN READ ONLY' : 'BEGIN');
    const out = await fn(c);
    await c.query('COMMIT');
    return out;
  } catch (err) {
    await c.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    c.release();
  }
}
