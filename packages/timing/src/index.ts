export { DurationError, DURATION_PATTERN, formatDuration, parseDuration } from './duration.js';
export { CRON_MACROS, CronError, cronProblem, parseCron, type CronSchedule } from './cron.js';
export { isValidTimeZone } from './timezone.js';
export { wallClockCron, type WallClockCron } from './wall-clock.js';
export { FireTimes, FireTimesCache, ZoneClock } from './fire-times.js';
export { backoffCeiling, backoffDelay, pause, retryAfterMs, type BackoffPolicy } from './backoff.js';
