export { Scheduler, type SchedulerDeps, type SchedulerLog, type SyncResult, type TickResult, type FireResult } from './scheduler.js';
export { decideFire, ON_TIME_MS, type CatchUp, type FireDecision } from './catch-up.js';
export { FireTimes, FireTimesCache, ZoneClock } from './fire-times.js';
export { BackfillAdvancer, BACKFILL_LABEL, IN_FLIGHT_STATES, type AdvanceResult, type BackfillAdvancerDeps } from './backfills.js';
