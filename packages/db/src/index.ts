export { createDb, prismaOf, survivesConnectionLoss, Prisma, PrismaClient, type Db, type DbOptions, type PrismaDb } from './client.js';
export { newId } from './ids.js';
export { isTransientConnectError, waitForDatabase, type WaitForDatabaseOptions } from './wait.js';
export { applyMigrations, defaultMigrationsDir, loadMigrations, migrationStatus, MigrationError, type Migration, type MigrationStatus } from './migrate.js';
// The embedded cluster itself is a separate entry (`@svc/db/embedded`): see embedded.ts.
export { readEmbeddedConnection, EMBEDDED_INFO_FILE, type EmbeddedConnectionInfo } from './embedded-info.js';
export type { Queryable } from './sql/queryable.js';
export * from './sql/leases.js';
export * from './sql/instances.js';
export {
  selectChangedSchedules,
  upsertSchedules,
  deleteInactiveSchedules,
  deleteOrphanWebhookKeys,
  triggerFingerprint,
  listUpcomingSchedules,
  type ScheduleSpec,
  type UpcomingSchedule,
  type UpcomingScheduleKey,
} from './sql/schedules.js';
export { claimDueSchedules, insertScheduleFire, advanceSchedules, deleteSpentScheduleFires, type DueSchedule, type ScheduleAdvance } from './sql/schedule-fires.js';
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
} from './sql/backfills.js';
export { startPostgresKeeper, type KeptPostgres, type KeeperOptions } from './keeper-client.js';
export { inTransaction } from './transaction.js';
export { pipeline } from './pipeline.js';
export { Notifier, type NotifierOptions, type NotifierLog, type NotificationHandler } from './notifier.js';
export { readSetting } from './settings.js';
export {
  GIT_SYNC_CHANNEL,
  gitSourceLease,
  selectDueGitSources,
  requestGitSync,
  claimGitSource,
  insertRunningGitSyncRun,
  finishGitSyncRun,
  recordGitSourceOutcome,
  type GitSyncRunRow,
  type GitSourceClaim,
} from './sql/git-sync.js';
export { lockAndCountAlertRules } from './sql/alert-rules.js';
