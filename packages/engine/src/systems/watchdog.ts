// What the maintenance lease holder checks every few seconds: executions past
// their flow timeout (→ TIMED_OUT, what still runs is stopped), task runs with
// no report 60 s after their timeout (→ TIMED_OUT reason timeout), and task
// runs of instances that went away (→ FAILED reason lost), and approval gates
// past their deadline (their `on_timeout`: systems/approvals.ts). Retry
// policies then apply through the normal completion path.
import type pg from 'pg';
import { markInstanceStopped } from '@svc/db';
import { endExecution, latestRuns, lockExecution } from './advance.js';
import { CHANNELS } from '../channels.js';
import { TIMEOUT_GRACE_MS } from '../constants.js';
import { inTx } from '../db.js';
import type { FollowUpRunner } from '../peers.js';
import type { WatchdogReport } from '../resources.js';
import { cancelUnstarted } from '../sql/cancel.js';
import { databaseNow } from '../sql/database.js';
import { onlineSince } from '../sql/fragments.js';
import { insertHistory, notify } from '../sql/history.js';
import { dueExecutions, lostContainerRuns, lostRuns, runningOnInstance, timedOutRuns } from '../sql/watchdog.js';
import type { FollowUp, TaskCompletion } from '../types.js';
import type { Approvals } from './approvals.js';
import type { Completions } from './completion.js';
import { recordFollowUps } from './outbox.js';
import type { Planning } from './planner.js';

/** Executor types whose runs keep running when their dispatcher goes away (a container reporting to the gateway). */
export const CONTAINER_EXECUTORS = ['docker', 'kubernetes'] as const;

/** Planning requests older than this are the watchdog's (their own process plans them within milliseconds). */
export const STALE_REQUEST_MS = 5_000;

/** The rules of the maintenance lease holder, and a stopping dispatcher's end of its runs. */
export class Watchdog {
  constructor(
    private readonly pool: pg.Pool,
    private readonly peers: { completions: Completions; planning: Planning; approvals: Approvals; followUps: FollowUpRunner; now: () => Date },
  ) {}

  async timeOutExecutions(now: Date): Promise<{ ids: string[]; followUps: FollowUp[] }> {
    const follow: FollowUp[] = [];
    const ids: string[] = [];
    for (const id of await dueExecutions(this.pool, { now })) {
      const f = await inTx(this.pool, async (c) => {
        const ex = await lockExecution(c, id);
        if (!ex || (ex.state !== 'RUNNING' && ex.state !== 'CANCELLING')) return null;
        const runs = await latestRuns(c, id);
        const unstarted = runs.filter((r) => r.state === 'PENDING' || r.state === 'QUEUED');
        for (const r of unstarted) await cancelUnstarted(c, { id: r.id, at: now });
        await insertHistory(c, {
          rows: unstarted.map((r) => ({ executionId: id, taskRunId: r.id, from: r.state, to: 'CANCELLED', reason: 'execution_timed_out' })),
          at: now,
        });
        const out = await endExecution(c, ex, { state: 'TIMED_OUT', reason: 'timeout', error: `the flow timeout ${ex.definition.timeout ?? ''} passed` }, now);
        await notify(c, { channel: CHANNELS.stop, payload: id });
        return [...out, ...(await recordFollowUps(c, [{ kind: 'stop_children', executionId: id }]))];
      });
      if (f) {
        ids.push(id);
        follow.push(...f);
      }
    }
    return { ids, followUps: follow };
  }

  private async endMany(ids: string[], done: TaskCompletion, now?: Date): Promise<FollowUp[]> {
    if (!ids.length) return [];
    return (await this.peers.completions.completeMany(ids, done, () => now ?? new Date())).followUps;
  }

  /** @param now a test's clock (or the time the caller read from the database); default the database's clock, which wrote the claims' timeouts. */
  async timeOutTaskRuns(now?: Date): Promise<{ ids: string[]; followUps: FollowUp[] }> {
    const ids = await timedOutRuns(this.pool, { at: now ? new Date(now.getTime() - TIMEOUT_GRACE_MS) : null, graceMs: TIMEOUT_GRACE_MS });
    return {
      ids,
      followUps: await this.endMany(ids, { state: 'TIMED_OUT', reason: 'timeout', error: 'no report from the runner 60 s after the task timeout', exitCode: null }, now),
    };
  }

