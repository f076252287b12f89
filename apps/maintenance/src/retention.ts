// Retention (spec, Limits): what the lease holder deletes every hour.
//
// | Data                                                        | Kept                         |
// |-------------------------------------------------------------|------------------------------|
// | Ended executions, task runs, logs, metrics, artifacts, AI   | SVC_RETENTION_DAYS after end |
// | AI usage counters (`ai_usage`, per user and UTC day)        | SVC_RETENTION_DAYS after day |
// | Audit events                                                | 365 days                     |
// | Instance rows without heartbeat                             | 24 hours                     |
// | Login attempts                                              | 24 hours                     |
// | Organization emails (any status), daily quota counters      | SVC_EMAIL_RETENTION_DAYS     |
// | Alert deliveries no longer tried, with their attempts       | SVC_RETENTION_DAYS           |
// | Ended backfills (cancelled, done), with their fire times    | SVC_RETENTION_DAYS after end |
// | Uploads (file inputs) and their objects                     | until they expire (24 hours) |
// | Expired sessions                                            | until the next run           |
// | Git sync runs                                               | never deleted                |
// | Schedule fire markers (`schedule_fires`)                    | see below                    |
// | Flow trigger markers (`flow_trigger_firings`)               | as their upstream execution  |
//
// The two marker tables make each schedule fire time and each flow trigger
// firing happen exactly once, so a marker goes only when nothing can try that
// fire again:
// - a `schedule_fires` row when its fire time is older than
//   SVC_RETENTION_DAYS (and at least a day: a tick only fires times at or
//   after the stored next_fire_at, which a scheduler always sets after its own
//   clock), no schedule row of its trigger has next_fire_at at or before that
//   time (a schedule left far back by downtime still reaches it), and the
//   execution it started is gone. See deleteSpentScheduleFires in @svc/db.
// - a `flow_trigger_firings` row in the same statement as its upstream
//   execution (ON DELETE CASCADE), never ahead of it: see
//   EXECUTION_CHILD_TABLES in @svc/engine (src/sql/retention.ts).
//
// The statements are their tables' owners': an execution and its rows go
// through the engine (Engine.retention), emails and their quota counters
// through @svc/identity, backfills and their fire times through @svc/db
// (the backfill SQL the gateway and the scheduler use); this loop orders them
// and checks the lease.
//
// Every statement deletes at most `batchSize` rows and the loops re-check the
// lease between statements, so a run never holds locks for long on the tables
// users write, and a holder that lost its lease stops at the next batch.
import { deleteAiUsageBefore } from '@svc/ai';
import { deleteAlertDeliveriesBefore } from '@svc/alerts';
import { deleteSilentInstances, type Db } from '@svc/db';
import { deleteEndedBackfillRuns, deleteEndedBackfills, deleteSpentScheduleFires } from '@svc/scheduling';
import type { Engine } from '@svc/engine';
import { deleteAuditEventsBefore, deleteEmailsBefore, deleteEmailUsageBefore, deleteExpiredSessions, deleteLoginAttemptsBefore } from '@svc/identity';
import type { Logger } from '@svc/logging';
import type { ObjectStore } from '@svc/storage';
import { objectKind, type MaintenanceMetrics } from './metrics.js';

const DAY_MS = 86_400_000;
/** Audit events are kept 365 days (spec). */
export const AUDIT_RETENTION_MS = 365 * DAY_MS;
/** Instance rows go 24 hours after their last heartbeat (spec). */
export const INSTANCE_RETENTION_MS = DAY_MS;
/** Login attempts are kept 24 hours (spec); the rate limit looks back 15 minutes. */
export const LOGIN_ATTEMPT_RETENTION_MS = DAY_MS;
/**
 * Schedule fire markers are kept SVC_RETENTION_DAYS after their fire time, and
 * never less than this: far beyond any clock skew between scheduler instances.
 */
export const SCHEDULE_FIRE_MIN_RETENTION_MS = DAY_MS;
/** SVC_EMAIL_RETENTION_DAYS's default: organization emails are kept 30 days after they were accepted. */
export const DEFAULT_EMAIL_RETENTION_DAYS = 30;
/** Rows per DELETE statement. */
export const DEFAULT_BATCH_SIZE = 500;
/** Executions handled per round (their rows then go in batches of `batchSize`). */
export const DEFAULT_EXECUTION_BATCH = 100;

export interface RetentionDeps {
  db: Db;
  /** The engine: ended executions and their rows go through its retention (the engine owns those tables). */
  engine: { maintenance: Pick<Engine['maintenance'], 'retention'> };
  storage: ObjectStore;
  log: Logger;
  metrics?: MaintenanceMetrics;
  /** `SVC_RETENTION_DAYS`. */
  retentionDays: number;
  /** `SVC_EMAIL_RETENTION_DAYS`: organization emails older than this go, queued or not. Default {@link DEFAULT_EMAIL_RETENTION_DAYS}. */
  emailRetentionDays?: number;
  /** Rows per DELETE statement. Default {@link DEFAULT_BATCH_SIZE}. */
  batchSize?: number;
  /** Executions per round. Default {@link DEFAULT_EXECUTION_BATCH}. */
  executionBatch?: number;
  /** Checked between statements: false stops the run (the lease was lost). Default: always true. */
  shouldContinue?: () => boolean;
}

