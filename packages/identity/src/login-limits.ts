// Failed-login limits counted in PostgreSQL, so they hold across every
// api-gateway instance: 10 failures for one email or 50 for one IP address
// within 15 minutes, then refusal until the oldest counted failure ages out.
import type pg from 'pg';
import { inTransaction } from '@svc/db';

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
  const row = r.rows[0];
  if (Number(row.n) < max || !row.nth) return 0;
  // Allowed again when fewer than `max` failures remain in the window: when the
  // max-th newest failure leaves it.
  return Math.max(1, Math.ceil((row.nth.getTime() + LOGIN_WINDOW_MS - now.getTime()) / 1000));
}

/**
 * Runs `attempt` unless a limit is reached, and records its outcome.
 *
 * The check and the record of the attempt happen first, in one short
 * transaction under per-email and per-IP advisory locks: the attempt is
 * counted as a failure from then on, and turned into a success after, if it
 * is one. So concurrent attempts for one email or IP are counted exactly
 * across instances, while the attempt itself (a user lookup and a bcrypt
 * comparison of tens of milliseconds) holds no connection: a burst of logins
 * can never take the pool's connections from each other or from the rest of
 * the API. An attempt that throws is not counted.
 */
export async function withLoginLimits<T extends { succeeded: boolean }>(
  pool: pg.Pool,
  who: { email: string; ip: string },
  now: () => Date,
  attempt: () => Promise<T>,
): Promise<{ refused: LimitVerdict } | { result: T }> {
  const reserved = await inTransaction(pool, async (c): Promise<{ refused: LimitVerdict } | { id: string }> => {
    await c.query(`SELECT pg_advisory_xact_lock(hashtextextended('login-email:' || $1, 0)), pg_advisory_xact_lock(hashtextextended('login-ip:' || $2, 0))`, [who.email, who.ip]);
    const t = now();
    const wait = Math.max(await windowState(c, 'email', who.email, t, MAX_FAILURES_PER_EMAIL), await windowState(c, 'ip', who.ip, t, MAX_FAILURES_PER_IP));
    if (wait > 0) return { refused: { retryAfterSeconds: wait } };
    const r = await c.query<{ id: string }>(`INSERT INTO login_attempts (email, ip, succeeded, at) VALUES ($1, $2, false, $3) RETURNING id`, [who.email, who.ip, t]);
    return { id: r.rows[0].id };
  });
  if ('refused' in reserved) return reserved;
  let result: T;
  try {
    result = await attempt();
  } catch (err) {
    await pool.query(`DELETE FROM login_attempts WHERE id = $1`, [reserved.id]).catch(() => undefined);
    throw err;
  }
  if (result.succeeded) await pool.query(`UPDATE login_attempts SET succeeded = true WHERE id = $1`, [reserved.id]);
  return { result };
}
