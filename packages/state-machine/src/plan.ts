// The planner: from a flow's task graph and the task runs' states, what the
// engine must do next. Pure; the engine applies the plan in the transaction
// that holds the execution row, then plans again after every task run ends.
//
// Modes:
// - Running (stopping null): PENDING latest runs whose dependencies all ended
//   are decided by `run_if`: QUEUED (within max_parallel, in task list order)
//   or SKIPPED `condition_not_met`. Skips cascade to a fixed point inside one
//   call, so a flow whose remaining tasks are all skipped ends in the same plan.
// - Stopping (cancel or timeout): nothing is queued; PENDING and QUEUED latest
//   runs are cancelled; RUNNING ones are left to their runners, which kill
//   them. The execution ends once nothing is RUNNING.
// - Approval gates (an extension): a task with `approval` that `run_if` would
//   queue waits instead (`await`: its run stays PENDING, reason
//   awaiting_approval, holding no max_parallel slot) until its run's `gate` is
//   `approved`; then it is queued like any other. A reject or a timeout ends
//   the run outside the planner, which then plans its dependents as usual.
// - Paused (an extension): as running, but nothing is queued, retried or put
//   to wait; what would be keeps the execution from ending.
//
// Retries are rows: a failed attempt with attempts left gets a new row
// attempt+1 in QUEUED, so only the latest attempt of a task counts. The
// planner decides them (`retry`) while the execution runs: a latest attempt
// FAILED or TIMED_OUT with attempts left has not ended as far as the graph is
// concerned, so its dependents wait and the execution does not end. Because
// the decision is a function of the states alone, any planner that sees the
// failed attempt makes it, and a retry row that already exists is the latest
// attempt, so it is never made twice.
import { assertNever } from '@svc/assert';
import { shouldRetry } from './retry.js';
import { isTaskRunEnded, type TaskRunState } from './states.js';

/**
 * `expression`: the flow's `run_if` is a condition (an extension): decided
 * like `success`, then by the caller's `condition` (true queues, false skips,
 * an error fails the run `condition_error`, which is not retried).
 */
export type RunIf = 'success' | 'failure' | 'always' | 'expression';

/** What a task's condition decided: true or false, or why it could not be evaluated. */
export type ConditionOutcome = { ok: true; value: boolean } | { ok: false; error: string };

export interface PlanTask {
  id: string;
  /**
   * Ids of tasks that must end first. Ids that name no task cannot happen
   * (flows are validated at save); should one appear, it counts as never
   * ended, so the task waits until the execution is stopped.
   */
  dependsOn: readonly string[];
  runIf: RunIf;
  /** Attempts in all, counting the first (the task's `retry.max_attempts`). Default 1: no retry. */
  maxAttempts?: number;
  /**
   * The task has an approval gate (an extension): when `run_if` would queue
   * it, its run waits for a person's decision instead (`await`), unless the
   * run's `gate` says it was approved. A waiting run holds no max_parallel slot.
   */
  approval?: boolean;
}

export interface PlanRun {
  taskKey: string;
  /** 1-based; the highest attempt of a task is the one the planner reasons on. */
  attempt: number;
  state: TaskRunState;
  /** Carried into the execution's `error` when this run is the first failing one. */
  error?: string;
  /** Its reason; a run FAILED `condition_error` never ran and gets no retry. */
  reason?: string;
  /** Of a task with an approval gate: `awaiting` a decision, or `approved` (it may be queued). Absent: not reached yet. */
  gate?: 'awaiting' | 'approved';
}

export interface PlanInput {
  /** In the flow's task list order, which orders queueing and picks the first failing task. */
  tasks: readonly PlanTask[];
  /** Maximum task runs QUEUED + RUNNING at once; 0 is unlimited. */
  maxParallel: number;
  /** Every task must have at least one run (the engine creates attempt 1 PENDING at start). */
  runs: readonly PlanRun[];
  /** Why the execution is stopping: `cancel` (CANCELLING) or `timeout` (flow timeout passed); default null (not stopping). */
  stopping?: 'cancel' | 'timeout' | null;
  /**
   * Decides the condition of a task whose runIf is `expression`, called once
   * per plan when its dependencies all succeeded (the caller evaluates it
   * over the runs' outputs). Without it such a task is skipped.
   */
  condition?: (taskId: string) => ConditionOutcome;
  /**
   * The execution is paused (an extension): nothing is queued, retried or put
   * to wait for approval; skips, failed conditions and the end still apply
   * (a task that would be queued or retried keeps the execution from ending).
   */
  paused?: boolean;
}

