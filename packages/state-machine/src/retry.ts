// Retry arithmetic of the flow's `retry` block. Pure: the engine adds the delay
// to its clock's now to set the next attempt's not_before.
import { assertNever } from '@svc/assert';

export interface BackoffPolicy {
  /** `fixed` waits `initialMs` every time; `exponential` doubles it per attempt up to `maxMs`. Default `fixed`. */
  backoff: 'fixed' | 'exponential';
  /** Delay after the first failed attempt, in ms. Default 10 s. */
  initialMs: number;
  /** Upper bound of an exponential delay, in ms. Default 10 min. */
  maxMs: number;
}

export interface AttemptPolicy {
  /** Attempts in all, counting the first (1 to 20). Default 1: no retry. */
  maxAttempts: number;
}

function checkAttempt(attempt: number): void {
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError(`attempt must be an integer >= 1, got ${attempt}`);
}

/** The wait before the attempt after `attempt` (the one that just failed, 1-based). */
export function retryDelayMs(policy: BackoffPolicy, attempt: number): number {
  checkAttempt(attempt);
  switch (policy.backoff) {
    case 'fixed':
      return policy.initialMs;
    case 'exponential':
      // The exponent is capped so 2^n stays finite (0 * Infinity would be NaN); maxMs caps the result anyway.
      return Math.min(policy.maxMs, policy.initialMs * 2 ** Math.min(attempt - 1, 1000));
    default:
      return assertNever(policy.backoff, 'backoff');
  }
}

/** Whether the task gets another attempt after `attempt` (1-based) failed or timed out. */
export function shouldRetry(policy: AttemptPolicy, attempt: number): boolean {
  checkAttempt(attempt);
  return attempt < policy.maxAttempts;
}
