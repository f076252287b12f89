// Backfills: the rows the gateway writes and reads, and that the
// scheduler's BackfillAdvancer (apps/scheduler/src/backfills.ts) advances.
// Every write of backfills and backfill_runs is here (one owner per table,
// e2e/test/tables-have-one-writer.test.ts): the gateway, the advancer and
// maintenance's retention call these functions.
// A backfill's fire times are all written when it is created (one
// backfill_runs row each, primary key (backfill_id, fire_time)), so what the
// preview showed is what runs and progress is a count over its rows.
// A run's outcome is written on its row once its execution has ended
// (recordRunOutcomes, by the advancer), and progress reads it before the
// execution's state: retention deleting old executions changes no count.
// A backfill that ended (cancelled, done) more than SVC_RETENTION_DAYS ago
// goes with its rows in maintenance's retention (deleteEndedBackfillRuns,
// then deleteEndedBackfills); running and paused ones stay however old.
import type { Queryable } from '@svc/db';
import { EXECUTIONS } from '@svc/engine/read-models';

export type BackfillState = 'running' | 'paused' | 'cancelled' | 'done';

/** A fire time's outcome once its execution has ended (backfill_runs.outcome). */
export type BackfillRunOutcome = 'done' | 'failed' | 'cancelled';

/** Execution states after which an execution never changes again. */
const ENDED = `('SUCCESS', 'SKIPPED', 'FAILED', 'TIMED_OUT', 'CANCELLED')`;

/** The outcome an ended execution state `s` (SQL) stands for; null while it has not ended. */
const outcomeOf = (s: string) =>
  `CASE WHEN ${s} IN ('SUCCESS', 'SKIPPED') THEN 'done' WHEN ${s} IN ('FAILED', 'TIMED_OUT') THEN 'failed' WHEN ${s} = 'CANCELLED' THEN 'cancelled' END`;

/** A created run's outcome: the one written on its row, else its execution's (gone after retention: then only the written one). */
const OUTCOME = `COALESCE(r.outcome, ${outcomeOf('e.state')})`;

export interface NewBackfill {
  id: string;
  namespace: string;
  flowId: string;
  triggerId: string;
  cron: string;
  timezone: string;
  from: Date;
  to: Date;
  maxInFlight: number;
  createdBy: string;
  fireTimes: Date[];
  now: Date;
}

export interface BackfillRow {
  id: string;
  namespace: string;
  flow_id: string;
  trigger_id: string;
  cron: string;
  timezone: string;
  range_from: Date;
  range_to: Date;
  max_in_flight: number;
  state: BackfillState;
  total: number;
  created_by: string;
  created_at: Date;
  updated_at: Date;
  ended_at: Date | null;
  /** Fire times with no execution yet. */
  left: number;
  /** Executions not ended (QUEUED, RUNNING, CANCELLING). */
  running: number;
  /** Executions ended SUCCESS (or SKIPPED by the flow's concurrency rule), by their outcome as written. */
  done: number;
  /** Executions ended FAILED, TIMED_OUT or CANCELLED, and fire times that made no execution. */
  failed: number;
  /** Fire times cancelled before they had an execution. */
  cancelled: number;
}

export interface BackfillRunRow {
  fire_time: Date;
  state: string;
  execution_id: string | null;
  /** The execution's state while it exists (retention deletes it). */
  execution_state: string | null;
  /** Written once its execution has ended. */
  outcome: BackfillRunOutcome | null;
  reason: string;
}

const SELECT = `
  SELECT b.id, b.namespace, b.flow_id, b.trigger_id, b.cron, b.timezone, b.range_from, b.range_to, b.max_in_flight, b.state, b.total,
         b.created_by, b.created_at, b.updated_at, b.ended_at,
         count(r.fire_time) FILTER (WHERE r.state = 'pending')::int AS left,
         count(r.fire_time) FILTER (WHERE r.state = 'created' AND r.outcome IS NULL AND e.state IN ('QUEUED', 'RUNNING', 'CANCELLING'))::int AS running,
         count(r.fire_time) FILTER (WHERE r.state = 'created' AND ${OUTCOME} = 'done')::int AS done,
         count(r.fire_time) FILTER (WHERE r.state = 'skipped' OR (r.state = 'created' AND ${OUTCOME} IN ('failed', 'cancelled')))::int AS failed,
         count(r.fire_time) FILTER (WHERE r.state = 'cancelled')::int AS cancelled
    FROM backfills b
    LEFT JOIN backfill_runs r ON r.backfill_id = b.id
    LEFT JOIN ${EXECUTIONS} e ON e.id = r.execution_id`;

