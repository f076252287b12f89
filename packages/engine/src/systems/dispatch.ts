// Claims: a dispatcher takes QUEUED task runs of its pools and executor type,
// oldest first, in one statement (FOR UPDATE SKIP LOCKED: concurrent
// dispatchers never take the same row and never wait on each other). The same
// statement writes the history rows and the NOTIFY hints, returns what the
// dispatcher needs to prepare each run (its execution's row), and the time
// the next run held back by a retry backoff becomes claimable. Also what
// dispatchers ask of the task runs they hold: whether each should stop,
// whether its task started, and the deployment's identity their containers
// are labelled with.
import type pg from 'pg';
import { claimTaskRuns, clearNoInstanceReason, markUnserved } from '../sql/claim-task-runs.js';
import { deploymentId } from '../sql/database.js';
import { runnerCalledIn, runsToStop, stillRunning, taskRunProgress } from '../sql/task-run-reads.js';
import type { ClaimedRun, ClaimOptions, ClaimResult } from '../types.js';

export type { ClaimedRun, ClaimOptions, ClaimResult } from '../types.js';

/** `load` called once, its promise kept; called again after it failed. */
export function onceUntilFailed<T>(load: () => Promise<T>): () => Promise<T> {
  let kept: Promise<T> | undefined;
  return () =>
    (kept ??= load().catch((err: unknown) => {
      kept = undefined;
      throw err;
    }));
}

export class Dispatch {
  /** Read once (again after a failed read): it never changes. */
  private readonly deployment = onceUntilFailed(() => deploymentId(this.pool));

  constructor(private readonly pool: pg.Pool) {}

  /** Claims up to `limit` QUEUED runs (round trips: one), on the database's clock unless `o.now`. */
  async claim(o: ClaimOptions): Promise<ClaimResult> {
    const r = await claimTaskRuns(this.pool, o);
    return { runs: r.runs, nextAt: r.nextAt, at: r.at ?? o.now ?? new Date() };
  }

  /** claim() without the next claimable time. */
  async claimRuns(o: ClaimOptions): Promise<ClaimedRun[]> {
    if (o.limit <= 0) return [];
    return (await this.claim(o)).runs;
  }

  /** Clears `no_instance_for_pool` on QUEUED runs this dispatcher serves (it is online now). */
  clearNoInstanceReason(pools: string[], executorTypes: string[]): Promise<void> {
    return clearNoInstanceReason(this.pool, { pools, executorTypes });
  }

  /**
   * Labels `no_instance_for_pool` the QUEUED runs of these pools and executor
   * types that no online dispatcher serves any more (after this instance
   * withdrew an executor whose engine stopped answering).
   */
  async markUnserved(pools: string[], executorTypes: string[]): Promise<void> {
    if (!executorTypes.length) return;
    await markUnserved(this.pool, { pools, executorTypes });
  }

  /** Whether the runner of this task run reported that the task started (its `started` event, or a progress of the task's). */
  async taskStarted(taskRunId: string): Promise<boolean> {
    const p = await taskRunProgress(this.pool, { taskRunId });
    return !!p && (p.type === 'started' || p.percent !== undefined);
  }

  /** Whether the runner of this RUNNING task run has called in since the claim (an event, or a heartbeat); undefined when it is not RUNNING. */
  async runnerCalledIn(taskRunId: string): Promise<boolean | undefined> {
    return runnerCalledIn(this.pool, { taskRunId });
  }

  /** Of these task runs, those RUNNING now (a run unknown here, or ended, is not). */
  async stillRunning(taskRunIds: string[]): Promise<string[]> {
    if (!taskRunIds.length) return [];
    return stillRunning(this.pool, { ids: taskRunIds });
  }

  /** Of these task runs, those to stop: ended, or of an execution no longer RUNNING. */
  async runsToStop(taskRunIds: string[]): Promise<string[]> {
    if (!taskRunIds.length) return [];
    return runsToStop(this.pool, { ids: taskRunIds });
  }

  /** The deployment's identity (cluster and database), read once. */
  deploymentId(): Promise<string> {
    return this.deployment();
  }
}
