// Pure planning of fan-outs (for_each, an extension of the flow format): a
// task with for_each runs as one parent run, which the state machine's `plan`
// sees as the task, and one run per item, which `planItems` decides while the
// parent is RUNNING. Here: what a task's fan-out settings are, and one step of
// the items of every running parent of an execution, written into the
// planning step's Writes before `plan` runs (so a parent that ends in this
// step lets its dependents be decided in the same step).
import { planItems, retryDelayMs, type TaskRunState } from '@svc/state-machine';
import type { FlowDefinition, FlowTask } from '@svc/flow-schema';
import type { RunRead } from '../rows.js';
import type { Writes } from './writes.js';
import { backoffPolicy, maxAttemptsOf } from './backoff.js';

/** Whether `task` fans out over a list. */
export const hasForEach = (task: FlowTask | undefined): boolean => task?.for_each !== undefined;

/** The fan-out settings of task `taskKey`, or null when it has no for_each. */
export function fanOutOf(def: FlowDefinition, taskKey: string): { concurrency: number; failFast: boolean; maxAttempts: number } | null {
  const t = def.tasks.find((x) => x.id === taskKey);
  if (!t || t.for_each === undefined) return null;
  return {
    concurrency: t.for_each_concurrency ?? 0,
    failFast: t.fail_fast ?? false,
    maxAttempts: maxAttemptsOf(def, t),
  };
}

const isActive = (s: TaskRunState) => s === 'QUEUED' || s === 'RUNNING';

/** The latest attempt of each item among `runs` (item runs of one task), by item index. */
export function latestByItem<T extends { item_index?: number | null; attempt: number }>(runs: Iterable<T>): Map<number, T> {
  const byIndex = new Map<number, T>();
  for (const r of runs) {
    if (r.item_index === null || r.item_index === undefined) continue;
    const seen = byIndex.get(r.item_index);
    if (!seen || r.attempt > seen.attempt) byIndex.set(r.item_index, r);
  }
  return byIndex;
}

/**
 * Plans the items of every RUNNING fan-out parent among `latest` (the latest
 * run of each task) from `items` (every attempt of every item, by task) into
 * `w`. Returns the parents that end in this step with their new state and
 * error, for `plan` to reason on, and the max_parallel to give `plan` (which
 * counts a running parent as one active run, where its items are many).
 */
export function planFanOuts(
  def: FlowDefinition,
  latest: ReadonlyMap<string, RunRead>,
  items: ReadonlyMap<string, RunRead[]>,
  stopping: 'cancel' | null,
  w: Writes,
  newId: () => string,
  /** The execution is paused: no item is queued or retried (what would be keeps its parent running). */
  paused = false,
): { ended: Map<string, { state: TaskRunState; error: string; outputs: unknown[] | null }>; maxParallel: number } {
  const maxParallel = def.max_parallel ?? 0;
  const ended = new Map<string, { state: TaskRunState; error: string; outputs: unknown[] | null }>();
  const parents = [...latest.values()].filter((r) => r.fan_out !== null && r.state === 'RUNNING');
  if (!parents.length) return { ended, maxParallel };

  // Latest attempt of each item, by task.
  const latestItems = new Map<string, Map<number, RunRead>>();
  for (const p of parents) latestItems.set(p.task_key, latestByItem(items.get(p.task_key) ?? []));
  const activeItems = () => [...latestItems.values()].reduce((n, m) => n + [...m.values()].filter((r) => isActive(r.state)).length, 0);
  const activeOthers = [...latest.values()].filter((r) => r.fan_out === null && isActive(r.state)).length;
  let budget = paused ? 0 : maxParallel > 0 ? Math.max(0, maxParallel - activeOthers - activeItems()) : Infinity;

  for (const parent of parents) {
    const settings = fanOutOf(def, parent.task_key);
    const byIndex = latestItems.get(parent.task_key)!;
    // A parent whose task lost its for_each cannot happen (the definition is the execution's own); its items count as they are.
    const p = planItems({
      count: parent.fan_out!,
      // The latest attempt of each item is all planItems reasons on.
      runs: [...byIndex].map(([index, r]) => ({ index, attempt: r.attempt, state: r.state, error: r.error, reason: r.reason })),
      concurrency: settings?.concurrency ?? 0,
      budget,
      maxAttempts: settings?.maxAttempts ?? 1,
      failFast: settings?.failFast ?? false,
      stopping,
    });
    budget -= p.queue.length;
    const at = (i: number) => byIndex.get(i)!;
    for (const i of p.queue) {
      w.queue.push(at(i).id);
      byIndex.set(i, { ...at(i), state: 'QUEUED' });
    }
    for (const { index } of paused ? [] : p.retry) {
      const prev = at(index);
      w.retry.push({ id: newId(), prev: prev.id, delay: retryDelayMs(backoffPolicy(def, parent.task_key), prev.attempt) });
    }
    for (const c of p.cancel) {
      const r = at(c.index);
      w.end.push({ id: r.id, from_state: r.state, state: 'CANCELLED', reason: c.reason, error: c.error });
      byIndex.set(c.index, { ...r, state: 'CANCELLED' });
    }
    if (p.queue.length || (!paused && p.retry.length) || p.cancel.length) w.changed.add(parent.execution_id);
    if (!p.end) continue;
    const outputs = p.end.state === 'SUCCESS' ? [...Array(parent.fan_out!).keys()].map((i) => at(i).outputs ?? {}) : null;
    w.fanEnd.push({ id: parent.id, state: p.end.state, reason: p.end.state === 'CANCELLED' ? 'cancelled' : '', error: p.end.error ?? '', outputs });
    w.changed.add(parent.execution_id);
    ended.set(parent.task_key, { state: p.end.state, error: p.end.error ?? '', outputs });
    latestItems.delete(parent.task_key);
  }
  // What `plan` may count: max_parallel less the items still active, plus one per running parent (which `plan` counts as one).
  const running = parents.filter((p) => !ended.has(p.task_key)).length;
  return { ended, maxParallel: maxParallel > 0 && running > 0 ? Math.max(1, maxParallel - activeItems() + running) : maxParallel };
}