export interface PlanEnd {
  state: 'SUCCESS' | 'FAILED' | 'TIMED_OUT' | 'CANCELLED';
  /** FAILED only: the first task in task list order whose latest attempt is FAILED or TIMED_OUT. */
  failedTask?: string;
  /** FAILED only: that run's error ('' when it has none). */
  error?: string;
}

export interface Plan {
  /** Task keys whose latest (PENDING) run becomes QUEUED, in task list order. */
  queue: string[];
  /** Failed latest attempts that get a new attempt (QUEUED after its backoff), in task list order. Not limited by max_parallel. */
  retry: { taskKey: string; attempt: number }[];
  /** PENDING latest runs that end SKIPPED, in task list order; `conditionFalse` when an expression condition was false (not a dependency's end). */
  skip: { taskKey: string; reason: 'condition_not_met'; conditionFalse?: true }[];
  /** PENDING latest runs whose condition could not be evaluated: they end FAILED `condition_error`, in task list order (absent when none). */
  fail?: { taskKey: string; reason: 'condition_error'; error: string }[];
  /** PENDING or QUEUED latest runs that end CANCELLED while stopping, in task list order. */
  cancel: { taskKey: string; reason: 'cancelled' | 'execution_timed_out' }[];
  /** PENDING latest runs of tasks with an approval gate that start waiting for a decision now, in task list order (absent when none). */
  await?: string[];
  /** Set when the execution ends with this plan applied. */
  end?: PlanEnd;
}

export type PlanInputProblem = 'task_without_run' | 'run_of_unknown_task' | 'bad_max_parallel';

/** The caller broke an input invariant of the planner (a bug in the engine, not in the flow). */
export class PlanInputError extends Error {
  override readonly name = 'PlanInputError';
  constructor(
    readonly problem: PlanInputProblem,
    readonly detail: string,
  ) {
    super(`plan input: ${problem}: ${detail}`);
  }
}

type Decision = 'queue' | 'skip' | 'wait' | 'fail';

/** Failures that never ran the task, or a person's decision: never retried. */
const NOT_RETRIED: ReadonlySet<string> = new Set(['condition_error', 'rejected', 'approval_timed_out']);

const isFailure = (s: TaskRunState): boolean => s === 'FAILED' || s === 'TIMED_OUT';

/**
 * What `run_if` says once the dependencies' latest states are known; `wait`
 * while one has not ended. `condition` decides an expression (its deps all succeeded).
 */
function decide(task: PlanTask, stateOf: (id: string) => TaskRunState | undefined, condition: (taskId: string) => ConditionOutcome): Decision {
  const byCondition = (): Decision => {
    const c = condition(task.id);
    return !c.ok ? 'fail' : c.value ? 'queue' : 'skip';
  };
  // The contract queues a task without dependencies at once, whatever its run_if (a condition still decides).
  if (task.dependsOn.length === 0) return task.runIf === 'expression' ? byCondition() : 'queue';
  const deps: TaskRunState[] = [];
  for (const id of task.dependsOn) {
    const s = stateOf(id);
    if (s === undefined || !isTaskRunEnded(s)) return 'wait';
    deps.push(s);
  }
  switch (task.runIf) {
    case 'success':
      return deps.every((s) => s === 'SUCCESS') ? 'queue' : 'skip';
    case 'failure':
      return deps.some(isFailure) ? 'queue' : 'skip';
    case 'always':
      return 'queue';
    case 'expression':
      return deps.every((s) => s === 'SUCCESS') ? byCondition() : 'skip';
    default:
      return assertNever(task.runIf, 'run_if');
  }
}

function latestRuns(input: PlanInput): Map<string, PlanRun> {
  const known = new Set(input.tasks.map((t) => t.id));
  const latest = new Map<string, PlanRun>();
  for (const r of input.runs) {
    if (!known.has(r.taskKey)) throw new PlanInputError('run_of_unknown_task', r.taskKey);
    const seen = latest.get(r.taskKey);
    if (!seen || r.attempt > seen.attempt) latest.set(r.taskKey, r);
  }
  for (const t of input.tasks) if (!latest.has(t.id)) throw new PlanInputError('task_without_run', t.id);
  return latest;
}

