export { startLeaseKeeper, MAINTENANCE_LEASE, LEASE_TTL_MS, LEASE_TICK_MS, type LeaseKeeper, type LeaseKeeperOptions } from './lease-keeper.js';
export { startWatchdog, watchdogOnce, WATCHDOG_MS, DEFAULT_HEARTBEAT_TIMEOUT_MS, type WatchdogDeps, type WatchdogResult } from './watchdog-loop.js';
export { startMaintenance, MAINTENANCE_CRON, type Maintenance, type MaintenanceOptions, type MaintenanceReport } from './maintenance.js';
export {
  runRetention,
  DEFAULT_EMAIL_RETENTION_DAYS,
  AUDIT_RETENTION_MS,
  INSTANCE_RETENTION_MS,
  LOGIN_ATTEMPT_RETENTION_MS,
  SCHEDULE_FIRE_MIN_RETENTION_MS,
  DEFAULT_BATCH_SIZE,
  type RetentionDeps,
  type RetentionResult,
} from './retention.js';
export {
  runStorageCleanupIfDue,
  cleanupStorage,
  readCleanupRecord,
  parseCleanupRecord,
  STORAGE_CLEANUP_SETTING,
  type StorageCleanupRecord,
  type CleanupOutcome,
} from './storage-cleanup.js';
export { BUNDLE_UNUSED_MS, CLEANUP_INTERVAL_MS, OBJECT_GRACE_MS, DEFAULT_SETTLE_MS, type CleanupDeps, type CleanupTally, type Removed } from './cleanup-context.js';
export { SWEPT_PREFIXES } from './object-sweep.js';
export { fileHashOf } from './file-sweep.js';
export { createMaintenanceMetrics, objectKind, type MaintenanceMetrics, type ObjectKind, type MaintenanceJob } from './metrics.js';
export { DbContact, DEFAULT_CONTACT_GAP_MS, type DbContactOptions } from './db-contact.js';
export { MailSender, isTemporary, smtpTransportOptions, MAX_ATTEMPTS, EMAIL_QUEUED_CHANNEL } from './mail-sender.js';
// Alerts are @svc/alerts'; maintenance runs them (serve.ts). Re-exported for the tests that drive them with maintenance.
export { AlertScanner, ALERT_QUEUED_CHANNEL, SETTLE_MS, AlertDeliverer, ALERT_MAX_ATTEMPTS, buildMessage, inScope, endEvent, channelTarget, ALERT_EVENTS } from '@svc/alerts';
export type { AlertScannerOptions, AlertDelivererOptions, AlertMessage, AlertChannel, AlertEvent, AlertRuleRow } from '@svc/alerts';
