// What the maintenance lease holder checks every few seconds: executions past
// their flow timeout (→ TIMED_OUT, what still runs is stopped), task runs with
// no report 60 s after their timeout (→ TIMED_OUT reason timeout), and task
// runs of instances that went away (→ FAILED reason lost). Retry policies then
// apply through the normal completion path.
import type pg from 'pg';
import { endExecution, latestRuns, lockExecution, onlineSince, onlineSinceSql, type FollowUp } from './advance.js';
import { TIMEOUT_GRACE_MS } from './constants.js';
import { CHANNELS, history, inTx, notify } from './db.js';
import { markInstanceStopped } from '@svc/db';
import { completeTaskRuns, endTaskRuns, planEnded, type TaskCompletion } from './complete.js';
import { recordFollowUps } from './outbox.js';
import { CANCEL_UNSTARTED_SQL } from './sql/cancel.js';

export async function timeOutExecutions(pool: pg.Pool, now: Date): Promise<{ ids: string[]; followUps: FollowUp[] }> {
  const due = (await pool.query<{ id: string }>(`SELECT id FROM executions WHERE state IN ('RUNNING', 'CANCELLING') AND timeout_at <= $1 ORDER BY timeout_at LIMIT 100`, [now])).rows;
  const follow: FollowUp[] = [];
  const ids: string[] = [];
  for (const { id } of due) {
    const f = await inTx(pool, async (c) => {
      const ex = await lockExecution(c, id);
      if (!ex || (ex.state !== 'RUNNING' && ex.state !== 'CANCELLING')) return null;
      const runs = await latestRuns(c, id);
      const unstarted = runs.filter((r) => r.state === 'PENDING' || r.state === 'QUEUED');
      for (const r of unstarted) await c.query(CANCEL_UNSTARTED_SQL, [r.id, now]);
      await history(c, unstarted.map((r) => ({ executionId: id, taskRunId: r.id, from: r.state, to: 'CANCELLED', reason: 'execution_timed_out' })), now);
      const out = await endExecution(c, ex, { state: 'TIMED_OUT', reason: 'timeout', error: `the flow timeout ${ex.definition.timeout ?? ''} passed` }, now);
      await notify(c, CHANNELS.stop, id);
      return [...out, ...(await recordFollowUps(c, [{ kind: 'stop_children', executionId: id }]))];
    });
    if (f) {
      ids.push(id);
      follow.push(...f);
    }
  }
  return { ids, followUps: follow };
}

async function endMany(pool: pg.Pool, ids: string[], done: TaskCompletion, now?: Date): Promise<FollowUp[]> {
  if (!ids.length) return [];
  return (await completeTaskRuns(pool, ids, done, () => now ?? new Date())).followUps;
}

/** @param now a test's clock (or the time the caller read from the database); default the database's clock, which wrote the claims' timeouts. */
export async function timeOutTaskRuns(pool: pg.Pool, now?: Date): Promise<{ ids: string[]; followUps: FollowUp[] }> {
  const ids = (
    await pool.query<{ id: string }>(
      `SELECT id FROM task_runs WHERE state = 'RUNNING' AND timeout_at <= COALESCE($1::timestamptz, now() - $2 * interval '1 millisecond') LIMIT 500`,
      [now ? new Date(now.getTime() - TIMEOUT_GRACE_MS) : null, TIMEOUT_GRACE_MS],
    )
  ).rows.map((r) => r.id);
  return { ids, followUps: await endMany(pool, ids, { state: 'TIMED_OUT', reason: 'timeout', error: 'no report from the runner 60 s after the task timeout', exitCode: null }, now) };
}

/**
 * A task run `t` that is not its instance's work any more: a subflow task
 * waiting for the child it started (the child was created with
 * `parent_task_run_id` = the run, in the statement that created it, so there
 * is no window). The child's end completes it (`child_ended`), whoever runs
 * the child; ending it because its dispatcher went away would fail the
 * parent's task while the child runs on, and its retry would start the child
 * again.
 */
const NOT_WAITING_ON_A_CHILD = `NOT EXISTS (SELECT 1 FROM executions c WHERE c.parent_task_run_id = t.id)`;

