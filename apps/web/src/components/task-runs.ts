// Task runs grouped by task: kept apart from the graph's layout so that pages
// using it do not pull dagre into the first-load bundle.
import type { TaskRun } from '../types';

/** The latest attempt of each task key. */
export function latestRuns(runs: TaskRun[]): Map<string, TaskRun> {
  const out = new Map<string, TaskRun>();
  for (const r of runs) {
    const cur = out.get(r.task_key);
    if (!cur || r.attempt >= cur.attempt) out.set(r.task_key, r);
  }
  return out;
}
