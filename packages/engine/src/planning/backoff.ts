// A task's retry backoff: the task's `retry` over the flow's, over the defaults.
import type { BackoffPolicy } from '@svc/state-machine';
import type { FlowDefinition, RetryPolicy } from '@svc/flow-schema';
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
