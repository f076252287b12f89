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
import type { MasterKey } from '@svc/config';
import { inTransaction, pipeline } from '@svc/db';
import { advanceMany, planRead, type AdvanceOptions, type ExecutionRow, type FollowUp, type RunRead } from './advance.js';
import type { Client, Conn } from '../db.js';
import { claimRuns, type ClaimedRun, type ClaimOptions } from './dispatch.js';
import { END_AND_READ_SQL, END_TASK_RUN_SQL, INLINE_PLAN_MAX_TASKS } from '../sql/end-task-run.js';
import { planExecutions } from './planner.js';
import { recordedValues, SecretMasker, withheld, type RecordedSecrets } from './secret-masking.js';
import { NOTIFY_QUEUED_SQL, RUNNING_RUN_SECRETS_SQL } from '../sql/end-task-run.js';

export interface TaskCompletion {
  state: 'SUCCESS' | 'FAILED' | 'TIMED_OUT' | 'CANCELLED';
  reason: string;
  error: string;
  exitCode: number | null;
  outputs?: Record<string, unknown>;
  metrics?: { name: string; value: number; tags?: Record<string, string> }[];
}

/**
 * How a completion reported by a task is masked: the master keys that open
 * the secret values recorded on its run. Every completion whose text comes
 * from a task (a runner, an executor) must pass it; completions whose text the
 * engine wrote itself (timeouts, lost runs, shutdown) need not.
 */
export interface Masking {
  masterKeys: readonly MasterKey[];
}

/**
 * Ends a RUNNING task run in one statement (on a pool, or in the caller's
 * transaction). Returns its execution's id, or null when the run was not
 * RUNNING. The caller plans the execution afterwards (completeTaskRun, or a
 * Planner kick). With `masking` (a completion reported by a task), a run that
 * resolved secrets is ended with the completion masked against them.
 */
export async function endTaskRun(c: Client | pg.Pool, taskRunId: string, done: TaskCompletion, clock?: Date | (() => Date), masking?: Masking): Promise<string | null> {
  const now = (typeof clock === 'function' ? clock() : clock) ?? null;
  const ended = await endStatement(c, taskRunId, done, now, !masking);
  if (ended || !masking) return ended;
  // Not ended: the run is not RUNNING, or it recorded secrets (one more read tells which).
  const rec = (await c.query<{ secrets: RecordedSecrets | null }>(RUNNING_RUN_SECRETS_SQL, [taskRunId])).rows[0]?.secrets;
  if (!rec) return null;
  const values = await recordedValues(c, taskRunId, rec, masking.masterKeys);
  return endStatement(c, taskRunId, values ? new SecretMasker(values).completion(done) : withheld(done), now, true);
}

async function endStatement(c: Client | pg.Pool, taskRunId: string, done: TaskCompletion, now: Date | null, masked: boolean): Promise<string | null> {
  const metrics = done.metrics ?? [];
  const r = await c.query<{ execution_id: string }>({
    name: 'svc-end-task-run',
    text: END_TASK_RUN_SQL,
    values: [
      taskRunId,
      done.state,
      done.reason,
      done.error.slice(0, 4000),
      done.exitCode,
      done.outputs ? JSON.stringify(done.outputs) : null,
      now,
      metrics.map((m) => m.name),
      metrics.map((m) => m.value),
      metrics.map((m) => JSON.stringify(m.tags ?? {})),
      masked,
    ],
  });
  return r.rows[0]?.execution_id ?? null;
}

/**
 * Ends a RUNNING task run and plans its execution at once (waiting for a pass
 * that holds it). Returns the follow-ups for the caller to run.
 */
export async function completeTaskRun(
  pool: Conn,
  taskRunId: string,
  done: TaskCompletion,
  now: () => Date,
  opts: AdvanceOptions & { masking?: Masking } = {},
): Promise<{ ended: boolean; followUps: FollowUp[] }> {
  const executionId = await endTaskRun(pool, taskRunId, done, now, opts.masking);
  if (!executionId) return { ended: false, followUps: [] };
  return { ended: true, followUps: (await planExecutions(pool, now, [executionId], opts)).followUps };
}

/** A completion to end with others (endAndPlan). */
export interface PendingCompletion {
  taskRunId: string;
  done: TaskCompletion;
  /** A completion reported by a task: masked against its run's secrets. */
  masking?: Masking;
  /**
   * Claims one QUEUED run for the slot this run frees, in the same
   * transaction (after planning, so the next task of its own execution can
   * be the one): the dispatcher launches it without a claim of its own.
   */
  claim?: Omit<ClaimOptions, 'limit' | 'now'>;
  /**
   * The run's execution as the caller knows it (a claimed run carries its
   * definition): its id when it is planned inline (INLINE_PLAN_MAX_TASKS
   * tasks at most), null when it is not. When every completion of a batch
   * says, the planning read goes out with the ends in the first round trip.
   */
  planRead?: string | null;
}

/** The planRead of a completion of `run`, from its execution as the claim returned it (undefined when unknown). */
export const planReadOf = (run: { execution_id: string; execution?: { definition?: { tasks?: unknown[] } } }): string | null | undefined => {
  const tasks = run.execution?.definition?.tasks;
  if (!Array.isArray(tasks)) return undefined;
  return tasks.length <= INLINE_PLAN_MAX_TASKS ? run.execution_id : null;
};

