import client from 'prom-client';

/** A task run an end statement ended (@svc/engine's EndedTaskRun, structurally). */
export interface EndedRun {
  executor: string;
  state: string;
  seconds: number | null;
}

/**
 * `svc_task_run_duration_seconds{executor, outcome}` on `registry`: how long
 * the task runs this process ended ran, from their start to their end, by
 * executor type and end state (SUCCESS, FAILED, TIMED_OUT, CANCELLED). Each
 * run is counted by the process whose statement ended it: a dispatcher for the
 * process and inline executors, the gateway for a container's runner, the
 * maintenance lease holder for the watchdog's ends (lost, timeout); summed
 * over instances, every ended run once. `engine` is the app's Engine.
 */
export function registerTaskRunDuration(
  registry: client.Registry,
  engine: { onTaskRunsEnded(fn: (runs: readonly EndedRun[]) => void): void },
): client.Histogram<'executor' | 'outcome'> {
  const h = new client.Histogram({
    name: 'svc_task_run_duration_seconds',
    help: 'Task runs ended by this instance, by executor type and outcome (the end state), and how long they ran from start to end',
    labelNames: ['executor', 'outcome'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 14400],
    registers: [registry],
  });
  engine.onTaskRunsEnded((runs) => {
    for (const r of runs) if (r.seconds !== null && r.executor) h.observe({ executor: r.executor, outcome: r.state }, r.seconds);
  });
  return h;
}
