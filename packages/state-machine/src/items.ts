// The planner of a fan-out (`for_each`, an extension of the flow format): a
// task with for_each runs as one parent run, which `plan` sees as the task,
// and one run per item. While the parent is RUNNING, `planItems` decides its
// items from their states: which PENDING items are queued (within
// `for_each_concurrency` and what the flow's `max_parallel` leaves), which
// failed attempts get another (retries are per item, as rows: the latest
// attempt of an item is the one that counts), which unstarted items are
// cancelled (the execution stops, or `fail_fast` after an item failed for
// good), and, once every item ended, how the parent ends. Pure, like `plan`.
import { PlanInputError } from './plan.js';
import { shouldRetry } from './retry.js';
import { isTaskRunEnded, type TaskRunState } from './states.js';

export interface ItemRun {
  /** 0-based item index. */
  index: number;
  /** 1-based; the highest attempt of an item is the one that counts. */
  attempt: number;
  state: TaskRunState;
  error?: string;
  /** A run FAILED `condition_error` never ran and gets no retry (as in `plan`). */
  reason?: string;
}

export interface ItemsInput {
  /** How many items the parent has (0 to n-1 each have at least one run). */
  count: number;
  runs: readonly ItemRun[];
  /** Items QUEUED + RUNNING at once; 0 is unbounded. */
  concurrency: number;
  /** How many more runs may become QUEUED under the flow's max_parallel (Infinity when unlimited). */
  budget: number;
  /** Attempts per item in all, counting the first. */
  maxAttempts: number;
  /** Cancel the items not started once one failed for good. */
  failFast: boolean;
  /** Why the execution is stopping, or null. */
  stopping: 'cancel' | 'timeout' | null;
}

export interface ItemsEnd {
  /** SUCCESS when every item succeeded (or was skipped); FAILED when one failed, timed out or was cancelled; CANCELLED when the execution stopped. */
  state: 'SUCCESS' | 'FAILED' | 'CANCELLED';
  /** FAILED: the first failed item by index. */
  failedIndex?: number;
  /** FAILED: `item <i> failed: <its error>`. */
  error?: string;
}

export interface ItemsPlan {
  /** Items whose PENDING latest run becomes QUEUED, by index. */
  queue: number[];
  /** Failed latest attempts that get a new one, by index. */
  retry: { index: number; attempt: number }[];
  /** Unstarted (PENDING or QUEUED) latest runs that end CANCELLED, by index. */
  cancel: { index: number; reason: 'cancelled' | 'execution_timed_out'; error: string }[];
  /** Set when the parent ends with this plan applied. */
  end?: ItemsEnd;
}

const isFailure = (s: TaskRunState): boolean => s === 'FAILED' || s === 'TIMED_OUT';
const isActive = (s: TaskRunState): boolean => s === 'QUEUED' || s === 'RUNNING';

/** The latest run of each item, by index; throws PlanInputError when an item has none. */
function latestItems(input: ItemsInput): ItemRun[] {
  const latest = new Array<ItemRun>(input.count);
  for (const r of input.runs) {
    if (!Number.isInteger(r.index) || r.index < 0 || r.index >= input.count) throw new PlanInputError('run_of_unknown_task', `item ${r.index} of ${input.count}`);
    const seen = latest[r.index];
    if (!seen || r.attempt > seen.attempt) latest[r.index] = r;
  }
  for (let i = 0; i < input.count; i++) if (!latest[i]) throw new PlanInputError('task_without_run', `item ${i}`);
  return latest;
}

export function planItems(input: ItemsInput): ItemsPlan {
  const latest = latestItems(input);
  const state = latest.map((r) => r.state);
  const result: ItemsPlan = { queue: [], retry: [], cancel: [] };

  if (input.stopping !== null) {
    const reason = input.stopping === 'cancel' ? 'cancelled' : 'execution_timed_out';
    state.forEach((s, i) => {
      if (s === 'PENDING' || s === 'QUEUED') {
        result.cancel.push({ index: i, reason, error: '' });
        state[i] = 'CANCELLED';
      }
    });
    if (!state.includes('RUNNING')) result.end = { state: 'CANCELLED' };
    return result;
  }

  // Retries first: an item with attempts left has not failed for good.
  latest.forEach((r, i) => {
    if (isFailure(r.state) && r.reason !== 'condition_error' && shouldRetry({ maxAttempts: input.maxAttempts }, r.attempt)) {
      result.retry.push({ index: i, attempt: r.attempt + 1 });
      state[i] = 'QUEUED';
    }
  });

  const failedForGood = state.findIndex(isFailure);
  if (input.failFast && failedForGood >= 0) {
    const error = `not started: item ${failedForGood} failed (fail_fast)`;
    state.forEach((s, i) => {
      // Retries just decided stay: they are not new work but the failed item's own.
      if ((s === 'PENDING' || s === 'QUEUED') && !result.retry.some((x) => x.index === i)) {
        result.cancel.push({ index: i, reason: 'cancelled', error });
        state[i] = 'CANCELLED';
      }
    });
  } else {
    let active = state.filter(isActive).length;
    let budget = input.budget;
    for (let i = 0; i < state.length; i++) {
      if (input.concurrency > 0 && active >= input.concurrency) break;
      if (budget <= 0) break;
      if (state[i] !== 'PENDING') continue;
      result.queue.push(i);
      state[i] = 'QUEUED';
      active++;
      budget--;
    }
  }

  if (state.every(isTaskRunEnded)) {
    // The item that failed, before the ones fail_fast cancelled because of it.
    const failed = state.findIndex(isFailure);
    const first = failed >= 0 ? failed : state.findIndex((s) => s === 'CANCELLED');
    if (first < 0) result.end = { state: 'SUCCESS' };
    else {
      const cancelled = result.cancel.find((c) => c.index === first);
      const error = cancelled ? cancelled.error : (latest[first].error ?? '');
      result.end = { state: 'FAILED', failedIndex: first, error: `item ${first} ${state[first] === 'TIMED_OUT' ? 'timed out' : 'failed'}${error ? `: ${error}` : ''}` };
    }
  }
  return result;
}
