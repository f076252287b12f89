// A task's retry policy: the task's `retry` over the flow's, over the defaults.
import type { BackoffPolicy } from '@svc/state-machine';
import type { FlowDefinition, FlowTask, RetryPolicy } from '@svc/flow-schema';
import { parseDuration } from '@svc/timing';
import { RETRY_DEFAULTS } from '../constants.js';

/** The task's backoff: the task's `retry` over the flow's, over the defaults (its attempts are planTasks' `maxAttempts`). */
export function backoffPolicy(def: FlowDefinition, taskKey: string): BackoffPolicy {
  const task = def.tasks.find((t) => t.id === taskKey);
  const p: RetryPolicy = { ...(def.retry ?? {}), ...(task?.retry ?? {}) };
  return {
    backoff: p.backoff ?? RETRY_DEFAULTS.backoff,
    initialMs: p.initial ? parseDuration(p.initial) : RETRY_DEFAULTS.initialMs,
    maxMs: p.max ? parseDuration(p.max) : RETRY_DEFAULTS.maxMs,
  };
}

/** Attempts in all of task `task` (or of each item of a fan-out), counting the first: the task's `retry`, else the flow's, else the default. */
export const maxAttemptsOf = (def: FlowDefinition, task: FlowTask): number => task.retry?.max_attempts ?? def.retry?.max_attempts ?? RETRY_DEFAULTS.maxAttempts;