/** A flow's schedule trigger as a backfill reads it: its id and its cron and zone. */
export interface BackfillScheduleTrigger {
  trigger_id: string;
  definition: { cron?: string; timezone?: string };
}

/** True when the flow exists (and is not deleted). */
export async function flowExists(q: Queryable, namespace: string, flowId: string): Promise<boolean> {
  const r = await q.query(`SELECT 1 FROM flows WHERE namespace = $1 AND flow_id = $2 AND deleted_at IS NULL`, [namespace, flowId]);
  return (r.rowCount ?? 0) > 0;
}

/** The flow's schedule triggers, by trigger id: what a backfill can replay. */
export async function scheduleTriggersOf(q: Queryable, namespace: string, flowId: string): Promise<BackfillScheduleTrigger[]> {
  const r = await q.query<BackfillScheduleTrigger>(
    `SELECT trigger_id, definition FROM flow_triggers WHERE namespace = $1 AND flow_id = $2 AND type = 'schedule' ORDER BY trigger_id`,
    [namespace, flowId],
  );
  return r.rows;
}

/** Writes a running backfill and its fire times (one statement each). */
export async function insertBackfill(q: Queryable, b: NewBackfill): Promise<void> {
  await q.query(
    `INSERT INTO backfills (id, namespace, flow_id, trigger_id, cron, timezone, range_from, range_to, max_in_flight, state, total, created_by, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'running', $10, $11, $12, $12)`,
    [b.id, b.namespace, b.flowId, b.triggerId, b.cron, b.timezone, b.from, b.to, b.maxInFlight, b.fireTimes.length, b.createdBy, b.now],
  );
  await q.query(`INSERT INTO backfill_runs (backfill_id, fire_time) SELECT $1, unnest($2::timestamptz[])`, [b.id, b.fireTimes.map((t) => t.toISOString())]);
}

/** One backfill with its progress, or undefined. */
export async function getBackfill(q: Queryable, id: string): Promise<BackfillRow | undefined> {
  const r = await q.query<BackfillRow>(`${SELECT} WHERE b.id = $1 GROUP BY b.id`, [id]);
  return r.rows[0];
}

/** A flow's backfills, newest first, `limit` of them after the cursor (created_at, id). */
export async function listBackfills(q: Queryable, o: { namespace: string; flowId: string; limit: number; before?: { created_at: Date; id: string } }): Promise<BackfillRow[]> {
  const r = await q.query<BackfillRow>(
    `${SELECT} WHERE b.namespace = $1 AND b.flow_id = $2 AND ($3::timestamptz IS NULL OR (b.created_at, b.id) < ($3, $4))
      GROUP BY b.id ORDER BY b.created_at DESC, b.id DESC LIMIT $5`,
    [o.namespace, o.flowId, o.before?.created_at ?? null, o.before?.id ?? '', o.limit],
  );
  return r.rows;
}

/** The backfill's fire times, oldest first, with their executions' states. */
export async function listBackfillRuns(q: Queryable, id: string, o: { limit: number; after?: Date }): Promise<BackfillRunRow[]> {
  const r = await q.query<BackfillRunRow>(
    `SELECT r.fire_time, r.state, r.execution_id, e.state AS execution_state, ${OUTCOME} AS outcome, r.reason FROM backfill_runs r LEFT JOIN ${EXECUTIONS} e ON e.id = r.execution_id
      WHERE r.backfill_id = $1 AND ($2::timestamptz IS NULL OR r.fire_time > $2) ORDER BY r.fire_time LIMIT $3`,
    [id, o.after ?? null, o.limit],
  );
  return r.rows;
}

