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
 * The marker of one fire time; false when it exists already (fired before,
 * e.g. by an instance that claimed the row before it was re-created).
 */
export async function insertScheduleFire(q: Queryable, s: { namespace: string; flow_id: string; trigger_id: string }, fireTime: Date, now: Date): Promise<boolean> {
  const r = await q.query(
    `INSERT INTO schedule_fires (namespace, flow_id, trigger_id, fire_time, created_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT DO NOTHING`,
    [s.namespace, s.flow_id, s.trigger_id, fireTime, now],
  );
  return (r.rowCount ?? 0) > 0;
}

export async function setFireExecution(q: Queryable, s: { namespace: string; flow_id: string; trigger_id: string }, fireTime: Date, executionId: string): Promise<void> {
  await q.query(`UPDATE schedule_fires SET execution_id = $5 WHERE namespace = $1 AND flow_id = $2 AND trigger_id = $3 AND fire_time = $4`, [
    s.namespace,
    s.flow_id,
    s.trigger_id,
    fireTime,
    executionId,
  ]);
}

/** Moves a claimed schedule to its next fire time (and records the one fired, if any). */
export async function advanceSchedule(q: Queryable, s: { namespace: string; flow_id: string; trigger_id: string }, next: Date, firedAt: Date | null, now: Date): Promise<void> {
  await q.query(
    `UPDATE schedules SET next_fire_at = $4, last_fired_at = COALESCE($5, last_fired_at), updated_at = $6
     WHERE namespace = $1 AND flow_id = $2 AND trigger_id = $3`,
    [s.namespace, s.flow_id, s.trigger_id, next, firedAt, now],
  );
}
