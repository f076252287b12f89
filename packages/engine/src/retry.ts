// Retrying the dispatcher's writes that must not be lost to one transient
// database or object-store error: a task run's end, its log batches and its
// artifacts. Each of them is idempotent (the end acts only while the run is
// RUNNING, log lines are keyed by (task_run_id, n), artifacts by
// (task_run_id, kind, name)), so a write that failed after it took effect is
// harmless to repeat. The pauses are @svc/timing's backoff (full jitter), so
// the dispatchers of a database that failed over do not all return at once.
import { backoffDelay, pause } from '@svc/timing/backoff';

/** Ceiling of the first pause after a failure; it doubles up to {@link RETRY_MAX_BACKOFF_MS}. */
export const RETRY_INITIAL_BACKOFF_MS = 200;
/** Largest ceiling of a pause between two attempts. */
export const RETRY_MAX_BACKOFF_MS = 5_000;
/**
 * How long log batches and artifacts are retried before they are given up
 * (as the runner's HTTP transport does): long enough to ride out a database
 * restart or failover.
 */
export const IO_RETRY_FOR_MS = 60_000;

export class RetriesExhaustedError extends Error {
  constructor(
    readonly what: string,
    readonly attempts: number,
    options: { cause: unknown },
  ) {
    super(`${what}: gave up after ${attempts} attempts: ${options.cause instanceof Error ? options.cause.message : String(options.cause)}`, options);
    this.name = 'RetriesExhaustedError';
  }
}

export interface RetryOptions {
  /** Names the operation in errors and logs. */
  what: string;
  /** Stop retrying after this long (the last error is thrown). Default: no limit. */
  forMs?: number;
  /** Stop retrying once aborted (after at least one attempt). Default: none. */
  signal?: AbortSignal;
  /** Told about each failed attempt that will be retried. */
  onRetry?: (err: unknown, attempt: number, delayMs: number) => void;
  /** Ceiling of the first pause. Default {@link RETRY_INITIAL_BACKOFF_MS}. */
  initialBackoffMs?: number;
  /** Largest ceiling of a pause. Default {@link RETRY_MAX_BACKOFF_MS}. */
  maxBackoffMs?: number;
}

/** Runs `fn` until it resolves, pausing with capped exponential backoff and full jitter between failures. */
export async function withRetry<T>(fn: () => Promise<T>, o: RetryOptions): Promise<T> {
  const deadline = o.forMs === undefined ? Infinity : Date.now() + o.forMs;
  const policy = { firstMs: o.initialBackoffMs ?? RETRY_INITIAL_BACKOFF_MS, maxMs: o.maxBackoffMs ?? RETRY_MAX_BACKOFF_MS };
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      const delay = backoffDelay(attempt, policy);
      if (o.signal?.aborted || Date.now() + delay > deadline) throw new RetriesExhaustedError(o.what, attempt, { cause: err });
      o.onRetry?.(err, attempt, delay);
      await pause(delay, o.signal);
    }
  }
}