/**
 * Moves a backfill from one of `from` to `to` (pause: running → paused;
 * resume: paused → running). False when it was in none of them.
 */
export async function setBackfillState(q: Queryable, id: string, from: BackfillState[], to: BackfillState, now: Date): Promise<boolean> {
  const r = await q.query(`UPDATE backfills SET state = $3, updated_at = $4 WHERE id = $1 AND state = ANY($2)`, [id, from, to, now]);
  return r.rowCount === 1;
}

/**
 * Cancels a running or paused backfill: its pending fire times are
 * cancelled (in the same transaction as the state, so the advancer, which
 * holds the row while it creates, never creates one after). Returns the ids
 * of its executions still in flight (the caller cancels them), or null when
 * it was not running or paused.
 */
export async function cancelBackfill(q: Queryable, id: string, now: Date): Promise<string[] | null> {
  const r = await q.query<{ n: number; cancelled: number }>(
    `WITH b AS (UPDATE backfills SET state = 'cancelled', updated_at = $2, ended_at = $2 WHERE id = $1 AND state IN ('running', 'paused') RETURNING id),
          runs AS (UPDATE backfill_runs SET state = 'cancelled' WHERE backfill_id IN (SELECT id FROM b) AND state = 'pending' RETURNING 1)
     SELECT (SELECT count(*) FROM b)::int AS n, (SELECT count(*) FROM runs)::int AS cancelled`,
    [id, now],
  );
  if (r.rows[0].n !== 1) return null;
  const e = await q.query<{ id: string }>(
    `SELECT e.id FROM backfill_runs r JOIN ${EXECUTIONS} e ON e.id = r.execution_id
      WHERE r.backfill_id = $1 AND r.state = 'created' AND e.state IN ('QUEUED', 'RUNNING') ORDER BY r.fire_time`,
    [id],
  );
  return e.rows.map((x) => x.id);
}

/**
 * Writes the outcome of the fire times whose execution has ended and whose
 * outcome is not written yet: of backfill `id` (the advancer, in the
 * transaction that holds the backfill's row), or, without `id`, of every
 * backfill not running (paused, cancelled, done: executions that end after
 * the advancer last served them), at most `limit` rows, skipping rows
 * another transaction is writing. Returns how many it wrote. The rows to
 * look at are those of the partial index backfill_runs_unrecorded_idx.
 */
export async function recordRunOutcomes(q: Queryable, o: { id?: string; limit: number }): Promise<number> {
  const r = await q.query(
    `WITH ended AS (
       SELECT r.backfill_id, r.fire_time, e.state FROM backfill_runs r JOIN ${EXECUTIONS} e ON e.id = r.execution_id
        WHERE r.state = 'created' AND r.outcome IS NULL AND e.state IN ${ENDED}
          AND ${o.id === undefined ? `r.backfill_id IN (SELECT id FROM backfills WHERE state <> 'running')` : 'r.backfill_id = $2'}
        ORDER BY r.backfill_id, r.fire_time LIMIT $1 FOR UPDATE OF r SKIP LOCKED)
     UPDATE backfill_runs r SET outcome = ${outcomeOf('ended.state')}
       FROM ended WHERE r.backfill_id = ended.backfill_id AND r.fire_time = ended.fire_time`,
    o.id === undefined ? [o.limit] : [o.limit, o.id],
  );
  return r.rowCount ?? 0;
}

// The advancer's statements (apps/scheduler/src/backfills.ts): each runs in
// the advancer's transaction, on the client it is given, which holds the
// claimed backfills' rows until it commits.

/** A running backfill as the advancer claims it. */
export type ClaimedBackfillRow = Pick<BackfillRow, 'id' | 'namespace' | 'flow_id' | 'trigger_id' | 'cron' | 'timezone' | 'max_in_flight'>;

/**
 * Locks up to `limit` running backfills, least recently served first,
 * skipping rows another transaction holds (another scheduler serving them,
 * a cancel): one scheduler instance works on a backfill at a time. Run
 * inside the transaction that serves them.
 */
