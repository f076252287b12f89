// Task runs grouped by task: kept apart from the graph's layout so that pages
// using it do not pull dagre into the first-load bundle.
//
// A task with `for_each` has one parent run (no `item_index`: the task as the
// planner sees it, with `fan_out` and `item_counts`) and one run per item and
// attempt (`item_index` set) under the same task key. Everything that speaks
// of "the task" (its node, its attempts, restart, waits) reads the parent
// runs; the items are read apart (docs/using/web-ui.md, "Fan-out").
import type { TaskRun } from '../types';

/** An item run of a fan-out (not the task's own run). */
export function isItem(r: TaskRun): boolean {
  return r.item_index !== undefined && r.item_index !== null;
}

/** The latest attempt of each task key; items of a fan-out are not the task's attempts and are left out. */
export function latestRuns(runs: TaskRun[]): Map<string, TaskRun> {
  const out = new Map<string, TaskRun>();
  for (const r of runs) {
    if (isItem(r)) continue;
    const cur = out.get(r.task_key);
    if (!cur || r.attempt >= cur.attempt) out.set(r.task_key, r);
  }
  return out;
}

/** The task's own runs (every attempt), items left out. */
export function taskAttempts(runs: TaskRun[], task: string): TaskRun[] {
  return runs.filter((r) => r.task_key === task && !isItem(r));
}

/** Every item run of a task, every attempt, by index then attempt. */
export function itemRuns(runs: TaskRun[], task: string): TaskRun[] {
  return runs.filter((r) => r.task_key === task && isItem(r)).sort((a, b) => a.item_index! - b.item_index! || a.attempt - b.attempt);
}

/** The latest attempt of each item of a task, by index. */
export function latestItems(runs: TaskRun[], task: string): TaskRun[] {
  const m = new Map<number, TaskRun>();
  for (const r of itemRuns(runs, task)) m.set(r.item_index!, r);
  return [...m.values()];
}

/** `load[3]`: how an item run is named on the page. */
export function itemName(r: TaskRun): string {
  return isItem(r) ? `${r.task_key}[${r.item_index}]` : r.task_key;
}

/**
 * The live counter of a fanned-out task from its parent run's item counts:
 * "50 items: 30 done, 5 running, 2 failed" (waiting, cancelled and skipped
 * items are named only when there are some). Before the list is rendered the
 * run has no counts yet: "items not listed yet" when the definition says the
 * task has `for_each` (`forEach`), undefined for any other task.
 */
export function itemCounter(parent: TaskRun | undefined, forEach = false): string | undefined {
  const c = parent?.item_counts;
  if (!c) return forEach ? 'items not listed yet' : undefined;
  const parts = [`${c.success} done`, `${c.running} running`, `${c.failed + c.timed_out} failed`];
  if (c.pending + c.queued) parts.push(`${c.pending + c.queued} waiting`);
  if (c.cancelled) parts.push(`${c.cancelled} cancelled`);
  if (c.skipped) parts.push(`${c.skipped} skipped`);
  return `${c.total} ${c.total === 1 ? 'item' : 'items'}: ${parts.join(', ')}`;
}

/** An item's value in a few characters: strings as they are, anything else as JSON. */
export function shortItem(v: unknown, max = 40): string {
  const s = typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}
