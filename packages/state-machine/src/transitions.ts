// Transition tables of executions and task runs (spec "States and
// transitions", docs/behaviour/states.md, the engine contracts).
//
// Each table lists only the moves that are allowed; every other
// (state, event) pair is a refusal, named by a small function so the caller
// can map it to an error code (cancel of an ended execution is the API's 409
// `execution_ended`). A move that keeps the state (cancel while CANCELLING, a
// queued task run waiting for an instance) is allowed with `changed: false`:
// the caller writes no history row for the state, only a new reason if any.
import { assertNever } from '@svc/assert';
import { type ExecutionState, isExecutionEnded, isTaskRunEnded, type TaskRunState } from './states.js';

/** The state before an execution or task run row exists. */
export type New = 'new';

/**
 * What moves an execution:
 * - `start`: a trigger while a place is free under the flow concurrency limit (or there is no limit): new → RUNNING.
 * - `queue`: a trigger while the limit is full and `behavior: queue`: new → QUEUED; no task runs exist yet.
 * - `skip`: a trigger while the limit is full and `behavior: skip`: new → SKIPPED.
 * - `dequeue`: a place became free for a QUEUED execution: QUEUED → RUNNING.
 * - `cancel`: a cancel request: QUEUED → CANCELLED at once; RUNNING → CANCELLING; CANCELLING stays (no change).
 * - `cancel_done`: the planner found nothing RUNNING any more under cancel: CANCELLING → CANCELLED.
 * - `time_out`: the flow `timeout` passed and nothing runs any more (the maintenance lease holder detects it;
 *   pending and queued task runs are cancelled first, see the planner's `stopping`): RUNNING → TIMED_OUT.
 *   A cancel under way wins: CANCELLING stays (no change).
 * - `succeed`: every task's latest attempt ended and none FAILED or TIMED_OUT: RUNNING → SUCCESS.
 * - `fail`: every task's latest attempt ended and one FAILED or TIMED_OUT: RUNNING → FAILED.
 */
export const EXECUTION_EVENTS = ['start', 'queue', 'skip', 'dequeue', 'cancel', 'cancel_done', 'time_out', 'succeed', 'fail', 'pause', 'resume'] as const;
export type ExecutionEvent = (typeof EXECUTION_EVENTS)[number];

/**
 * What moves a task run:
 * - `create`: the execution starts RUNNING and every task gets attempt 1: new → PENDING.
 * - `reuse`: restart from failed copies a SUCCESS run of the original execution: new → SUCCESS, reason `reused`.
 * - `queue`: the planner queues a PENDING run (dependencies ended, `run_if` met, within max_parallel): PENDING → QUEUED;
 *   or a retry inserts the next attempt directly: new → QUEUED.
 * - `skip`: the planner finds `run_if` not met: PENDING → SKIPPED, reason `condition_not_met`.
 * - `condition_error`: the planner cannot evaluate an expression `run_if` (a key that is not there, not a bool):
 *   PENDING → FAILED, reason `condition_error` (never retried: nothing ran).
 * - `claim`: a dispatcher takes it: QUEUED → RUNNING.
 * - `no_instance`: no online instance serves its pool and executor type: QUEUED stays, reason `no_instance_for_pool`.
 * - `no_slot`: every slot of its pool and executor type is in use: QUEUED stays, no reason.
 * - `succeed`: the runner reports exit 0: RUNNING → SUCCESS.
 * - `fail`: the runner or dispatcher reports a failure (reason given by the reporter: `exit_code`,
 *   `template_error`, `secret_not_found`, `executor_error`...): RUNNING → FAILED.
 * - `time_out`: killed at its timeout, or no report 60 s after it: RUNNING → TIMED_OUT, reason `timeout`.
 * - `cancel`: the execution is stopping: PENDING or QUEUED → CANCELLED; a RUNNING one is CANCELLED
 *   when its runner reports the kill. Reason `cancelled` (the planner gives `execution_timed_out` on timeout).
 * - `lose`: its instance went offline or its runner is gone: RUNNING → FAILED, reason `lost`.
 * - `shutdown`: the claiming instance got SIGTERM: RUNNING → FAILED, reason `instance_shutdown`.
 * Approval gates and pause (extensions; no new state, only reasons):
 * - `await_approval`: the planner would queue a task with an approval gate: PENDING stays, reason `awaiting_approval`.
 * - `approve`: a person approves (or the timeout does, with `on_timeout: approve`): PENDING stays, reason emptied; the planner queues it.
 * - `reject`: a person rejects: PENDING → FAILED, reason `rejected` (never retried).
 * - `approval_timeout`: the gate's timeout with `on_timeout: fail`: PENDING → FAILED, reason `approval_timed_out` (never retried).
 * - `approval_timeout_skip`: the same with `on_timeout: skip`: PENDING → SKIPPED, reason `approval_timed_out`.
 * - `hold`: its execution is paused: QUEUED stays, reason `paused` (no dispatcher claims it).
 * - `release`: its execution is resumed: QUEUED stays, reason emptied.
 */
