/** A dispatcher is online while its heartbeat is at most this old (spec: 60 s). */
export const INSTANCE_ONLINE_MS = 60_000;
/** A task run with no runner report this long after its timeout is ended TIMED_OUT (spec: 60 s). */
export const TIMEOUT_GRACE_MS = 60_000;
/** Default task timeout (spec: 24h). */
export const DEFAULT_TASK_TIMEOUT_MS = 24 * 3600_000;
/** Subflows nested deeper than this fail instead of starting (runaway recursion). */
export const MAX_CHAIN_DEPTH = 10;
/** Retry defaults (spec): max_attempts 1, fixed backoff, initial 10s, max 10m. */
export const RETRY_DEFAULTS = { maxAttempts: 1, backoff: 'fixed' as const, initialMs: 10_000, maxMs: 600_000 };
