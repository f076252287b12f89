// While this instance holds the `maintenance` lease: every few seconds, end
// executions past their flow timeout, task runs silent 60 s past their
// timeout, and task runs of instances that went away. Retries then apply.
// It also plans executions whose planning requests are older than a few
// seconds (left by a dispatcher or gateway that died between ending a task
// run and planning its execution).
//
// The rules themselves live in the engine (Engine.watchdog: flow and task
// timeouts, the `lost` rules, planning requests left behind, follow-ups left
// in the outbox); this loop decides when a pass runs and whether it may judge
// liveness.
//
// Every pass reads the database's clock once and judges heartbeats, leases
// and timeouts against it: they were written with that clock, so the hosts'
// own clocks never enter the comparison. The `lost` rules run only once this
// process has reached the database without a break for a whole online
// window (db-contact.ts): after an outage, live instances re-heartbeat first.
import { INSTANCE_ONLINE_WINDOW_MS, type Db } from '@svc/db';
import type { Engine } from '@svc/engine';
import type { Logger } from '@svc/logging';
import type { DbContact } from './db-contact.js';
import type { MaintenanceMetrics } from './metrics.js';

/** How often the lease holder checks timeouts and lost work. */
export const WATCHDOG_MS = 5_000;
/** `SVC_HEARTBEAT_TIMEOUT` default (60s). */
export const DEFAULT_HEARTBEAT_TIMEOUT_MS = 60_000;

export interface WatchdogDeps {
  db: Db;
  log: Logger;
  engine: Engine;
  /** A test's clock. Default: the database's, read once at the start of each pass. */
  now?: () => Date;
  isHolder: () => boolean;
  /**
   * This process's contact with the database; the `lost` rules wait until it
   * has lasted a whole online window. Default: none (the rules always run).
   */
  contact?: DbContact;
  /** Period of the loop. Default {@link WATCHDOG_MS}. */
  intervalMs?: number;
  /** `SVC_HEARTBEAT_TIMEOUT` in ms, for docker and kubernetes runs. Default 60 s. */
  heartbeatTimeoutMs?: number;
  metrics?: MaintenanceMetrics;
}

export interface WatchdogResult {
  /** Executions ended TIMED_OUT (flow timeout). */
  executions: string[];
  /** Task runs ended TIMED_OUT reason timeout. */
  timedOut: string[];
  /** Task runs ended FAILED reason lost (process, inline, docker, kubernetes). */
  lost: string[];
}

export async function watchdogOnce(deps: WatchdogDeps): Promise<WatchdogResult> {
  let now: Date | undefined;
  try {
    // One read of the database's clock per pass (or a test's clock, with a round trip to prove contact).
    now = deps.now ? deps.now() : (await deps.db.pool.query<{ now: Date }>(`SELECT clock_timestamp() AS now`)).rows[0].now;
    if (deps.now) await deps.db.pool.query('SELECT 1');
  } catch (err) {
    deps.contact?.failed();
    throw err;
  }
  deps.contact?.ok();
  // After a break in our own contact, instances whose heartbeats stopped during it get a whole window to heartbeat again.
  const judgeLiveness = !deps.contact || deps.contact.steadyFor(INSTANCE_ONLINE_WINDOW_MS);
  if (!judgeLiveness) deps.log.debug('watchdog: lost rules wait for a whole online window of database contact');
  const r = await deps.engine.maintenance.watchdog({ now, judgeLiveness, heartbeatTimeoutMs: deps.heartbeatTimeoutMs ?? DEFAULT_HEARTBEAT_TIMEOUT_MS });
  if (r.executions.length || r.timedOut.length || r.lost.length) {
    deps.log.info('watchdog', { timed_out_executions: r.executions, timed_out_task_runs: r.timedOut, lost_task_runs: r.lost });
  }
  if (r.approvalsTimedOut.length) deps.log.info('watchdog: approval gates past their deadline', { task_runs: r.approvalsTimedOut });
  if (r.leftovers) deps.log.info('watchdog: ran follow-ups left in the outbox', { count: r.leftovers });
  deps.metrics?.watchdogEnded.inc({ rule: 'execution_timeout' }, r.executions.length);
  deps.metrics?.watchdogEnded.inc({ rule: 'task_timeout' }, r.timedOut.length);
  deps.metrics?.watchdogEnded.inc({ rule: 'lost' }, r.lost.length);
  deps.metrics?.watchdogEnded.inc({ rule: 'approval_timeout' }, r.approvalsTimedOut.length);
  return { executions: r.executions, timedOut: r.timedOut, lost: r.lost };
}

export function startWatchdog(deps: WatchdogDeps): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  let busy = false;
  const timer = setInterval(() => {
    // A slow pass (many timeouts at once) must not overlap the next one.
    if (!deps.isHolder() || busy) return;
    busy = true;
    running = watchdogOnce(deps)
      .then(() => {
        deps.metrics?.runs.inc({ job: 'watchdog', outcome: 'ok' });
        deps.metrics?.lastRun.set({ job: 'watchdog' }, (deps.now?.() ?? new Date()).getTime() / 1000);
      })
      .catch((err: unknown) => {
        deps.metrics?.runs.inc({ job: 'watchdog', outcome: 'error' });
        deps.log.warn('watchdog failed', { err });
      })
      .finally(() => (busy = false));
  }, deps.intervalMs ?? WATCHDOG_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
