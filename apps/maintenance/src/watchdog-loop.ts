// While this instance holds the `maintenance` lease: every few seconds, end
// executions past their flow timeout, task runs silent 60 s past their
// timeout, and task runs of instances that went away. Retries then apply.
// It also plans executions whose planning requests are older than a few
// seconds (left by a dispatcher or gateway that died between ending a task
// run and planning its execution).
//
// The rules themselves live in the engine (timeOutExecutions, timeOutTaskRuns,
// failLostTaskRuns for process and inline runs); the docker/kubernetes `lost`
// rule, which also needs the task heartbeat to be older than
// SVC_HEARTBEAT_TIMEOUT, is selected here and ended through the engine's
// completeTaskRun like any other completion.
//
// Every pass reads the database's clock once and judges heartbeats, leases
// and timeouts against it: they were written with that clock, so the hosts'
// own clocks never enter the comparison. The `lost` rules run only once this
// process has reached the database without a break for a whole online
// window (db-contact.ts): after an outage, live instances re-heartbeat first.
import { INSTANCE_ONLINE_WINDOW_MS, type Db } from '@svc/db';
import { completeTaskRun, drainOutbox, failLostTaskRuns, hasStaleRequests, onlineSince, planExecutions, runFollowUps, timeOutExecutions, timeOutTaskRuns, type FollowUp, type StartDeps } from '@svc/engine';
import type { Logger } from '@svc/logging';
import type { DbContact } from './db-contact.js';
import type { MaintenanceMetrics } from './metrics.js';
import { selectLostContainerRuns } from './sql/lost-containers.js';

/** How often the lease holder checks timeouts and lost work. */
export const WATCHDOG_MS = 5_000;
/** Planning requests older than this are planned by the watchdog (normally their own process plans them within milliseconds). */
export const STALE_REQUEST_MS = 5_000;
/** `SVC_HEARTBEAT_TIMEOUT` default (60s). */
export const DEFAULT_HEARTBEAT_TIMEOUT_MS = 60_000;

export interface WatchdogDeps {
  db: Db;
  log: Logger;
  engine: StartDeps;
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

/** Docker and kubernetes runs of offline instances whose task heartbeat is also older than the timeout. */
export async function failLostContainerRuns(deps: Pick<WatchdogDeps, 'db' | 'heartbeatTimeoutMs'>, now: Date): Promise<{ ids: string[]; followUps: FollowUp[] }> {
  const silentBefore = new Date(now.getTime() - (deps.heartbeatTimeoutMs ?? DEFAULT_HEARTBEAT_TIMEOUT_MS));
  const candidates = await selectLostContainerRuns(deps.db.pool, onlineSince(now), silentBefore);
  const ids: string[] = [];
  const followUps: FollowUp[] = [];
  for (const id of candidates) {
    const r = await completeTaskRun(deps.db.pool, id, { state: 'FAILED', reason: 'lost', error: 'the instance running this task went away and its runner stopped reporting', exitCode: null }, () => now);
    if (!r.ended) continue;
    ids.push(id);
    followUps.push(...r.followUps);
  }
  return { ids, followUps };
}

/** The database's clock (one round trip, once per pass). */
async function databaseNow(db: Db): Promise<Date> {
  return (await db.pool.query<{ now: Date }>(`SELECT clock_timestamp() AS now`)).rows[0]!.now;
}

export async function watchdogOnce(deps: WatchdogDeps): Promise<WatchdogResult> {
  let now: Date;
  try {
    now = deps.now ? deps.now() : await databaseNow(deps.db);
    if (deps.now) await deps.db.pool.query('SELECT 1');
  } catch (err) {
    deps.contact?.failed();
    throw err;
  }
  deps.contact?.ok();
  const ex = await timeOutExecutions(deps.db.pool, now);
  const to = await timeOutTaskRuns(deps.db.pool, now);
  // After a break in our own contact, instances whose heartbeats stopped during it get a whole window to heartbeat again.
  const judgeLiveness = !deps.contact || deps.contact.steadyFor(INSTANCE_ONLINE_WINDOW_MS);
  if (!judgeLiveness) deps.log.debug('watchdog: lost rules wait for a whole online window of database contact');
  const none = { ids: [] as string[], followUps: [] as FollowUp[] };
  const lost = judgeLiveness ? await failLostTaskRuns(deps.db.pool, now) : none;
  const lostContainers = judgeLiveness ? await failLostContainerRuns(deps, now) : none;
  const planned: FollowUp[] = [];
  const planNow = deps.now ?? (() => new Date());
  for (let i = 0; i < 10 && (await hasStaleRequests(deps.db.pool, new Date(now.getTime() - STALE_REQUEST_MS))); i++) {
    const r = await planExecutions(deps.db.pool, planNow, undefined, { storage: deps.engine.storage });
    planned.push(...r.followUps);
    if (!r.planned) break;
  }
  await runFollowUps(deps.db.pool, deps.engine, [...ex.followUps, ...to.followUps, ...lost.followUps, ...lostContainers.followUps, ...planned]);
  // The outbox's backstop: follow-ups whose writer died or failed between its commit and running them.
  const leftover = await drainOutbox(deps.db.pool, deps.engine);
  if (leftover) deps.log.info('watchdog: ran follow-ups left in the outbox', { count: leftover });
  const lostIds = [...lost.ids, ...lostContainers.ids];
  if (ex.ids.length || to.ids.length || lostIds.length) {
    deps.log.info('watchdog', { timed_out_executions: ex.ids, timed_out_task_runs: to.ids, lost_task_runs: lostIds });
  }
  deps.metrics?.watchdogEnded.inc({ rule: 'execution_timeout' }, ex.ids.length);
  deps.metrics?.watchdogEnded.inc({ rule: 'task_timeout' }, to.ids.length);
  deps.metrics?.watchdogEnded.inc({ rule: 'lost' }, lostIds.length);
  return { executions: ex.ids, timedOut: to.ids, lost: lostIds };
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