/**
 * RUNNING task runs whose claiming instance is offline (stopped, or no heartbeat for 60 s, or its row is gone),
 * except subflow runs waiting on their child.
 * @param now a test's clock (or the time the caller read from the database); default the database's clock, which wrote the heartbeats.
 */
export async function failLostTaskRuns(pool: pg.Pool, now?: Date, executorTypes = ['process', 'inline']): Promise<{ ids: string[]; followUps: FollowUp[] }> {
  const ids = (
    await pool.query<{ id: string }>(
      `SELECT t.id FROM task_runs t LEFT JOIN instances i ON i.id = t.claimed_by
       WHERE t.state = 'RUNNING' AND t.executor_type = ANY($2)
         AND (i.id IS NULL OR i.stopped_at IS NOT NULL OR i.last_heartbeat_at < ${onlineSinceSql('$1')})
         AND ${NOT_WAITING_ON_A_CHILD} LIMIT 500`,
      [now ? onlineSince(now) : null, executorTypes],
    )
  ).rows.map((r) => r.id);
  return { ids, followUps: await endMany(pool, ids, { state: 'FAILED', reason: 'lost', error: 'the instance running this task went away', exitCode: null }, now) };
}

/**
 * A dispatcher stopping (SIGTERM): the instance is marked stopped and its
 * RUNNING task runs end FAILED reason instance_shutdown, in one transaction,
 * then their executions are planned (retries apply). Atomic because a stopped
 * instance's runs count as lost: the maintenance holder could otherwise end
 * them `lost` between the two steps. Stopped first, so the retries planned
 * after do not count on this instance serving their pool. Subflow runs
 * waiting on their child stay RUNNING: the child's end completes them.
 */
export async function stopInstanceTaskRuns(pool: pg.Pool, instanceId: string, now?: Date): Promise<{ ids: string[]; followUps: FollowUp[] }> {
  const done: TaskCompletion = { state: 'FAILED', reason: 'instance_shutdown', error: 'the instance running this task was stopped', exitCode: null };
  const ended = await inTx(pool, async (c) => {
    await markInstanceStopped(c, instanceId, now);
    const running = (await c.query<{ id: string }>(`SELECT t.id FROM task_runs t WHERE t.state = 'RUNNING' AND t.claimed_by = $1 AND ${NOT_WAITING_ON_A_CHILD}`, [instanceId])).rows;
    return endTaskRuns(c, running.map((r) => r.id), done, now);
  });
  const r = await planEnded(pool, () => now ?? new Date(), ended);
  return { ids: r.ended, followUps: r.followUps };
}

/** Executor types whose runs keep running when their dispatcher goes away (a container reporting to the gateway). */
export const CONTAINER_EXECUTORS = ['docker', 'kubernetes'] as const;

/**
 * The `lost` rule for docker and kubernetes runs: their container keeps
 * running when the dispatcher that started it goes away, and its runner keeps
 * reporting to the gateway, so such a run is lost only when its instance is
 * offline (stopped, silent for the online window, or its row gone) AND its
 * own task heartbeat (or start, when none came yet) is older than
 * `heartbeatTimeoutMs` (SVC_HEARTBEAT_TIMEOUT).
 */
export async function failLostContainerRuns(pool: pg.Pool, now: Date, heartbeatTimeoutMs: number): Promise<{ ids: string[]; followUps: FollowUp[] }> {
  const r = await pool.query<{ id: string }>(
    `SELECT t.id FROM task_runs t LEFT JOIN instances i ON i.id = t.claimed_by
     WHERE t.state = 'RUNNING' AND t.executor_type = ANY($1)
       AND (i.id IS NULL OR i.stopped_at IS NOT NULL OR i.last_heartbeat_at < $2)
       AND COALESCE(t.last_heartbeat_at, t.started_at, t.claimed_at, t.created_at) < $3
     LIMIT 500`,
    [CONTAINER_EXECUTORS, onlineSince(now), new Date(now.getTime() - heartbeatTimeoutMs)],
  );
  const ids = r.rows.map((x) => x.id);
  return { ids, followUps: await endMany(pool, ids, { state: 'FAILED', reason: 'lost', error: 'the instance running this task went away and its runner stopped reporting', exitCode: null }, now) };
}
