// Statements of a scheduler tick (the claim of due schedules, the marker row
// that makes each fire time happen once, the advance), and the retention of
// those marker rows.
//
// Why old markers may go: every next_fire_at the scheduler writes is the
// first fire time after the writing instance's clock (a sync on a new or
// changed schedule, an advance after a tick), and a tick only ever fires a
// time at or after the stored next_fire_at (catch-up walks forward from it).
// So a fire time is tried again only while a stored next_fire_at is at or
// before it (left back by downtime, or moved back by hand), or by a scheduler
// whose clock lags by more than the age of the marker.
import type { Queryable } from '@svc/db';
import { EXECUTIONS } from '@svc/engine/read-models';
import { ACTIVE_SCHEDULES, SAME_SCHEDULE_TRIGGER, type ScheduleSpec } from './schedules.js';

/** A claimed schedule; `D` is the trigger's declaration as the caller types it. */
export interface DueSchedule<D = Record<string, unknown>> extends ScheduleSpec {
  next_fire_at: Date;
  /** The trigger as declared in the flow's current revision (its `inputs`). */
  definition: D;
}

/**
 * Locks up to `limit` due schedules (next_fire_at <= now), oldest first,
 * skipping rows another scheduler holds. Only active schedules that still
 * match their trigger (same cron and zone) are claimed: a flow edited or
 * disabled a moment ago does not fire its old schedule while the sync has not
 * caught up. Run inside the transaction that fires and advances them.
 */
export async function claimDueSchedules<D = Record<string, unknown>>(q: Queryable, now: Date, limit: number): Promise<DueSchedule<D>[]> {
  // The due rows are found first, by the next_fire_at index, among the earliest
  // few candidates; only those are joined to their flows and triggers. Written
  // as one join, the planner may start from the flows instead (it does when
  // their statistics are stale, as right after a deploy) and probe every
  // schedule: 20 ms at 10,000 schedules instead of well under one.
  const r = await q.query<DueSchedule<D>>(
    `WITH due AS MATERIALIZED (
       SELECT namespace, flow_id, trigger_id FROM schedules WHERE next_fire_at <= $1 ORDER BY next_fire_at LIMIT $3)
     SELECT s.namespace, s.flow_id, s.trigger_id, s.cron, s.timezone, s.catch_up, s.next_fire_at, ft.definition
     FROM due JOIN ${ACTIVE_SCHEDULES} ON s.namespace = due.namespace AND s.flow_id = due.flow_id AND s.trigger_id = due.trigger_id
     ${SAME_SCHEDULE_TRIGGER}
     WHERE s.next_fire_at <= $1
     ORDER BY s.next_fire_at
     LIMIT $2
     FOR UPDATE OF s SKIP LOCKED`,
    // Candidates beyond the batch: rows another scheduler holds, or of a flow disabled since the last sync, are passed over.
    [now, limit, limit * 4 + 100],
  );
  return r.rows;
}

/**
 * The marker of one fire time, with the execution it started (null when none
 * did); false when the marker exists already (the fire time was fired before).
 */
export async function insertScheduleFire(
  q: Queryable,
  s: { namespace: string; flow_id: string; trigger_id: string },
  fireTime: Date,
  executionId: string | null,
  now: Date,
): Promise<boolean> {
  const r = await q.query(
    `INSERT INTO schedule_fires (namespace, flow_id, trigger_id, fire_time, execution_id, created_at) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT DO NOTHING`,
    [s.namespace, s.flow_id, s.trigger_id, fireTime, executionId, now],
  );
  return (r.rowCount ?? 0) > 0;
}

export interface ScheduleAdvance {
  namespace: string;
  flow_id: string;
  trigger_id: string;
  next: Date;
  /** The fire time fired now, or null (last_fired_at is then kept). */
  firedAt: Date | null;
}

/** Moves claimed schedules to their next fire times, in one statement per batch. */
export async function advanceSchedules(q: Queryable, rows: ScheduleAdvance[], now: Date): Promise<void> {
  if (!rows.length) return;
  await q.query(
    `UPDATE schedules s SET next_fire_at = u.next, last_fired_at = COALESCE(u.fired, s.last_fired_at), updated_at = $6
     FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::timestamptz[]) AS u(namespace, flow_id, trigger_id, next, fired)
     WHERE s.namespace = u.namespace AND s.flow_id = u.flow_id AND s.trigger_id = u.trigger_id`,
    [rows.map((r) => r.namespace), rows.map((r) => r.flow_id), rows.map((r) => r.trigger_id), rows.map((r) => r.next), rows.map((r) => r.firedAt), now],
  );
}

/**
 * Retention of the markers (at most `limit` rows): a marker goes when
 *   1. its fire time (and its row) is older than `cutoff`, which callers put
 *      at least a day back (SVC_RETENTION_DAYS): far beyond any clock skew
 *      between instances (see the file header);
 *   2. no schedule row of its trigger has next_fire_at at or before its fire
 *      time, so no tick can reach it again; and
 *   3. the execution it started is gone (by execution retention), so a marker
 *      never goes before its execution.
 * Scanned by created_at (indexed); a fire is recorded at or after its time.
 */
export async function deleteSpentScheduleFires(q: Queryable, cutoff: Date, limit: number): Promise<number> {
  const r = await q.query(
    `DELETE FROM schedule_fires WHERE ctid = ANY(ARRAY(
       SELECT sf.ctid FROM schedule_fires sf
       WHERE sf.created_at < $1 AND sf.fire_time < $1
         AND NOT EXISTS (SELECT 1 FROM schedules s
                         WHERE s.namespace = sf.namespace AND s.flow_id = sf.flow_id AND s.trigger_id = sf.trigger_id AND s.next_fire_at <= sf.fire_time)
         AND (sf.execution_id IS NULL OR NOT EXISTS (SELECT 1 FROM ${EXECUTIONS} e WHERE e.id = sf.execution_id))
       ORDER BY sf.created_at
       LIMIT $2))`,
    [cutoff, limit],
  );
  return r.rowCount ?? 0;
}
