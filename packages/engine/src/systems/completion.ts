// A task run ends: its runner completes it (SUCCESS, FAILED, TIMED_OUT,
// CANCELLED), or the engine ends it (lost, instance_shutdown, timeout). Ending
// is one statement: the run's row (only while it is RUNNING, so a late or
// repeated report changes nothing), its history row, its metrics, the NOTIFY
// hint and a planning request (a `plan_requests` row). What follows (a retry, the next tasks, the
// end of the execution) is decided by the next planning pass (planner.ts).
//
// A completion reported by a task (runner, executor) is masked against the
// secrets its run resolved before it is stored (secret-masking.ts). The
// statement ends a run that recorded secrets only when told the completion is
// masked, so a run without secrets (nearly all) still ends in one statement.
import type pg from 'pg';
import { afterCommit, inTransaction, pipeline } from '@svc/db';
import { advanceMany, type AdvanceOptions, type ExecutionRow, type RunRead } from './advance.js';
import type { Client, Conn } from '../db.js';
import { claimTaskRuns } from '../sql/claim-task-runs.js';
import { endAndReadQuery, endTaskRun, INLINE_PLAN_MAX_TASKS, notifyQueued, type EndAndReadRow } from '../sql/end-task-run.js';
import { planReadQuery } from '../sql/plan-read.js';
import { runSecrets } from '../sql/runner-io.js';
import type { ClaimedRun, EndResult, FollowUp, Masking, PendingCompletion, TaskCompletion } from '../types.js';
import type { Planning } from './planner.js';
import { recordedValues, SecretMasker, withheld } from './secret-masking.js';

export type { EndResult, Masking, PendingCompletion, TaskCompletion } from '../types.js';

/** The planRead of a completion of `run`, from its execution as the claim returned it (undefined when unknown). */
export const planReadOf = (run: { execution_id: string; execution?: { definition?: { tasks?: unknown[] } } }): string | null | undefined => {
  const tasks = run.execution?.definition?.tasks;
  if (!Array.isArray(tasks)) return undefined;
  return tasks.length <= INLINE_PLAN_MAX_TASKS ? run.execution_id : null;
};

/** A task run that ended by an end statement, as an operator's metrics count it. */
export interface EndedTaskRun {
  /** Its executor type (process, inline, docker, kubernetes). */
  executor: string;
  /** The state it ended in (SUCCESS, FAILED, TIMED_OUT, CANCELLED...). */
  state: string;
  /** How long it ran, from its start to its end, in seconds; null for a run that never started. */
  seconds: number | null;
}

/** Told of the task runs each end statement ended (metrics); never throws into the engine. */
export type TaskRunEndListener = (runs: readonly EndedTaskRun[]) => void;

const endedRun = (r: { state: string | null; executor_type: string | null; duration_ms: string | null }): EndedTaskRun => ({
  executor: r.executor_type ?? '',
  state: r.state ?? '',
  seconds: r.duration_ms === null ? null : Number(r.duration_ms) / 1000,
});

/** Task runs ended by endMany, and their executions (each once). */
export interface EndedRuns {
  ended: string[];
  executions: string[];
}

/** Ends task runs and has their executions planned. */
export class Completions {
  private readonly listeners: TaskRunEndListener[] = [];

  constructor(
    private readonly pool: pg.Pool,
    private readonly planning: Planning,
    private readonly opts: AdvanceOptions = {},
  ) {}

  /** Calls `fn` with the task runs every end statement of this engine ends (a metric of their durations). */
  onEnded(fn: TaskRunEndListener): void {
    this.listeners.push(fn);
  }

  private told(runs: EndedTaskRun[]): void {
    if (!runs.length) return;
    for (const fn of this.listeners) {
      try {
        fn(runs);
      } catch {
        // A metric's failure must not fail an end that is already written.
      }
    }
  }

