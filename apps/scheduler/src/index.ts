export { Scheduler, type SchedulerDeps, type SchedulerLog, type SyncResult, type TickResult, type FireResult } from './scheduler.js';
export { decideFire, ON_TIME_MS, type CatchUp, type FireDecision } from './catch-up.js';
export { FireTimes, FireTimesCache, ZoneClock } from './fire-times.js';