/** What endAndPlan did for one completion. */
export interface EndResult {
  /** The run's execution when this call ended the run, else null (it was not RUNNING). */
  executionId: string | null;
  /** Whether the execution was planned in the same transaction (else a pass plans its request). */
  planned: boolean;
  /** What `claim` claimed for the freed slot (at most one run). */
  claimed: ClaimedRun[];
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
export async function endAndPlan(pool: pg.Pool, items: PendingCompletion[], now: () => Date, opts: AdvanceOptions = {}): Promise<{ results: EndResult[]; followUps: FollowUp[] }> {
  return inTransaction(pool, (c) => endAndPlanIn(c, items, now, opts), { fnBegins: true });
}

/** endAndPlan on `c`, whose transaction it begins (BEGIN goes out with its first statements); the caller commits. */
async function endAndPlanIn(c: pg.PoolClient, items: PendingCompletion[], now: () => Date, opts: AdvanceOptions): Promise<{ results: EndResult[]; followUps: FollowUp[] }> {
  const metrics = items.flatMap((it) => (it.done.metrics ?? []).map((m) => ({ run: it.taskRunId, ...m })));
  // One round trip: BEGIN, the ends with the locks, and the planning read of the executions
  // the callers named (else advanceMany reads after this). The read is a statement of its own,
  // after the locks are held: the statement that took them saw the database as it was when it
  // began, before a batch or pass that held an execution until then committed (its ends and
  // plan would be missing, and both would plan from a state the other changed: an execution
  // whose last runs end side by side never ends).
  const known = items.every((it) => it.planRead !== undefined);
  const toRead = [...new Set(items.map((it) => it.planRead).filter((id): id is string => !!id))];
  const [, ended_, read] = await pipeline(c, [
    { text: 'BEGIN' },
    {
      name: 'svc-end-and-read',
      text: END_AND_READ_SQL,
      values: [
        items.map((it) => it.taskRunId),
        items.map((it) => it.done.state),
        items.map((it) => it.done.reason),
        items.map((it) => it.done.error.slice(0, 4000)),
        items.map((it) => it.done.exitCode),
        items.map((it) => (it.done.outputs ? JSON.stringify(it.done.outputs) : null)),
        items.map((it) => !it.masking),
        metrics.map((m) => m.run),
        metrics.map((m) => m.name),
        metrics.map((m) => m.value),
        metrics.map((m) => JSON.stringify(m.tags ?? {})),
      ],
    },
    ...(known && toRead.length ? [planRead(toRead)] : []),
  ]);
  const rows = ended_.rows as { kind: 'x' | 'e'; id: string; execution_id: string; locked: boolean | null; ex: Record<string, unknown> | null }[];
  const ended = new Map<string, { executionId: string; locked: boolean }>();
  for (const r of rows) if (r.kind === 'x') ended.set(r.id, { executionId: r.execution_id, locked: r.locked === true });
  const results: EndResult[] = [];
  for (const it of items) {
    const e = ended.get(it.taskRunId);
    if (e) results.push({ executionId: e.executionId, planned: e.locked, claimed: [] });
    // Not RUNNING, or a run with secrets whose completion is to be masked first.
    else results.push({ executionId: it.masking ? await endTaskRun(c, it.taskRunId, it.done, undefined, it.masking) : null, planned: false, claimed: [] });
  }
  const executions = rows
    .filter((r) => r.kind === 'e' && r.ex)
    .map(
      (r) => ({ ...r.ex, started_at: r.ex!.started_at ? new Date(r.ex!.started_at as string) : null, created_at: new Date(r.ex!.created_at as string) }) as unknown as ExecutionRow,
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
  const followUps = executions.length ? await advanceMany(c, executions, now(), opts, queuedOut, runs) : [];
  if (first) for (const run of queuedOut.started) results[first.idx[first.filled++]].claimed.push(run);
  // The slots left: one claim per dispatcher and executor type for all of its completions in the batch.
  for (const g of groups) {
    if (g.filled >= g.idx.length) continue;
    const { runs: claimed } = await claimRuns(c, { ...g.o, limit: g.idx.length - g.filled });
    claimed.forEach((run, j) => results[g.idx[g.filled + j]].claimed.push(run));
  }
  // The runs queued here that these claims did not take: wake the dispatchers for them (a chain's next task, claimed, needs none).
  const taken = new Set(results.flatMap((r) => r.claimed.map((x) => x.id)));
  const left = [...new Set(queuedOut.queued.filter((q) => !taken.has(q.id)).map((q) => q.executor_type))];
  if (left.length) await c.query(NOTIFY_QUEUED_SQL, [left]);
  return { results, followUps };
}

/** Task runs ended by endTaskRuns, and their executions (each once). */
export interface EndedRuns {
  ended: string[];
  executions: string[];
}

/** Ends many RUNNING task runs with the same completion (on a pool, or in the caller's transaction); plan them with planEnded. */
export async function endTaskRuns(c: Client | pg.Pool, taskRunIds: string[], done: TaskCompletion, now?: Date | (() => Date)): Promise<EndedRuns> {
  const ended: string[] = [];
  const executions = new Set<string>();
  for (const id of taskRunIds) {
    const ex = await endTaskRun(c, id, done, now);
    if (ex) {
      ended.push(id);
      executions.add(ex);
    }
  }
  return { ended, executions: [...executions] };
}

/** Plans the executions of task runs endTaskRuns ended, in one pass. */
export async function planEnded(pool: Conn, now: () => Date, r: EndedRuns): Promise<{ ended: string[]; followUps: FollowUp[] }> {
  if (!r.executions.length) return { ended: r.ended, followUps: [] };
  return { ended: r.ended, followUps: (await planExecutions(pool, now, r.executions)).followUps };
}

/** Ends many RUNNING task runs with the same completion, then plans their executions in one pass. */
export async function completeTaskRuns(pool: pg.Pool, taskRunIds: string[], done: TaskCompletion, now: () => Date): Promise<{ ended: string[]; followUps: FollowUp[] }> {
  return planEnded(pool, now, await endTaskRuns(pool, taskRunIds, done, now));
}
