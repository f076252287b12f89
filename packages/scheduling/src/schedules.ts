// The `schedules` table: one row per `schedule` trigger of an enabled,
// non-deleted flow, with its next fire time. The scheduler's sync keeps it in
// step with `flow_triggers` (one row per trigger of each flow's current
// revision); listUpcomingSchedules (the API) reads it. Only rows whose trigger
// is new or whose cron, time zone or catch_up changed are read back by the
// sync, so a sync with nothing to do is one indexed anti-join.
import type { Queryable } from '@svc/db';

/**
 * What makes a schedule or trigger active: its flow (aliased `f`) is enabled
 * and not deleted. `of` is the alias of the joined row (`schedules` or
 * `flow_triggers`). Shared by the sync, the claim and the upcoming list, so a
 * schedule the list shows is one the scheduler syncs and fires.
 */
export function activeFlowJoin(of: string): string {
  return `JOIN flows f ON f.namespace = ${of}.namespace AND f.flow_id = ${of}.flow_id AND f.enabled AND f.deleted_at IS NULL`;
}

/** Schedule rows (`s`) of active flows: the active schedules. */
export const ACTIVE_SCHEDULES = `schedules s ${activeFlowJoin('s')}`;

const TZ = `COALESCE(ft.definition->>'timezone', 'UTC')`;
const CATCH_UP = `COALESCE(ft.definition->>'catch_up', 'last')`;

/**
 * The trigger (`ft`) a schedule row (`s`) was computed from: still a schedule
 * trigger of the flow, with the row's cron and time zone. A row whose
 * trigger was removed, or changed until the sync recomputes it, joins
 * nothing: the claim does not fire it and the upcoming list does not show it.
 */
export const SAME_SCHEDULE_TRIGGER = `JOIN flow_triggers ft ON ft.namespace = s.namespace AND ft.flow_id = s.flow_id AND ft.trigger_id = s.trigger_id
       AND ft.type = 'schedule' AND ft.definition->>'cron' = s.cron AND ${TZ} = s.timezone`;
/** Triggers that should have a schedule row (with `ft.type = 'schedule'`): flow enabled and not deleted. */
const ACTIVE_TRIGGERS = `flow_triggers ft ${activeFlowJoin('ft')}`;

export interface ScheduleSpec {
  namespace: string;
  flow_id: string;
  trigger_id: string;
  cron: string;
  timezone: string;
  catch_up: string;
}

/** Schedule triggers with no row yet, or whose row has another cron, time zone or catch_up. */
export async function selectChangedSchedules(q: Queryable): Promise<ScheduleSpec[]> {
  const r = await q.query<ScheduleSpec>(
    `SELECT ft.namespace, ft.flow_id, ft.trigger_id, ft.definition->>'cron' AS cron, ${TZ} AS timezone, ${CATCH_UP} AS catch_up
     FROM ${ACTIVE_TRIGGERS}
     LEFT JOIN schedules s ON s.namespace = ft.namespace AND s.flow_id = ft.flow_id AND s.trigger_id = ft.trigger_id
     WHERE ft.type = 'schedule'
       AND (s.namespace IS NULL OR s.cron <> ft.definition->>'cron' OR s.timezone <> ${TZ} OR s.catch_up <> ${CATCH_UP})
     -- One order for every instance: two syncs upserting the same rows lock them in the same order (no deadlock).
     ORDER BY ft.namespace, ft.flow_id, ft.trigger_id`,
  );
  return r.rows;
}

/**
 * Writes schedule rows with their next fire time. A row another scheduler
 * already brought up to date (same cron, zone and catch_up) is left alone, so
 * two instances syncing at once never move a next fire time twice.
 */
export async function upsertSchedules(q: Queryable, rows: (ScheduleSpec & { next_fire_at: Date | null })[], now: Date): Promise<number> {
  if (!rows.length) return 0;
  const r = await q.query(
    `INSERT INTO schedules (namespace, flow_id, trigger_id, cron, timezone, catch_up, next_fire_at, created_at, updated_at)
     SELECT u.*, $8::timestamptz, $8::timestamptz
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[]) AS u
     ON CONFLICT (namespace, flow_id, trigger_id) DO UPDATE
       SET cron = EXCLUDED.cron, timezone = EXCLUDED.timezone, catch_up = EXCLUDED.catch_up,
           next_fire_at = EXCLUDED.next_fire_at, updated_at = EXCLUDED.updated_at
       WHERE (schedules.cron, schedules.timezone, schedules.catch_up) IS DISTINCT FROM (EXCLUDED.cron, EXCLUDED.timezone, EXCLUDED.catch_up)`,
    [
      rows.map((x) => x.namespace),
      rows.map((x) => x.flow_id),
      rows.map((x) => x.trigger_id),
      rows.map((x) => x.cron),
      rows.map((x) => x.timezone),
      rows.map((x) => x.catch_up),
      rows.map((x) => x.next_fire_at),
      now,
    ],
  );
  return r.rowCount ?? 0;
}

