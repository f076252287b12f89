// A fanned-out task (for_each) in the CLI's views: its own run (no
// item_index; the task as the planner sees it, with item_counts) is the
// task's line, and its items, one run per item and attempt under the same
// task key, are counted on that line instead of listed (`svc executions get
// --items` lists them; docs/using/cli.md).
import type { TaskRun } from '../api/types.js';

/** An item run of a fan-out, not a task's own run. */
export function isItem(r: TaskRun): boolean {
  return r.item_index !== undefined && r.item_index !== null;
}

/** The order states are named in on a task's line: how it ended first, then what is still under way. */
const COUNTED = ['success', 'failed', 'timed_out', 'cancelled', 'skipped', 'running', 'queued', 'pending'] as const;

/** "50 items: 47 success, 3 failed" (states with no item left out); '' for a run without item counts. */
export function itemCountsText(r: TaskRun): string {
  const c = r.item_counts;
  if (!c) return '';
  const parts = COUNTED.filter((s) => c[s] > 0).map((s) => `${c[s]} ${s}`);
  return `${c.total} ${c.total === 1 ? 'item' : 'items'}${parts.length ? `: ${parts.join(', ')}` : ''}`;
}

/** The latest attempt of each item of task `task`, by index. */
export function latestItems(runs: readonly TaskRun[], task: string): TaskRun[] {
  const m = new Map<number, TaskRun>();
  for (const r of runs) {
    if (r.task_key !== task || !isItem(r)) continue;
    const seen = m.get(r.item_index!);
    if (!seen || r.attempt > seen.attempt) m.set(r.item_index!, r);
  }
  return [...m.values()].sort((a, b) => a.item_index! - b.item_index!);
}

/** An item's value in a few characters: a string as it is, anything else as JSON. */
export function shortItem(v: unknown, max = 40): string {
  const s = typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}
