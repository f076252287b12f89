// Failed-login limits counted in PostgreSQL, so they hold across every
// api-gateway instance: 10 failures for one email or 50 for one IP address
// within 15 minutes, then refusal until the oldest counted failure ages out.
import type pg from 'pg';

export const LOGIN_WINDOW_MS = 15 * 60_000;
export const MAX_FAILURES_PER_EMAIL = 10;
export const MAX_FAILURES_PER_IP = 50;

export interface LimitVerdict {
  /** Seconds until another attempt is allowed; 0 when allowed now. */
  retryAfterSeconds: number;
}

async function windowState(c: pg.PoolClient, column: 'email' | 'ip', value: string, now: Date, max: number): Promise<number> {
  const since = new Date(now.getTime() - LOGIN_WINDOW_MS);
  const r = await c.query<{ n: string; oldest: Date | null; nth: Date | null }>(
    `SELECT count(*) AS n, min(at) AS oldest,
            (SELECT at FROM login_attempts WHERE ${column} = $1 AND NOT succeeded AND at > $2 ORDER BY at DESC OFFSET $3 - 1 LIMIT 1) AS nth
     FROM login_attempts WHERE ${column} = $1 AND NOT succeeded AND at > $2`,
    [value, since, max],
  );
  const row = r.rows[0]!;
  if (Number(row.n) < max || !row.nth) return 0;
  // Allowed again when fewer than `max` failures remain in the window: when the
  // max-th newest failure leaves it.
  return Math.max(1, Math.ceil((row.nth.getTime() + LOGIN_WINDOW_MS - now.getTime()) / 1000));
}

/**
 * Runs `attempt` under per-email and per-IP advisory locks, refusing it when
 * a limit is reached, and records its outcome. Concurrent attempts for one
 * email or IP are serialized, so the limit is exact even across instances.
 */
export async function withLoginLimits<T extends { succeeded: boolean }>(
  pool: pg.Pool,
  who: { email: string; ip: string },
  now: () => Date,
  attempt: () => Promise<T>,
): Promise<{ refused: LimitVerdict } | { result: T }> {
  const c = await pool.connect();
  try {
    await c.query('BEGIN');
    await c.query(`SELECT pg_advisory_xact_lock(hashtextextended('login-email:' || $1, 0)), pg_advisory_xact_lock(hashtextextended('login-ip:' || $2, 0))`, [who.email, who.ip]);
    const t = now();
    const wait = Math.max(await windowState(c, 'email', who.email, t, MAX_FAILURES_PER_EMAIL), await windowState(c, 'ip', who.ip, t, MAX_FAILURES_PER_IP));
    if (wait > 0) {
      await c.query('COMMIT');
      return { refused: { retryAfterSeconds: wait } };
    }
    const result = await attempt();
    await c.query(`INSERT INTO login_attempts (email, ip, succeeded, at) VALUES ($1, $2, $3, $4)`, [who.email, who.ip, result.succeeded, now()]);
    await c.query('COMMIT');
    return { result };
  } catch (err) {
    await c.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    c.release();
  }
}