  /**
   * Ends a RUNNING task run in one statement (on the pool, or in the caller's
   * transaction: `db`). Returns its execution's id, or null when the run was
   * not RUNNING. The caller plans the execution afterwards (complete, or a
   * Planner kick). With `masking` (a completion reported by a task), a run
   * that resolved secrets is ended with the completion masked against them.
   * The listeners hear of the run once it is committed: at once on the pool,
   * after the COMMIT of the caller's transaction (@svc/db's afterCommit),
   * never when that transaction rolls back.
   */
  async end(taskRunId: string, done: TaskCompletion, o: { clock?: Date | (() => Date); masking?: Masking; db?: Client | pg.Pool } = {}): Promise<string | null> {
    const db = o.db ?? this.pool;
    const tell = (runs: EndedTaskRun[]) => afterCommit(db, () => this.told(runs));
    const at = (typeof o.clock === 'function' ? o.clock() : o.clock) ?? null;
    const ended = await endTaskRun(db, { taskRunId, done, at, masked: !o.masking });
    if (ended) tell([endedRun(ended)]);
    if (ended || !o.masking) return ended?.execution_id ?? null;
    // Not ended: the run is not RUNNING, or it recorded secrets (one more read tells which).
    const rec = await runSecrets(db, { taskRunId, running: true });
    if (!rec) return null;
    const values = await recordedValues(db, taskRunId, rec, o.masking.masterKeys);
    const masked = await endTaskRun(db, { taskRunId, done: values ? new SecretMasker(values).completion(done) : withheld(done), at, masked: true });
    if (masked) tell([endedRun(masked)]);
    return masked?.execution_id ?? null;
  }

  /**
   * Ends a RUNNING task run and plans its execution at once (waiting for a pass
   * that holds it), on the pool or in the caller's transaction (`db`). Returns
   * the follow-ups for the caller to run.
   */
  async complete(taskRunId: string, done: TaskCompletion, now: () => Date, o: { masking?: Masking; db?: Conn } = {}): Promise<{ ended: boolean; followUps: FollowUp[] }> {
    const db = o.db ?? this.pool;
    const executionId = await this.end(taskRunId, done, { clock: now, masking: o.masking, db });
    if (!executionId) return { ended: false, followUps: [] };
    return { ended: true, followUps: (await this.planning.plan(now, [executionId], db)).followUps };
  }

  /**
   * Ends RUNNING task runs (the completions that arrived together) and plans
   * their executions in the same transaction, each execution that no planning
   * pass holds: one commit where ending and a pass take two, and the next
   * tasks are QUEUED (or the execution ended) before the callers free their
   * slots. Round trips, however many completions: one for BEGIN, the
   * statement that ends the runs and locks their executions with their rows
   * (END_AND_READ_SQL) and, when the callers named their executions
   * (`planRead`), the read of their task runs after the locks, sent together
   * (@svc/db's pipeline; else the read is a round trip of its own); the plan's
   * write, which also starts the runs it queues for the freed slots when none
   * older waits (the handoff); a claim for the slots left, if any; COMMIT.
   * A chain's step is three. An execution a pass holds
   * gets planning requests instead (`planned: false`: the caller kicks its
   * planner). A run that recorded secrets, whose completion is to be masked,
   * is ended on the side in the same transaction (endTaskRun) and planned by
   * a pass.
   */
  async endAndPlan(items: PendingCompletion[], now: () => Date): Promise<{ results: EndResult[]; followUps: FollowUp[] }> {
    return inTransaction(this.pool, (c) => this.endAndPlanIn(c, items, now), { fnBegins: true });
  }

