// While this instance holds the `maintenance` lease: every few seconds, end
// executions past their flow timeout, task runs silent 60 s past their
// timeout, and task runs of instances that went away. Retries then apply.
import type { Db } from '@svc/db';
import { failLostTaskRuns, runFollowUps, timeOutExecutions, timeOutTaskRuns, type StartDeps } from '@svc/engine';
import type { Logger } from '@svc/logging';

/** How often the lease holder checks timeouts and lost work. */
export const WATCHDOG_MS = 5_000;

export interface WatchdogDeps {
  db: Db;
  log: Logger;
  engine: StartDeps;
  now: () => Date;
  isHolder: () => boolean;
  intervalMs?: number;
}

export async function watchdogOnce(deps: WatchdogDeps): Promise<{ executions: string[]; timedOut: string[]; lost: string[] }> {
  const now = deps.now();
  const ex = await timeOutExecutions(deps.db.pool, now);
  const to = await timeOutTaskRuns(deps.db.pool, now);
  const lost = await failLostTaskRuns(deps.db.pool, now);
  await runFollowUps(deps.db.pool, deps.engine, [...ex.followUps, ...to.followUps, ...lost.followUps]);
  if (ex.ids.length || to.ids.length || lost.ids.length) {
    deps.log.info('watchdog', { timed_out_executions: ex.ids, timed_out_task_runs: to.ids, lost_task_runs: lost.ids });
  }
  return { executions: ex.ids, timedOut: to.ids, lost: lost.ids };
}

export function startWatchdog(deps: WatchdogDeps): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    if (!deps.isHolder()) return;
    running = watchdogOnce(deps).catch((err) => deps.log.warn('watchdog failed', { err }));
  }, deps.intervalMs ?? WATCHDOG_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