/** Deletes schedule rows whose trigger is gone, whose flow was deleted or is disabled. */
export async function deleteInactiveSchedules(q: Queryable): Promise<{ namespace: string; flow_id: string; trigger_id: string }[]> {
  const r = await q.query<{ namespace: string; flow_id: string; trigger_id: string }>(
    `DELETE FROM schedules s
     WHERE NOT EXISTS (SELECT 1 FROM ${ACTIVE_TRIGGERS}
                       WHERE ft.namespace = s.namespace AND ft.flow_id = s.flow_id AND ft.trigger_id = s.trigger_id AND ft.type = 'schedule')
     RETURNING s.namespace, s.flow_id, s.trigger_id`,
  );
  return r.rows;
}

/**
 * A cheap fingerprint of everything the sync reads: any saved, moved,
 * enabled, disabled or deleted flow, and any trigger written or removed,
 * changes a count or a latest updated_at. The sync loop runs the full sync
 * only when it changes (and once a minute regardless).
 */
export async function triggerFingerprint(q: Queryable): Promise<string> {
  const r = await q.query<{ fp: string }>(
    `SELECT concat_ws('/', (SELECT count(*) FROM flow_triggers), (SELECT max(updated_at) FROM flow_triggers),
                           (SELECT count(*) FILTER (WHERE enabled AND deleted_at IS NULL) FROM flows), (SELECT max(updated_at) FROM flows)) AS fp`,
  );
  return r.rows[0].fp;
}

export interface UpcomingSchedule extends ScheduleSpec {
  next_fire_at: Date;
  last_fired_at: Date | null;
}

/** Where a page of listUpcomingSchedules starts: after this row in (next_fire_at, namespace, flow_id, trigger_id) order. */
export interface UpcomingScheduleKey {
  next_fire_at: string;
  namespace: string;
  flow_id: string;
  trigger_id: string;
}

/**
 * Active schedules with a next fire time, soonest first, at most `limit`:
 * those the scheduler fires (flow enabled and not deleted, trigger as the
 * row was computed from: ACTIVE_SCHEDULES and SAME_SCHEDULE_TRIGGER, as in
 * claimDueSchedules). Fire times are instants the scheduler computed in the
 * trigger's time zone, daylight-saving days included (fire-times.ts of
 * @svc/scheduler). `namespace` selects that namespace and its children (as
 * listFlows does).
 */
export async function listUpcomingSchedules(
  q: Queryable,
  opts: { namespace?: string; after?: UpcomingScheduleKey; limit: number; /** Only these namespaces and their children; absent: all. */ within?: readonly string[] },
): Promise<UpcomingSchedule[]> {
  const { namespace, after, limit } = opts;
  const r = await q.query<UpcomingSchedule>(
    `SELECT s.namespace, s.flow_id, s.trigger_id, s.cron, s.timezone, s.catch_up, s.next_fire_at, s.last_fired_at
     FROM ${ACTIVE_SCHEDULES} ${SAME_SCHEDULE_TRIGGER}
     WHERE s.next_fire_at IS NOT NULL
       AND ($1::text IS NULL OR s.namespace = $1 OR s.namespace LIKE $1 || '.%')
       AND ($2::timestamptz IS NULL OR (s.next_fire_at, s.namespace, s.flow_id, s.trigger_id) > ($2, $3, $4, $5))
       AND ($7::text[] IS NULL OR EXISTS (SELECT 1 FROM unnest($7::text[]) w WHERE s.namespace = w OR left(s.namespace, length(w) + 1) = w || '.'))
     ORDER BY s.next_fire_at, s.namespace, s.flow_id, s.trigger_id
     LIMIT $6`,
    [namespace ?? null, after?.next_fire_at ?? null, after?.namespace ?? null, after?.flow_id ?? null, after?.trigger_id ?? null, limit, opts.within ?? null],
  );
  return r.rows;
}