  /**
   * RUNNING task runs whose claiming instance is offline (stopped, or no heartbeat for 60 s, or its row is gone),
   * except subflow runs waiting on their child.
   * @param now a test's clock (or the time the caller read from the database); default the database's clock, which wrote the heartbeats.
   */
  async failLostTaskRuns(now?: Date, executorTypes = ['process', 'inline']): Promise<{ ids: string[]; followUps: FollowUp[] }> {
    const ids = await lostRuns(this.pool, { onlineSince: now ? onlineSince(now) : null, executorTypes });
    return { ids, followUps: await this.endMany(ids, { state: 'FAILED', reason: 'lost', error: 'the instance running this task went away', exitCode: null }, now) };
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
  async stopInstanceTaskRuns(instanceId: string, now?: Date): Promise<{ ids: string[]; followUps: FollowUp[] }> {
    const done: TaskCompletion = { state: 'FAILED', reason: 'instance_shutdown', error: 'the instance running this task was stopped', exitCode: null };
    const ended = await inTx(this.pool, async (c) => {
      await markInstanceStopped(c, instanceId, now);
      return this.peers.completions.endMany(await runningOnInstance(c, { instanceId }), done, now, c);
    });
    const r = await this.peers.completions.planEnded(() => now ?? new Date(), ended);
    return { ids: r.ended, followUps: r.followUps };
  }

  /**
   * The `lost` rule for docker and kubernetes runs: their container keeps
   * running when the dispatcher that started it goes away, and its runner keeps
   * reporting to the gateway, so such a run is lost only when its instance is
   * offline (stopped, silent for the online window, or its row gone) AND its
   * own task heartbeat (or start, when none came yet) is older than
   * `heartbeatTimeoutMs` (SVC_HEARTBEAT_TIMEOUT).
   */
  async failLostContainerRuns(now: Date, heartbeatTimeoutMs: number): Promise<{ ids: string[]; followUps: FollowUp[] }> {
    const ids = await lostContainerRuns(this.pool, {
      executorTypes: CONTAINER_EXECUTORS,
      onlineSince: onlineSince(now),
      heartbeatBefore: new Date(now.getTime() - heartbeatTimeoutMs),
    });
    return {
      ids,
      followUps: await this.endMany(
        ids,
        { state: 'FAILED', reason: 'lost', error: 'the instance running this task went away and its runner stopped reporting', exitCode: null },
        now,
      ),
    };
  }

  /**
   * One pass of the maintenance holder's rules at `now` (the database's
   * clock unless a test passes one): see Engine.maintenance.watchdog.
   */
  async pass(o: { now?: Date; judgeLiveness: boolean; heartbeatTimeoutMs: number }): Promise<WatchdogReport> {
    const { planning, followUps } = this.peers;
    const now = o.now ?? (await databaseNow(this.pool));
    const ex = await this.timeOutExecutions(now);
    const to = await this.timeOutTaskRuns(now);
    const none = { ids: [] as string[], followUps: [] as FollowUp[] };
    const lost = o.judgeLiveness ? await this.failLostTaskRuns(now) : none;
    const lostContainers = o.judgeLiveness ? await this.failLostContainerRuns(now, o.heartbeatTimeoutMs) : none;
    const gates = await this.peers.approvals.timeOut(now);
    const planned: FollowUp[] = [];
    const planNow = o.now ? () => o.now! : () => this.peers.now();
    for (let i = 0; i < 10 && (await planning.hasStaleRequests(new Date(now.getTime() - STALE_REQUEST_MS))); i++) {
      const r = await planning.plan(planNow);
      planned.push(...r.followUps);
      if (!r.planned) break;
    }
    await followUps.follow([...ex.followUps, ...to.followUps, ...lost.followUps, ...lostContainers.followUps, ...gates.followUps, ...planned]);
    const leftovers = await followUps.drain();
    return { executions: ex.ids, timedOut: to.ids, lost: [...lost.ids, ...lostContainers.ids], approvalsTimedOut: gates.ids, leftovers };
  }
}