export const TASK_RUN_EVENTS = [
  'create',
  'reuse',
  'queue',
  'skip',
  'condition_error',
  'claim',
  'no_instance',
  'no_slot',
  'succeed',
  'fail',
  'time_out',
  'cancel',
  'lose',
  'shutdown',
  'await_approval',
  'approve',
  'reject',
  'approval_timeout',
  'approval_timeout_skip',
  'hold',
  'release',
] as const;
export type TaskRunEvent = (typeof TASK_RUN_EVENTS)[number];

/** Why an execution event does not apply. `execution_ended` is the API's 409 code for cancel. */
export type ExecutionRefusal =
  'execution_ended' | 'execution_exists' | 'execution_not_created' | 'execution_not_queued' | 'execution_not_running' | 'execution_not_cancelling' | 'execution_cancelling';

/** Why a task run event does not apply (for example a late runner report on a run already marked lost). */
export type TaskRunRefusal = 'task_run_ended' | 'task_run_exists' | 'task_run_not_created' | 'task_run_not_pending' | 'task_run_not_queued' | 'task_run_not_running';

export type TransitionResult<S extends string, R extends string> =
  | {
      ok: true;
      to: S;
      /** The reason to record with the state; absent when the reporter supplies it (or there is none). */
      reason?: string;
      /** False when the state stays the same (no history row for the state). */
      changed: boolean;
    }
  | { ok: false; refusal: R };

interface Move<S extends string> {
  to: S;
  reason?: string;
}

type Table<S extends string, E extends string> = Readonly<Record<S | New, Readonly<Partial<Record<E, Move<S>>>>>>;

/** Allowed execution moves; every pair not listed is refused. */
export const EXECUTION_TRANSITIONS: Table<ExecutionState, ExecutionEvent> = {
  new: {
    start: { to: 'RUNNING' },
    queue: { to: 'QUEUED', reason: 'concurrency_limit' },
    skip: { to: 'SKIPPED', reason: 'concurrency_limit' },
  },
  QUEUED: {
    dequeue: { to: 'RUNNING' },
    cancel: { to: 'CANCELLED', reason: 'cancelled' },
  },
  RUNNING: {
    cancel: { to: 'CANCELLING' },
    time_out: { to: 'TIMED_OUT', reason: 'timeout' },
    succeed: { to: 'SUCCESS' },
    // The reason names the first failing task, which only the planner knows.
    fail: { to: 'FAILED' },
    // Pause and resume (an extension): no new task run starts while paused.
    pause: { to: 'RUNNING', reason: 'paused' },
    resume: { to: 'RUNNING', reason: '' },
  },
  CANCELLING: {
    cancel: { to: 'CANCELLING' },
    cancel_done: { to: 'CANCELLED', reason: 'cancelled' },
    time_out: { to: 'CANCELLING' },
  },
  SUCCESS: {},
  FAILED: {},
  TIMED_OUT: {},
  CANCELLED: {},
  SKIPPED: {},
};

/** Allowed task run moves; every pair not listed is refused. */
export const TASK_RUN_TRANSITIONS: Table<TaskRunState, TaskRunEvent> = {
  new: {
    create: { to: 'PENDING' },
    reuse: { to: 'SUCCESS', reason: 'reused' },
    queue: { to: 'QUEUED' },
  },
  PENDING: {
    queue: { to: 'QUEUED' },
    skip: { to: 'SKIPPED', reason: 'condition_not_met' },
    condition_error: { to: 'FAILED', reason: 'condition_error' },
    cancel: { to: 'CANCELLED', reason: 'cancelled' },
    await_approval: { to: 'PENDING', reason: 'awaiting_approval' },
    approve: { to: 'PENDING', reason: '' },
    reject: { to: 'FAILED', reason: 'rejected' },
    approval_timeout: { to: 'FAILED', reason: 'approval_timed_out' },
    approval_timeout_skip: { to: 'SKIPPED', reason: 'approval_timed_out' },
  },
  QUEUED: {
    claim: { to: 'RUNNING' },
    no_instance: { to: 'QUEUED', reason: 'no_instance_for_pool' },
    no_slot: { to: 'QUEUED', reason: '' },
    cancel: { to: 'CANCELLED', reason: 'cancelled' },
    hold: { to: 'QUEUED', reason: 'paused' },
    release: { to: 'QUEUED', reason: '' },
  },
  RUNNING: {
    succeed: { to: 'SUCCESS' },
    fail: { to: 'FAILED' },
    time_out: { to: 'TIMED_OUT', reason: 'timeout' },
    cancel: { to: 'CANCELLED', reason: 'cancelled' },
    lose: { to: 'FAILED', reason: 'lost' },
    shutdown: { to: 'FAILED', reason: 'instance_shutdown' },
  },
  SUCCESS: {},
  FAILED: {},
  TIMED_OUT: {},
  CANCELLED: {},
  SKIPPED: {},
};