export function plan(input: PlanInput): Plan {
  if (!Number.isInteger(input.maxParallel) || input.maxParallel < 0) throw new PlanInputError('bad_max_parallel', String(input.maxParallel));
  const latest = latestRuns(input);
  // The states after this plan's decisions; decisions are written here so cascades see them.
  const state = new Map<string, TaskRunState>([...latest].map(([k, r]) => [k, r.state]));
  const result: Plan = { queue: [], retry: [], skip: [], cancel: [] };
  const stopping = input.stopping ?? null;
  // Each condition is decided at most once per plan (decide runs again for cascades and queueing).
  const outcomes = new Map<string, ConditionOutcome>();
  const condition = (taskId: string): ConditionOutcome => {
    let o = outcomes.get(taskId);
    if (!o) outcomes.set(taskId, (o = input.condition?.(taskId) ?? { ok: true, value: false }));
    return o;
  };

  if (stopping !== null) {
    const reason = stopping === 'cancel' ? 'cancelled' : 'execution_timed_out';
    for (const t of input.tasks) {
      const s = state.get(t.id)!;
      if (s === 'PENDING' || s === 'QUEUED') {
        result.cancel.push({ taskKey: t.id, reason });
        state.set(t.id, 'CANCELLED');
      }
    }
    if (![...state.values()].some((s) => s === 'RUNNING')) result.end = { state: stopping === 'cancel' ? 'CANCELLED' : 'TIMED_OUT' };
    return result;
  }

  // Retries first: the new attempt is QUEUED, which has not ended, so dependents wait.
  for (const t of input.tasks) {
    const run = latest.get(t.id)!;
    if (isFailure(run.state) && !NOT_RETRIED.has(run.reason ?? '') && shouldRetry({ maxAttempts: t.maxAttempts ?? 1 }, run.attempt)) {
      result.retry.push({ taskKey: t.id, attempt: run.attempt + 1 });
      state.set(t.id, 'QUEUED');
    }
  }

  // Skips (and failed conditions) next, to a fixed point: an end can make another task
  // decidable, a queue cannot (a QUEUED run has not ended, just like a PENDING one).
  const skipped = new Set<string>();
  const failed = new Set<string>();
  for (let again = true; again;) {
    again = false;
    for (const t of input.tasks) {
      if (state.get(t.id) !== 'PENDING') continue;
      const d = decide(t, (id) => state.get(id), condition);
      if (d === 'skip' || d === 'fail') {
        state.set(t.id, d === 'skip' ? 'SKIPPED' : 'FAILED');
        (d === 'skip' ? skipped : failed).add(t.id);
        again = true;
      }
    }
  }
  result.skip = input.tasks
    .filter((t) => skipped.has(t.id))
    .map((t) => {
      const o = outcomes.get(t.id);
      return { taskKey: t.id, reason: 'condition_not_met' as const, ...(o?.ok && !o.value ? { conditionFalse: true as const } : {}) };
    });
  if (failed.size) {
    result.fail = input.tasks
      .filter((t) => failed.has(t.id))
      .map((t) => {
        const o = outcomes.get(t.id)!;
        return { taskKey: t.id, reason: 'condition_error' as const, error: o.ok ? '' : o.error };
      });
  }

  let active = [...state.values()].filter((s) => s === 'QUEUED' || s === 'RUNNING').length;
  for (const t of input.tasks) {
    if (state.get(t.id) !== 'PENDING' || decide(t, (id) => state.get(id), condition) !== 'queue') continue;
    // A gate not yet approved: the run waits (no slot held); it starts waiting once.
    const gate = latest.get(t.id)!.gate;
    if (t.approval && gate !== 'approved') {
      if (gate === undefined) (result.await ??= []).push(t.id);
      continue;
    }
    if (input.maxParallel > 0 && active >= input.maxParallel) continue;
    result.queue.push(t.id);
    state.set(t.id, 'QUEUED');
    active++;
  }

  if (input.tasks.every((t) => isTaskRunEnded(state.get(t.id)!))) {
    const first = input.tasks.find((t) => isFailure(state.get(t.id)!));
    const error = first && (result.fail?.find((f) => f.taskKey === first.id)?.error ?? latest.get(first.id)!.error ?? '');
    result.end = first ? { state: 'FAILED', failedTask: first.id, error } : { state: 'SUCCESS' };
  }
  // Paused: what would start is held (its run stays PENDING or FAILED, so the execution has not ended).
  if (input.paused) {
    result.queue = [];
    result.retry = [];
    delete result.await;
  }
  return result;
}