export interface RetentionResult {
  executions: number;
  /** Rows deleted per table, the execution rows' children included. */
  rows: Record<string, number>;
  objects: number;
  objectBytes: number;
  /** False when the run stopped early because the lease was lost. */
  complete: boolean;
}

export async function runRetention(deps: RetentionDeps, now: Date): Promise<RetentionResult> {
  const batch = deps.batchSize ?? DEFAULT_BATCH_SIZE;
  const go = deps.shouldContinue ?? (() => true);
  const pool = deps.db.pool;
  const result: RetentionResult = { executions: 0, rows: {}, objects: 0, objectBytes: 0, complete: true };
  const count = (table: string, n: number) => {
    if (!n) return;
    result.rows[table] = (result.rows[table] ?? 0) + n;
    deps.metrics?.rowsDeleted.inc({ table }, n);
  };
  /** Runs `step` until it deletes fewer than a full batch; false when the lease was lost meanwhile. */
  const drain = async (table: string, step: () => Promise<number>): Promise<boolean> => {
    for (;;) {
      if (!go()) return false;
      const n = await step();
      count(table, n);
      if (n < batch) return true;
    }
  };

  const executionCutoff = new Date(now.getTime() - deps.retentionDays * DAY_MS);
  const executions = deps.engine.maintenance.retention;
  expired: for (;;) {
    if (!go()) break;
    const ids = await executions.expired(executionCutoff, deps.executionBatch ?? DEFAULT_EXECUTION_BATCH);
    if (!ids.length) break;
    // Keys are read before their rows go; the objects go after the executions,
    // so a crash in between leaves objects without a row, which the storage
    // cleanup removes, and never a row without its object.
    const keys = await executions.objectKeys(ids);
    for (const table of executions.childTables) {
      if (!(await drain(table, () => executions.deleteRows(table, ids, batch)))) break expired;
    }
    const deleted = new Set(await executions.deleteExecutions(ids, executionCutoff));
    count('executions', deleted.size);
    // Nothing deleted means nothing will change on the next round either.
    if (!deleted.size) break;
    result.executions += deleted.size;
    for (const k of keys) {
      if (!deleted.has(k.executionId)) continue;
      await deps.storage.delete(k.key);
      result.objects += 1;
      result.objectBytes += k.size;
      deps.metrics?.objectsDeleted.inc({ kind: objectKind(k.key) });
      deps.metrics?.bytesDeleted.inc({ kind: objectKind(k.key) }, k.size);
    }
    if (ids.length < (deps.executionBatch ?? DEFAULT_EXECUTION_BATCH)) break;
  }

  // Expired uploads: the rows first, then the objects no execution's file input points at.
  for (;;) {
    if (!go()) break;
    const gone = await executions.deleteExpiredUploads(now, batch);
    count('uploads', gone.rows);
    for (const o of gone.objects) {
      await deps.storage.delete(o.key);
      result.objects += 1;
      result.objectBytes += o.size;
      deps.metrics?.objectsDeleted.inc({ kind: objectKind(o.key) });
      deps.metrics?.bytesDeleted.inc({ kind: objectKind(o.key) }, o.size);
    }
    if (gone.rows < batch) break;
  }

  const emailCutoff = new Date(now.getTime() - (deps.emailRetentionDays ?? DEFAULT_EMAIL_RETENTION_DAYS) * DAY_MS);
  const simple: [string, () => Promise<number>][] = [
    ['audit_events', () => deleteAuditEventsBefore(pool, new Date(now.getTime() - AUDIT_RETENTION_MS), batch)],
    ['instances', () => deleteSilentInstances(pool, new Date(now.getTime() - INSTANCE_RETENTION_MS), batch)],
    ['login_attempts', () => deleteLoginAttemptsBefore(pool, new Date(now.getTime() - LOGIN_ATTEMPT_RETENTION_MS), batch)],
    ['sessions', () => deleteExpiredSessions(pool, now, batch)],
    ['emails', () => deleteEmailsBefore(pool, emailCutoff, batch)],
    ['org_email_usage', () => deleteEmailUsageBefore(pool, emailCutoff, batch)],
    ['ai_usage', () => deleteAiUsageBefore(pool, executionCutoff, batch)],
    ['alert_deliveries', () => deleteAlertDeliveriesBefore(pool, executionCutoff, batch)],
    // A backfill's fire times first, then the backfills left without any (so no cascade grows a statement).
    // Running and paused backfills have not ended and stay, however old.
    ['backfill_runs', () => deleteEndedBackfillRuns(pool, executionCutoff, batch)],
    ['backfills', () => deleteEndedBackfills(pool, executionCutoff, batch)],
    // After the executions: a marker waits for the execution it started.
    ['schedule_fires', () => deleteSpentScheduleFires(pool, new Date(now.getTime() - Math.max(deps.retentionDays * DAY_MS, SCHEDULE_FIRE_MIN_RETENTION_MS)), batch)],
  ];
  for (const [table, step] of simple) if (!(await drain(table, step))) break;
  result.complete = go();
  return result;
}