  /** endAndPlan on `c`, whose transaction it begins (BEGIN goes out with its first statements); the caller commits. */
  private async endAndPlanIn(c: pg.PoolClient, items: PendingCompletion[], now: () => Date): Promise<{ results: EndResult[]; followUps: FollowUp[] }> {
    // One round trip: BEGIN, the ends with the locks, and the planning read of the executions
    // the callers named (else advanceMany reads after this). The read is a statement of its own,
    // after the locks are held: the statement that took them saw the database as it was when it
    // began, before a batch or pass that held an execution until then committed (its ends and
    // plan would be missing, and both would plan from a state the other changed: an execution
    // whose last runs end side by side never ends).
    const known = items.every((it) => it.planRead !== undefined);
    const toRead = [...new Set(items.map((it) => it.planRead).filter((id): id is string => !!id))];
    const [, ended_, read] = await pipeline(c, [{ text: 'BEGIN' }, endAndReadQuery({ items }), ...(known && toRead.length ? [planReadQuery({ executionIds: toRead })] : [])]);
    const rows = ended_.rows as EndAndReadRow[];
    const ended = new Map<string, { executionId: string; locked: boolean }>();
    for (const r of rows) if (r.kind === 'x') ended.set(r.id, { executionId: r.execution_id, locked: r.locked === true });
    // The listeners hear of the ends once they are committed: a batch that fails after its end statement
    // is rolled back and submitted again, and must not count its runs twice.
    const endedRuns = rows.filter((r) => r.kind === 'x').map(endedRun);
    afterCommit(c, () => this.told(endedRuns));
    const results: EndResult[] = [];
    for (const it of items) {
      const e = ended.get(it.taskRunId);
      if (e) results.push({ executionId: e.executionId, planned: e.locked, claimed: [] });
      // Not RUNNING, or a run with secrets whose completion is to be masked first.
      else results.push({ executionId: it.masking ? await this.end(it.taskRunId, it.done, { masking: it.masking, db: c }) : null, planned: false, claimed: [] });
    }
    const executions = rows
      .filter((r) => r.kind === 'e' && r.ex)
      .map(
        (r) =>
          ({ ...r.ex, started_at: r.ex!.started_at ? new Date(r.ex!.started_at as string) : null, created_at: new Date(r.ex!.created_at as string) }) as unknown as ExecutionRow,
      );
    // The freed slots: per dispatcher and executor type, its completions in the batch.
    const wanting = new Map<string, number[]>();
    items.forEach((it, i) => {
      if (!it.claim || !results[i].executionId) return;
      const k = JSON.stringify([it.claim.instanceId, it.claim.pools, it.claim.executorType]);
      wanting.set(k, [...(wanting.get(k) ?? []), i]);
    });
    const groups = [...wanting.values()].map((idx) => ({ idx, o: items[idx[0]].claim!, filled: 0 }));
    // The first group's slots take the runs this plan queues for them in the plan's own statement (the handoff).
    const first = groups[0];
    const queuedOut = {
      quiet: groups.length > 0,
      queued: [] as { id: string; executor_type: string }[],
      handoff: first ? { ...first.o, limit: first.idx.length } : undefined,
      started: [] as ClaimedRun[],
    };
    // The runs read in the first round trip, if they cover every execution locked (they do, unless a caller misnamed one).
    const runs = read && executions.every((e) => toRead.includes(e.id)) ? (read.rows as RunRead[]) : undefined;
    const followUps = executions.length ? await advanceMany(c, executions, now(), this.opts, queuedOut, runs) : [];
    if (first) for (const run of queuedOut.started) results[first.idx[first.filled++]].claimed.push(run);
    // The slots left: one claim per dispatcher and executor type for all of its completions in the batch.
    for (const g of groups) {
      if (g.filled >= g.idx.length) continue;
      const { runs: claimed } = await claimTaskRuns(c, { ...g.o, limit: g.idx.length - g.filled });
      claimed.forEach((run, j) => results[g.idx[g.filled + j]].claimed.push(run));
    }
    // The runs queued here that these claims did not take: wake the dispatchers for them (a chain's next task, claimed, needs none).
    const taken = new Set(results.flatMap((r) => r.claimed.map((x) => x.id)));
    const left = [...new Set(queuedOut.queued.filter((q) => !taken.has(q.id)).map((q) => q.executor_type))];
    if (left.length) await notifyQueued(c, { executorTypes: left });
    return { results, followUps };
  }

  /** Ends many RUNNING task runs with the same completion (on the pool, or in the caller's transaction); plan them with planEnded. */
  async endMany(taskRunIds: string[], done: TaskCompletion, now?: Date | (() => Date), db: Client | pg.Pool = this.pool): Promise<EndedRuns> {
    const ended: string[] = [];
    const executions = new Set<string>();
    for (const id of taskRunIds) {
      const ex = await this.end(id, done, { clock: now, db });
      if (ex) {
        ended.push(id);
        executions.add(ex);
      }
    }
    return { ended, executions: [...executions] };
  }

  /** Plans the executions of task runs endMany ended, in one pass. */
  async planEnded(now: () => Date, r: EndedRuns): Promise<{ ended: string[]; followUps: FollowUp[] }> {
    if (!r.executions.length) return { ended: r.ended, followUps: [] };
    return { ended: r.ended, followUps: (await this.planning.plan(now, r.executions)).followUps };
  }

  /** Ends many RUNNING task runs with the same completion, then plans their executions in one pass. */
  async completeMany(taskRunIds: string[], done: TaskCompletion, now: () => Date): Promise<{ ended: string[]; followUps: FollowUp[] }> {
    return this.planEnded(now, await this.endMany(taskRunIds, done, now));
  }
}