function allowed<S extends string, R extends string>(from: S | New, move: Move<S>): TransitionResult<S, R> {
  return move.reason === undefined ? { ok: true, to: move.to, changed: move.to !== from } : { ok: true, to: move.to, reason: move.reason, changed: move.to !== from };
}

/** Own-property lookup, so a value cast from outside ('toString', 'constructor') never reads the prototype. */
function lookup<S extends string, E extends string>(table: Table<S, E>, from: S | New, event: E, what: string): Move<S> | undefined {
  if (!Object.hasOwn(table, from)) return assertNever(from as never, `${what} state`);
  const row = table[from];
  return Object.hasOwn(row, event) ? row[event] : undefined;
}

export function nextExecutionState(from: ExecutionState | New, event: ExecutionEvent): TransitionResult<ExecutionState, ExecutionRefusal> {
  const move = lookup(EXECUTION_TRANSITIONS, from, event, 'execution');
  return move ? allowed(from, move) : { ok: false, refusal: executionRefusal(from, event) };
}

export function nextTaskRunState(from: TaskRunState | New, event: TaskRunEvent): TransitionResult<TaskRunState, TaskRunRefusal> {
  const move = lookup(TASK_RUN_TRANSITIONS, from, event, 'task run');
  return move ? allowed(from, move) : { ok: false, refusal: taskRunRefusal(from, event) };
}

function executionRefusal(from: ExecutionState | New, event: ExecutionEvent): ExecutionRefusal {
  if (!(EXECUTION_EVENTS as readonly string[]).includes(event)) return assertNever(event as never, 'execution event');
  if (from === 'new') return 'execution_not_created';
  if (isExecutionEnded(from)) return 'execution_ended';
  switch (event) {
    case 'start':
    case 'queue':
    case 'skip':
      return 'execution_exists';
    case 'dequeue':
      return 'execution_not_queued';
    case 'cancel_done':
      return 'execution_not_cancelling';
    // `cancel` is allowed in every state that is neither new nor ended; listed for the exhaustive switch.
    case 'cancel':
    case 'time_out':
    case 'succeed':
    case 'fail':
    case 'pause':
    case 'resume':
      return from === 'CANCELLING' ? 'execution_cancelling' : 'execution_not_running';
    default:
      return assertNever(event, 'execution event');
  }
}

function taskRunRefusal(from: TaskRunState | New, event: TaskRunEvent): TaskRunRefusal {
  if (!(TASK_RUN_EVENTS as readonly string[]).includes(event)) return assertNever(event as never, 'task run event');
  if (from === 'new') return 'task_run_not_created';
  if (isTaskRunEnded(from)) return 'task_run_ended';
  switch (event) {
    case 'create':
    case 'reuse':
      return 'task_run_exists';
    case 'queue':
    case 'skip':
    case 'condition_error':
    case 'await_approval':
    case 'approve':
    case 'reject':
    case 'approval_timeout':
    case 'approval_timeout_skip':
      return 'task_run_not_pending';
    case 'claim':
    case 'no_instance':
    case 'no_slot':
    case 'hold':
    case 'release':
      return 'task_run_not_queued';
    // `cancel` is allowed in every state that is neither new nor ended; listed for the exhaustive switch.
    case 'cancel':
    case 'succeed':
    case 'fail':
    case 'time_out':
    case 'lose':
    case 'shutdown':
      return 'task_run_not_running';
    default:
      return assertNever(event, 'task run event');
  }
}

/** Rerun (a new execution, all tasks run) is allowed from FAILED, TIMED_OUT, CANCELLED and SUCCESS. */
export function canRerun(state: ExecutionState): boolean {
  switch (state) {
    case 'SUCCESS':
    case 'FAILED':
    case 'TIMED_OUT':
    case 'CANCELLED':
      return true;
    case 'QUEUED':
    case 'RUNNING':
    case 'CANCELLING':
    case 'SKIPPED':
      return false;
    default:
      return assertNever(state, 'execution state');
  }
}

/** Restart from failed is allowed from FAILED, TIMED_OUT, CANCELLED; elsewhere the API answers 409 `not_restartable`. */
export function canRestart(state: ExecutionState): boolean {
  switch (state) {
    case 'FAILED':
    case 'TIMED_OUT':
    case 'CANCELLED':
      return true;
    case 'QUEUED':
    case 'RUNNING':
    case 'CANCELLING':
    case 'SUCCESS':
    case 'SKIPPED':
      return false;
    default:
      return assertNever(state, 'execution state');
  }
}

/** The states from which an execution event is allowed (and moves or keeps the state), in table order. */
export function executionStatesFor(event: ExecutionEvent): ExecutionState[] {
  return statesFor(EXECUTION_TRANSITIONS, event);
}

/** The states from which a task run event is allowed, in table order. */
export function taskRunStatesFor(event: TaskRunEvent): TaskRunState[] {
  return statesFor(TASK_RUN_TRANSITIONS, event);
}

function statesFor<S extends string, E extends string>(table: Table<S, E>, event: E): S[] {
  return (Object.keys(table) as (S | New)[]).filter((s): s is S => s !== 'new' && Object.hasOwn(table[s], event));
}
