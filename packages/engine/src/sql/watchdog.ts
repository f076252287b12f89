// The watchdog's picks (systems/watchdog.ts): executions past their flow
// timeout, task runs past their task timeout and its grace, and task runs
// whose instance went away.
import type { Queryable } from '@svc/db';
import { onlineSinceSql } from './fragments.js';

/**
 * A task run `t` that is not its instance's work any more: a subflow task
 * waiting for the child it started (the child was created with
 * `parent_task_run_id` = the run, in the statement that created it, so there
 * is no window). The child's end completes it (`child_ended`), whoever runs
 * the child; ending it because its dispatcher went away would fail the
 * parent's task while the child runs on, and its retry would start the child
 * again.
 */
export const NOT_WAITING_ON_A_CHILD = `NOT EXISTS (SELECT 1 FROM executions c WHERE c.parent_task_run_id = t.id)`;

/**
 * A task run `t` that is not a fan-out's parent: once its items are created
 * the parent runs nowhere (no instance, no timeout of its own) and ends when
 * its items end (planning/fan-out.ts); its items are runs like any other.
 */
const NOT_A_FAN_OUT = `t.fan_out IS NULL`;

/** RUNNING or CANCELLING executions whose flow timeout $1 passed, oldest first. */
const DUE_EXECUTIONS_SQL = `SELECT id FROM executions WHERE state IN ('RUNNING', 'CANCELLING') AND timeout_at <= $1 ORDER BY timeout_at LIMIT 100`;

/** RUNNING task runs past their timeout and its grace: at $1 (a test's clock less the grace), else the database's clock less $2 ms. */
const TIMED_OUT_RUNS_SQL = `SELECT id FROM task_runs WHERE state = 'RUNNING' AND timeout_at <= COALESCE($1::timestamptz, now() - $2 * interval '1 millisecond') LIMIT 500`;

/** RUNNING task runs of types $2 whose instance is offline at $1 (else the database's clock), except subflow runs waiting on their child. */
const LOST_RUNS_SQL = `SELECT t.id FROM task_runs t LEFT JOIN instances i ON i.id = t.claimed_by
       WHERE t.state = 'RUNNING' AND t.executor_type = ANY($2)
         AND (i.id IS NULL OR i.stopped_at IS NOT NULL OR i.last_heartbeat_at < ${onlineSinceSql('$1')})
         AND ${NOT_A_FAN_OUT} AND ${NOT_WAITING_ON_A_CHILD} LIMIT 500`;

/** RUNNING task runs claimed by instance $1, except subflow runs waiting on their child. */
const RUNNING_ON_INSTANCE_SQL = `SELECT t.id FROM task_runs t WHERE t.state = 'RUNNING' AND t.claimed_by = $1 AND ${NOT_A_FAN_OUT} AND ${NOT_WAITING_ON_A_CHILD}`;

/** RUNNING task runs of container types $1 whose instance is offline ($2 the oldest online heartbeat) and whose own heartbeat is older than $3. */
const LOST_CONTAINER_RUNS_SQL = `SELECT t.id FROM task_runs t LEFT JOIN instances i ON i.id = t.claimed_by
     WHERE t.state = 'RUNNING' AND t.executor_type = ANY($1)
       AND (i.id IS NULL OR i.stopped_at IS NOT NULL OR i.last_heartbeat_at < $2)
       AND COALESCE(t.last_heartbeat_at, t.started_at, t.claimed_at, t.created_at) < $3
       AND ${NOT_A_FAN_OUT}
     LIMIT 500`;

const ids = (r: { rows: { id: string }[] }) => r.rows.map((x) => x.id);

/** RUNNING or CANCELLING executions whose flow timeout passed at `now`, oldest first, at most 100. */
export async function dueExecutions(db: Queryable, p: { now: Date }): Promise<string[]> {
  return ids(await db.query<{ id: string }>(DUE_EXECUTIONS_SQL, [p.now]));
}

/** RUNNING task runs past their timeout and its grace (`graceMs`): at `at` (a test's clock less the grace), else the database's clock. */
export async function timedOutRuns(db: Queryable, p: { at: Date | null; graceMs: number }): Promise<string[]> {
  return ids(await db.query<{ id: string }>(TIMED_OUT_RUNS_SQL, [p.at, p.graceMs]));
}

/** RUNNING task runs of `executorTypes` whose instance is offline (`onlineSince`: the oldest online heartbeat, else the database's clock's). */
export async function lostRuns(db: Queryable, p: { onlineSince: Date | null; executorTypes: readonly string[] }): Promise<string[]> {
  return ids(await db.query<{ id: string }>(LOST_RUNS_SQL, [p.onlineSince, p.executorTypes]));
}

/** RUNNING task runs claimed by instance `instanceId`, except subflow runs waiting on their child. */
export async function runningOnInstance(db: Queryable, p: { instanceId: string }): Promise<string[]> {
  return ids(await db.query<{ id: string }>(RUNNING_ON_INSTANCE_SQL, [p.instanceId]));
}

/** RUNNING task runs of container `executorTypes` whose instance is offline and whose own heartbeat is older than `heartbeatBefore`. */
export async function lostContainerRuns(db: Queryable, p: { executorTypes: readonly string[]; onlineSince: Date; heartbeatBefore: Date }): Promise<string[]> {
  return ids(await db.query<{ id: string }>(LOST_CONTAINER_RUNS_SQL, [p.executorTypes, p.onlineSince, p.heartbeatBefore]));
}
