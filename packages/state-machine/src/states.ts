// The state vocabulary of the spec ("States and transitions"). Pure: no I/O.
// The transition tables are built by the execution engine issue on top of it.
import { assertNever } from '@svc/assert';

export const EXECUTION_STATES = ['QUEUED', 'RUNNING', 'CANCELLING', 'SUCCESS', 'FAILED', 'TIMED_OUT', 'CANCELLED', 'SKIPPED'] as const;
export type ExecutionState = (typeof EXECUTION_STATES)[number];

export const TASK_RUN_STATES = ['PENDING', 'QUEUED', 'RUNNING', 'SUCCESS', 'FAILED', 'TIMED_OUT', 'CANCELLED', 'SKIPPED'] as const;
export type TaskRunState = (typeof TASK_RUN_STATES)[number];

export function isExecutionState(x: unknown): x is ExecutionState {
  return typeof x === 'string' && (EXECUTION_STATES as readonly string[]).includes(x);
}

export function isTaskRunState(x: unknown): x is TaskRunState {
  return typeof x === 'string' && (TASK_RUN_STATES as readonly string[]).includes(x);
}

/** End states of an execution: SUCCESS, FAILED, TIMED_OUT, CANCELLED, SKIPPED. */
export function isExecutionEnded(state: ExecutionState): boolean {
  switch (state) {
    case 'QUEUED':
    case 'RUNNING':
    case 'CANCELLING':
      return false;
    case 'SUCCESS':
    case 'FAILED':
    case 'TIMED_OUT':
    case 'CANCELLED':
    case 'SKIPPED':
      return true;
    default:
      return assertNever(state, 'execution state');
  }
}

/** End states of a task run: SUCCESS, FAILED, TIMED_OUT, CANCELLED, SKIPPED. */
export function isTaskRunEnded(state: TaskRunState): boolean {
  switch (state) {
    case 'PENDING':
    case 'QUEUED':
    case 'RUNNING':
      return false;
    case 'SUCCESS':
    case 'FAILED':
    case 'TIMED_OUT':
    case 'CANCELLED':
    case 'SKIPPED':
      return true;
    default:
      return assertNever(state, 'task run state');
  }
}
