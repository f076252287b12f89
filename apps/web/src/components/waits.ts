// Why a task run has not started yet, from the execution's task runs and the
// flow definition it runs (the planner's rules, packages/state-machine):
// - PENDING: a dependency has not ended (a failed attempt with attempts left
//   counts as not ended: its retry comes first), or the flow's `max_parallel`
//   is reached by QUEUED and RUNNING tasks;
// - QUEUED attempt n > 1 before its backoff is over: a retry waiting, due at
//   the failed attempt's end plus the retry delay (task `retry` over the
//   flow's over the defaults, exactly as the engine sets `not_before`).
// A QUEUED run past its backoff waits for an instance or a slot (Execution.tsx
// says which, from its `reason`). A PENDING run waiting for approval
// (`awaiting_approval`) is not a wait of these: ApprovalPanel.tsx shows it.
import { isTaskRunEnded, retryDelayMs, type BackoffPolicy } from '@svc/state-machine';
import { parseDuration } from '@svc/timing/duration';
import type { FlowDefinition, RetryPolicy, TaskRun } from '../types';
import { isItem, latestRuns } from './task-runs';

/** Reasons of a failed run that the planner never retries (packages/state-machine, plan.ts). */
const NOT_RETRIED: ReadonlySet<string> = new Set(['condition_error', 'rejected', 'approval_timed_out']);

/** The engine's retry defaults (spec): 1 attempt, fixed backoff, 10s initial, 10m max. */
const RETRY_DEFAULTS = { max_attempts: 1, backoff: 'fixed' as const, initial: '10s', max: '10m' };

export type TaskWait =
  | { kind: 'dependencies'; task: string; waitingFor: { task: string; state: string }[] }
  | { kind: 'max_parallel'; task: string; limit: number; holders: string[] }
  | { kind: 'retry_backoff'; task: string; attempt: number; maxAttempts: number; dueAt: number; previous: TaskRun };

/** The task's retry policy: its own `retry` over the flow's over the defaults. */
export function retryPolicy(def: FlowDefinition | undefined, taskKey: string): { maxAttempts: number } & BackoffPolicy {
  const task = def?.tasks?.find((t) => t.id === taskKey);
  const p: RetryPolicy = { ...RETRY_DEFAULTS, ...def?.retry, ...task?.retry };
  const ms = (d: string | undefined, fallback: string) => {
    try {
      return parseDuration(d ?? fallback);
    } catch {
      return parseDuration(fallback);
    }
  };
  return {
    maxAttempts: p.max_attempts ?? 1,
    backoff: p.backoff === 'exponential' ? 'exponential' : 'fixed',
    initialMs: ms(p.initial, RETRY_DEFAULTS.initial),
    maxMs: ms(p.max, RETRY_DEFAULTS.max),
  };
}

/** When a retry attempt becomes claimable: the failed attempt's end plus the delay after it. */
export function retryDueAt(def: FlowDefinition | undefined, previous: TaskRun): number | undefined {
  if (!previous.ended_at) return undefined;
  return Date.parse(previous.ended_at) + retryDelayMs(retryPolicy(def, previous.task_key), previous.attempt);
}

/** Each task whose latest run waits for something other than an instance or a slot, in task list order. */
export function taskWaits(def: FlowDefinition | undefined, runs: TaskRun[], now: number): TaskWait[] {
  // Without the definition (still loading, or a file run) nothing here can be told right:
  // dependencies, max_parallel and the retry policy all come from it.
  if (!def) return [];
  const latest = latestRuns(runs);
  const order = [...new Set([...(def?.tasks ?? []).map((t) => t.id), ...latest.keys()])];
  // As the planner sees a task: a failed latest attempt with attempts left has not ended,
  // unless it never ran or a person's decision (or its timeout) failed it: those are not retried.
  const ended = (key: string) => {
    const r = latest.get(key);
    if (!r || !isTaskRunEnded(r.state)) return false;
    if (NOT_RETRIED.has(r.reason ?? '')) return true;
    return !((r.state === 'FAILED' || r.state === 'TIMED_OUT') && r.attempt < retryPolicy(def, key).maxAttempts);
  };
  const active = order.filter((k) => ['QUEUED', 'RUNNING'].includes(latest.get(k)?.state ?? ''));
  const maxParallel = def?.max_parallel ?? 0;
  const out: TaskWait[] = [];
  for (const key of order) {
    const run = latest.get(key);
    if (!run) continue;
    // Waiting for a person (an approval gate): its dependencies have ended, and the approval banner says so.
    if (run.state === 'PENDING' && run.reason === 'awaiting_approval') continue;
    if (run.state === 'PENDING') {
      const deps = def?.tasks?.find((t) => t.id === key)?.depends_on ?? [];
      const open = deps.filter((d) => !ended(d));
      if (open.length) out.push({ kind: 'dependencies', task: key, waitingFor: open.map((d) => ({ task: d, state: latest.get(d)?.state ?? 'PENDING' })) });
      else if (maxParallel > 0 && active.length >= maxParallel) out.push({ kind: 'max_parallel', task: key, limit: maxParallel, holders: active });
    } else if (run.state === 'QUEUED' && run.attempt > 1) {
      const previous = runs.find((r) => r.task_key === key && !isItem(r) && r.attempt === run.attempt - 1);
      const dueAt = previous && retryDueAt(def, previous);
      if (previous && dueAt !== undefined && dueAt > now) {
        out.push({ kind: 'retry_backoff', task: key, attempt: run.attempt, maxAttempts: retryPolicy(def, key).maxAttempts, dueAt, previous });
      }
    }
  }
  return out;
}
