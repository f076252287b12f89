// The one backoff of every retry loop (the engine's writes, the runner's
// requests, the database wait and LISTEN connection, the clients' event
// streams): exponential growth with full jitter, so that many clients that
// failed together (the runners of a gateway that restarted, the dispatchers
// after a database failover) come back spread over the whole pause rather than
// in step, and a server's Retry-After as the earliest moment to come back.
// Browser-safe: no Node API.

export interface BackoffPolicy {
  /** The ceiling of the first pause; each further failure doubles it. */
  firstMs: number;
  /** The largest ceiling. */
  maxMs: number;
  /**
   * How much of each pause is random: 1 (full jitter, the default) draws the
   * pause anywhere in [0, ceiling]; 0.5 in [ceiling/2, ceiling]; 0 none.
   */
  jitter?: number;
}

/** The ceiling of pause number `attempt` (from 1): `firstMs` doubled per attempt, capped at `maxMs`. */
export function backoffCeiling(attempt: number, policy: BackoffPolicy): number {
  // The exponent is bounded so a loop retried for days does not overflow before the cap.
  return Math.min(policy.maxMs, policy.firstMs * 2 ** Math.min(Math.max(attempt - 1, 0), 30));
}

/**
 * The pause before retry number `attempt` (from 1). With `retryAfterMs` (what
 * the server asked for), the pause is at least that, plus a jittered share of
 * the backoff, so clients told the same Retry-After do not return together.
 * @param random a number in [0, 1); default Math.random (tests pass their own).
 */
export function backoffDelay(attempt: number, policy: BackoffPolicy, retryAfterMs?: number, random: () => number = Math.random): number {
  const ceiling = backoffCeiling(attempt, policy);
  const jitter = Math.min(Math.max(policy.jitter ?? 1, 0), 1);
  const pause = ceiling * (1 - jitter) + ceiling * jitter * random();
  return Math.round(retryAfterMs !== undefined && retryAfterMs > 0 ? retryAfterMs + pause : pause);
}

/**
 * A Retry-After header's value in milliseconds: delay-seconds or an HTTP date
 * (RFC 9110 10.2.3); undefined when absent or unreadable, 0 for a date past.
 * @param now the clock the date is read against; default Date.now().
 */
export function retryAfterMs(header: string | null | undefined, now: number = Date.now()): number | undefined {
  if (header == null) return undefined;
  const v = header.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  // An IMF-fixdate (or the obsolete forms) names a weekday or a month: a bare number like "-3" is not a date.
  if (!/[A-Za-z]{3}/.test(v)) return undefined;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}
