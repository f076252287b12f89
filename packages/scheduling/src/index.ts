// @svc/scheduling: the schedules of flows' schedule triggers, the markers of
// their fires and the backfills, with every statement that writes those
// tables (schedules, schedule_fires, backfills, backfill_runs). The scheduler
// app runs the loops; the gateway's routes and maintenance's retention call
// these functions.
export {
  selectChangedSchedules,
  upsertSchedules,
  deleteInactiveSchedules,
  triggerFingerprint,
  listUpcomingSchedules,
  type ScheduleSpec,
  type UpcomingSchedule,
  type UpcomingScheduleKey,
} from './schedules.js';
export { claimDueSchedules, insertScheduleFire, advanceSchedules, deleteSpentScheduleFires, type DueSchedule, type ScheduleAdvance } from './schedule-fires.js';
export {
  insertBackfill,
  getBackfill,
  listBackfills,
  listBackfillRuns,
  setBackfillState,
  cancelBackfill,
  recordRunOutcomes,
  deleteEndedBackfillRuns,
  deleteEndedBackfills,
  flowExists,
  scheduleTriggersOf,
  claimRunningBackfills,
  countBackfillRunsIn,
  pendingFireTimes,
  tryLockBackfillScope,
  countScopeRunsIn,
  backfillTriggerDefinition,
  recordBackfillRun,
  pauseClaimedBackfill,
  finishBackfill,
  touchBackfill,
  type ClaimedBackfillRow,
  type BackfillRow,
  type BackfillRunOutcome,
  type BackfillScheduleTrigger,
  type BackfillRunRow,
  type BackfillState,
  type NewBackfill,
} from './backfills.js';
export { backfillNamespace } from './backfills.js';