export async function claimRunningBackfills(q: Queryable, limit: number): Promise<ClaimedBackfillRow[]> {
  const r = await q.query<ClaimedBackfillRow>(
    `SELECT id, namespace, flow_id, trigger_id, cron, timezone, max_in_flight FROM backfills
      WHERE state = 'running' ORDER BY updated_at, id LIMIT $1 FOR UPDATE SKIP LOCKED`,
    [limit],
  );
  return r.rows;
}

/** How many of the backfill's created fire times have an execution in one of `states` (the in-flight ones). */
export async function countBackfillRunsIn(q: Queryable, id: string, states: readonly string[]): Promise<number> {
  const r = await q.query<{ n: string }>(
    `SELECT count(*) AS n FROM backfill_runs r JOIN ${EXECUTIONS} e ON e.id = r.execution_id
      WHERE r.backfill_id = $1 AND r.state = 'created' AND e.state = ANY($2)`,
    [id, states],
  );
  return Number(r.rows[0].n);
}

/**
 * The caps shared by all backfills of a flow and of a namespace
 * (SVC_BACKFILL_MAX_IN_FLIGHT_PER_FLOW and ..._PER_NAMESPACE): executions are
 * created for a backfill only under two transaction-level advisory locks, its
 * namespace's and its flow's, and the executions in flight are counted from
 * the rows under them. A scheduler that cannot take them at once (another
 * one is creating executions there) leaves the backfill to its next pass
 * instead of waiting, so no two schedulers wait on each other's locks.
 * True when both are held (until the transaction ends).
 */
export async function tryLockBackfillScope(q: Queryable, scope: { namespace: string; flowId: string }): Promise<boolean> {
  const r = await q.query<{ ns: boolean; flow: boolean }>(
    `SELECT pg_try_advisory_xact_lock(hashtextextended('svc-backfill-ns:' || $1, 0)) AS ns,
            pg_try_advisory_xact_lock(hashtextextended('svc-backfill-flow:' || $1 || '/' || $2, 0)) AS flow`,
    [scope.namespace, scope.flowId],
  );
  return r.rows[0].ns && r.rows[0].flow;
}

/**
 * How many fire times of every backfill of the namespace (of one flow when
 * `flowId` is given), whatever the backfill's state, have an execution in one
 * of `states`: the executions a cap counts. Run under tryLockBackfillScope.
 */
export async function countScopeRunsIn(q: Queryable, scope: { namespace: string; flowId?: string }, states: readonly string[]): Promise<number> {
  const r = await q.query<{ n: string }>(
    `SELECT count(*) AS n FROM backfills b JOIN backfill_runs r ON r.backfill_id = b.id JOIN ${EXECUTIONS} e ON e.id = r.execution_id
      WHERE b.namespace = $1 AND ($2::text IS NULL OR b.flow_id = $2) AND r.state = 'created' AND r.outcome IS NULL AND e.state = ANY($3)`,
    [scope.namespace, scope.flowId ?? null, states],
  );
  return Number(r.rows[0].n);
}

/** The backfill's oldest `limit` pending fire times. */
export async function pendingFireTimes(q: Queryable, id: string, limit: number): Promise<Date[]> {
  const r = await q.query<{ fire_time: Date }>(`SELECT fire_time FROM backfill_runs WHERE backfill_id = $1 AND state = 'pending' ORDER BY fire_time LIMIT $2`, [id, limit]);
  return r.rows.map((x) => x.fire_time);
}

/** The declaration of the flow's trigger a backfill replays (its `inputs`), or undefined when the trigger is gone. */
export async function backfillTriggerDefinition(
  q: Queryable,
  b: { namespace: string; flow_id: string; trigger_id: string },
): Promise<{ inputs?: Record<string, string> } | undefined> {
  const r = await q.query<{ definition: { inputs?: Record<string, string> } }>(`SELECT definition FROM flow_triggers WHERE namespace = $1 AND flow_id = $2 AND trigger_id = $3`, [
    b.namespace,
    b.flow_id,
    b.trigger_id,
  ]);
  return r.rows[0]?.definition;
}

/**
 * Writes what became of a pending fire time: `created` with its execution,
 * or `skipped` with the reason it made none. False when the fire time was
 * not pending any more (cancelled meanwhile): the caller undoes its execution.
 */
