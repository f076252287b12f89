// The task graph as the execution page uses it: React Flow and dagre come in
// their own chunk (TaskGraph.tsx), fetched while the page's data loads, so the
// other pages do not carry them.
import { lazy, Suspense } from 'react';
import type { TaskGraphProps } from './TaskGraph';

export { latestRuns } from './task-runs';

const load = () => import('./TaskGraph');
const TaskGraph = lazy(load);

/** Starts fetching the graph's chunk (main.tsx does when an execution page opens). */
export function preloadTaskGraph(): void {
  void load();
}

export function Dag(props: TaskGraphProps) {
  return (
    <Suspense
      fallback={
        <p className="muted" role="status">
          Drawing the task graph…
        </p>
      }
    >
      <TaskGraph {...props} />
    </Suspense>
  );
}
