// Waiting for PostgreSQL at start. A service or the migrate command started
// together with its database (Compose, a Kubernetes rollout, a host reboot)
// may find it not listening yet, its name not in DNS yet, or still starting
// up or recovering. Those go away by themselves: they are retried, with a
// growing pause, until SVC_DATABASE_WAIT has passed. Anything else (a wrong
// password, a missing database, a refused TLS setting) does not go away, and
// ends the wait at once.
import type pg from 'pg';
import { backoffDelay, pause } from '@svc/timing/backoff';

/** Node's socket and resolver codes of a database that is not reachable yet. */
const TRANSIENT_SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);
/**
 * PostgreSQL's codes of a server that is there but cannot take the session
 * yet: cannot_connect_now (starting up, shutting down, in recovery),
 * too_many_connections, and the connection_exception class (08...).
 */
const TRANSIENT_SQLSTATES = new Set(['57P03', '53300']);

/** Whether connecting again later may succeed where `err` failed. */
export function isTransientConnectError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') {
    // pg's own "Connection terminated unexpectedly" (the server closed the socket while starting) has no code.
    return err instanceof Error && /Connection terminated/.test(err.message);
  }
  return TRANSIENT_SOCKET_CODES.has(code) || TRANSIENT_SQLSTATES.has(code) || code.startsWith('08');
}

export interface WaitForDatabaseOptions {
  /** How long to keep trying; 0 tries once. */
  timeoutMs: number;
  /** Called before each pause with the error of the attempt that failed and the time waited so far. */
  onRetry?: (err: unknown, waitedMs: number) => void;
  /** First pause; it doubles up to `maxPauseMs`. Default 250 ms. */
  firstPauseMs?: number;
  /** Longest pause. Default 2 s. */
  maxPauseMs?: number;
}

/**
 * Resolves once the pool runs a query; retries transient connection failures
 * until `timeoutMs` has passed, then rejects with the last error, as it does
 * at once with any other error.
 */
export async function waitForDatabase(pool: pg.Pool, opts: WaitForDatabaseOptions): Promise<void> {
  const started = Date.now();
  // Full jitter (@svc/timing): the instances started together with the database do not knock in step.
  const policy = { firstMs: opts.firstPauseMs ?? 250, maxMs: opts.maxPauseMs ?? 2000 };
  for (let attempt = 1; ; attempt++) {
    try {
      await pool.query('SELECT 1');
      return;
    } catch (err) {
      const waited = Date.now() - started;
      if (!isTransientConnectError(err) || waited >= opts.timeoutMs) throw err;
      opts.onRetry?.(err, waited);
      await pause(Math.min(backoffDelay(attempt, policy), Math.max(0, opts.timeoutMs - waited)));
    }
  }
}