export async function recordBackfillRun(
  q: Queryable,
  run: { backfillId: string; fireTime: Date; state: 'created' | 'skipped'; executionId: string | null; reason: string; now: Date },
): Promise<boolean> {
  const r = await q.query(
    `UPDATE backfill_runs SET state = $3, execution_id = $4, reason = $5, created_at = $6
      WHERE backfill_id = $1 AND fire_time = $2 AND state = 'pending'`,
    [run.backfillId, run.fireTime, run.state, run.executionId, run.reason, run.now],
  );
  return r.rowCount === 1;
}

/** Pauses a claimed backfill whose flow is disabled (it waits for a resume by hand). */
export async function pauseClaimedBackfill(q: Queryable, id: string, now: Date): Promise<void> {
  await q.query(`UPDATE backfills SET state = 'paused', updated_at = $2 WHERE id = $1`, [id, now]);
}

/** Ends a running backfill done (nothing pending, nothing in flight). */
export async function finishBackfill(q: Queryable, id: string, now: Date): Promise<void> {
  await q.query(`UPDATE backfills SET state = 'done', ended_at = $2, updated_at = $2 WHERE id = $1 AND state = 'running'`, [id, now]);
}

/** Marks a claimed backfill served now: the next claim takes those served longest ago first. */
export async function touchBackfill(q: Queryable, id: string, now: Date): Promise<void> {
  await q.query(`UPDATE backfills SET updated_at = $2 WHERE id = $1`, [id, now]);
}

/** Backfill states that never change again; `ended_at` is set when a backfill enters one. */
const ENDED_BACKFILL = `('cancelled', 'done')`;

/**
 * Retention (maintenance's hourly pass), step 1 of 2: deletes at most `limit`
 * fire-time rows of backfills that ended (cancelled or done) before `cutoff`.
 * Running and paused backfills have no ended_at and are never touched.
 * Rows another transaction holds (another maintenance instance deleting
 * them, the advancer writing an outcome) are skipped, and a row already gone
 * is not counted: several instances at once delete each row once. Callers
 * loop until it deletes fewer than `limit`. Returns how many it deleted.
 */
export async function deleteEndedBackfillRuns(q: Queryable, cutoff: Date, limit: number): Promise<number> {
  const r = await q.query(
    `WITH doomed AS (
       SELECT r.backfill_id, r.fire_time FROM backfills b JOIN backfill_runs r ON r.backfill_id = b.id
        WHERE b.state IN ${ENDED_BACKFILL} AND b.ended_at < $1
        LIMIT $2 FOR UPDATE OF r SKIP LOCKED)
     DELETE FROM backfill_runs r USING doomed d WHERE r.backfill_id = d.backfill_id AND r.fire_time = d.fire_time`,
    [cutoff, limit],
  );
  return r.rowCount ?? 0;
}

/**
 * Retention, step 2 of 2 (after {@link deleteEndedBackfillRuns}): deletes at
 * most `limit` backfills that ended before `cutoff` and have no fire-time row
 * left, so the foreign key's cascade deletes nothing and no statement grows
 * with a backfill's size (up to 10,000 fire times). A backfill whose rows are
 * still being deleted waits for the next pass. Returns how many it deleted.
 */
export async function deleteEndedBackfills(q: Queryable, cutoff: Date, limit: number): Promise<number> {
  const r = await q.query(
    `DELETE FROM backfills WHERE id IN (
       SELECT b.id FROM backfills b
        WHERE b.state IN ${ENDED_BACKFILL} AND b.ended_at < $1 AND NOT EXISTS (SELECT 1 FROM backfill_runs r WHERE r.backfill_id = b.id)
        ORDER BY b.ended_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
    [cutoff, limit],
  );
  return r.rowCount ?? 0;
}

/** The namespace of a backfill, or undefined when there is none with this id (the role check's record lookup). */
export async function backfillNamespace(q: Queryable, id: string): Promise<string | undefined> {
  const r = await q.query<{ namespace: string }>(`SELECT namespace FROM backfills WHERE id = $1`, [id]);
  return r.rows[0]?.namespace;
}
