// What the maintenance lease holder checks every few seconds: executions past
// their flow timeout (→ TIMED_OUT, what still runs is stopped), task runs with
// no report 60 s after their timeout (→ TIMED_OUT reason timeout), and task
// runs of instances that went away (→ FAILED reason lost). Retry policies then
// apply through the normal completion path.
import type pg from 'pg';
import { endExecution, latestRuns, lockExecution, onlineSince, type FollowUp } from './advance.js';
import { TIMEOUT_GRACE_MS } from '../constants.js';
import { CHANNELS, history, inTx, notify } from '../db.js';
import { markInstanceStopped } from '@svc/db';
import { completeTaskRuns, endTaskRuns, planEnded, type TaskCompletion } from './completion.js';
import { recordFollowUps } from './outbox.js';
import { drainOutbox } from './followups.js';
import { hasStaleRequests, planExecutions } from './planner.js';
import type { SystemResources, WatchdogReport } from '../resources.js';
import { DATABASE_NOW_SQL } from '../sql/database.js';
import { CANCEL_UNSTARTED_SQL } from '../sql/cancel.js';
import { DUE_EXECUTIONS_SQL, LOST_CONTAINER_RUNS_SQL, LOST_RUNS_SQL, RUNNING_ON_INSTANCE_SQL, TIMED_OUT_RUNS_SQL } from '../sql/watchdog.js';

export async function timeOutExecutions(pool: pg.Pool, now: Date): Promise<{ ids: string[]; followUps: FollowUp[] }> {
  const due = (await pool.query<{ id: string }>(DUE_EXECUTIONS_SQL, [now])).rows;
  const follow: FollowUp[] = [];
  const ids: string[] = [];
  for (const { id } of due) {
    const f = await inTx(pool, async (c) => {
      const ex = await lockExecution(c, id);
      if (!ex || (ex.state !== 'RUNNING' && ex.state !== 'CANCELLING')) return null;
      const runs = await latestRuns(c, id);
      const unstarted = runs.filter((r) => r.state === 'PENDING' || r.state === 'QUEUED');
      for (const r of unstarted) await c.query(CANCEL_UNSTARTED_SQL, [r.id, now]);
      await history(
        c,
        unstarted.map((r) => ({ executionId: id, taskRunId: r.id, from: r.state, to: 'CANCELLED', reason: 'execution_timed_out' })),
        now,
      );
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
  const ids = (await pool.query<{ id: string }>(TIMED_OUT_RUNS_SQL, [now ? new Date(now.getTime() - TIMEOUT_GRACE_MS) : null, TIMEOUT_GRACE_MS])).rows.map((r) => r.id);
  return {
    ids,
    followUps: await endMany(pool, ids, { state: 'TIMED_OUT', reason: 'timeout', error: 'no report from the runner 60 s after the task timeout', exitCode: null }, now),
  };
}

/**
 * RUNNING task runs whose claiming instance is offline (stopped, or no heartbeat for 60 s, or its row is gone),
 * except subflow runs waiting on their child.
 * @param now a test's clock (or the time the caller read from the database); default the database's clock, which wrote the heartbeats.
 */
export async function failLostTaskRuns(pool: pg.Pool, now?: Date, executorTypes = ['process', 'inline']): Promise<{ ids: string[]; followUps: FollowUp[] }> {
  const ids = (await pool.query<{ id: string }>(LOST_RUNS_SQL, [now ? onlineSince(now) : null, executorTypes])).rows.map((r) => r.id);
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
    const running = (await c.query<{ id: string }>(RUNNING_ON_INSTANCE_SQL, [instanceId])).rows;
    return endTaskRuns(
      c,
      running.map((r) => r.id),
      done,
      now,
    );
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
  const r = await pool.query<{ id: string }>(LOST_CONTAINER_RUNS_SQL, [CONTAINER_EXECUTORS, onlineSince(now), new Date(now.getTime() - heartbeatTimeoutMs)]);
  const ids = r.rows.map((x) => x.id);
  return {
    ids,
    followUps: await endMany(
      pool,
      ids,
      { state: 'FAILED', reason: 'lost', error: 'the instance running this task went away and its runner stopped reporting', exitCode: null },
      now,
    ),
  };
}

/** Planning requests older than this are the watchdog's (their own process plans them within milliseconds). */
export const STALE_REQUEST_MS = 5_000;

/**
 * One pass of the maintenance holder's rules at `now` (the database's
 * clock unless a test passes one): see Engine.watchdog.
 */
export async function watchdogPass(sys: SystemResources, o: { now?: Date; judgeLiveness: boolean; heartbeatTimeoutMs: number }): Promise<WatchdogReport> {
  const { pool } = sys;
  const now = o.now ?? (await pool.query<{ now: Date }>(DATABASE_NOW_SQL)).rows[0].now;
  const ex = await timeOutExecutions(pool, now);
  const to = await timeOutTaskRuns(pool, now);
  const none = { ids: [] as string[], followUps: [] as FollowUp[] };
  const lost = o.judgeLiveness ? await failLostTaskRuns(pool, now) : none;
  const lostContainers = o.judgeLiveness ? await failLostContainerRuns(pool, now, o.heartbeatTimeoutMs) : none;
  const planned: FollowUp[] = [];
  const planNow = o.now ? () => o.now! : () => sys.now();
  for (let i = 0; i < 10 && (await hasStaleRequests(pool, new Date(now.getTime() - STALE_REQUEST_MS))); i++) {
    const r = await planExecutions(pool, planNow, undefined, { storage: sys.resources.storage });
    planned.push(...r.followUps);
    if (!r.planned) break;
  }
  await sys.follow([...ex.followUps, ...to.followUps, ...lost.followUps, ...lostContainers.followUps, ...planned]);
  const leftovers = await drainOutbox(pool, sys.deps);
  return { executions: ex.ids, timedOut: to.ids, lost: [...lost.ids, ...lostContainers.ids], leftovers };
}
