// The spec's states ("States and transitions"); the transition tables over
// them are @svc/state-machine's.

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
