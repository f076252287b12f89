// The state vocabulary of the spec ("States and transitions"). Pure: no I/O.
// The transition tables are built by the execution engine issue on top of it.
import { assertNever } from '@svc/assert';

// The states themselves are @svc/vocabulary's (one list for the server, the UI and the CLI).
import type { ExecutionState, TaskRunState } from '@svc/vocabulary';

export { EXECUTION_STATES, TASK_RUN_STATES, isExecutionState, isTaskRunState, type ExecutionState, type TaskRunState } from '@svc/vocabulary';

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
