// Statements of a scheduler tick: the claim of due schedules and the marker
// row that makes each fire time happen once.
import type { FlowTrigger } from '@svc/flow-schema';
import type { Queryable } from '@svc/db';

export interface DueSchedule {
  namespace: string;
  flow_id: string;
  trigger_id: string;
  cron: string;
  timezone: string;
  catch_up: string;
  next_fire_at: Date;
  /** The trigger as declared in the flow's current revision (its `inputs`). */
  definition: FlowTrigger;
}

/**
 * Locks up to `limit` due schedules (next_fire_at <= now), oldest first,
 * skipping rows another scheduler holds. Only rows that still match their
 * trigger (same cron and zone) on an enabled flow are claimed: a flow edited
 * or disabled a moment ago does not fire its old schedule while the sync has
 * not caught up. Run inside the transaction that fires and advances them.
 */
export async function claimDueSchedules(q: Queryable, now: Date, limit: number): Promise<DueSchedule[]> {
  const r = await q.query<DueSchedule>(
    `SELECT s.namespace, s.flow_id, s.trigger_id, s.cron, s.timezone, s.catch_up, s.next_fire_at, ft.definition
     FROM schedules s
     JOIN flow_triggers ft ON ft.namespace = s.namespace AND ft.flow_id = s.flow_id AND ft.trigger_id = s.trigger_id AND ft.type = 'schedule'
       AND ft.definition->>'cron' = s.cron AND COALESCE(ft.definition->>'timezone', 'UTC') = s.timezone
     JOIN flows f ON f.namespace = s.namespace AND f.flow_id = s.flow_id AND f.enabled AND f.deleted_at IS NULL
     WHERE s.next_fire_at <= $1
     ORDER BY s.next_fire_at
     LIMIT $2
     FOR UPDATE OF s SKIP LOCKED`,
    [now, limit],
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

export interface Advance {
  namespace: string;
  flow_id: string;
  trigger_id: string;
  next: Date;
  /** The fire time fired now, or null (last_fired_at is then kept). */
  firedAt: Date | null;
}

/** Moves claimed schedules to their next fire times, in one statement per batch. */
export async function advanceSchedules(q: Queryable, rows: Advance[], now: Date): Promise<void> {
  if (!rows.length) return;
  await q.query(
    `UPDATE schedules s SET next_fire_at = u.next, last_fired_at = COALESCE(u.fired, s.last_fired_at), updated_at = $6
     FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::timestamptz[]) AS u(namespace, flow_id, trigger_id, next, fired)
     WHERE s.namespace = u.namespace AND s.flow_id = u.flow_id AND s.trigger_id = u.trigger_id`,
    [rows.map((r) => r.namespace), rows.map((r) => r.flow_id), rows.map((r) => r.trigger_id), rows.map((r) => r.next), rows.map((r) => r.firedAt), now],
  );
}
