// The dispatcher loop. For each executor type it serves, it claims QUEUED
// task runs of its pools while it has free slots (SVC_WORKER_SLOTS each),
// woken by NOTIFY (a hint, through @svc/db's Notifier, which reconnects after
// a loss and wakes every loop then) and by a poll every second (the backstop),
// or at the next retry time. It stops running task runs whose execution is being
// cancelled or has ended (NOTIFY plus a periodic check), and on shutdown ends
// its running task runs FAILED `instance_shutdown` (retries then apply) before
// killing their processes.
import type client from 'prom-client';
import { CHANNELS, type ClaimedRun } from '@svc/engine';
import { withLogFields } from '@svc/logging';
import type { DispatcherContext } from './context.js';
import { createDispatcherMetrics, type DispatcherMetrics } from './metrics.js';
import type { Executor } from './executors/types.js';

/** Backstop poll when no notification arrives. */
export const POLL_MS = 1_000;
/** How often running jobs are checked against their execution's state. */
export const STOP_CHECK_MS = 2_000;
/** How often the advertised executor types are checked against the executors' availability. */
export const ADVERTISE_MS = 2_000;

export interface DispatcherOptions {
  /** Backstop poll when no notification arrives. Default POLL_MS (tests lengthen it to show that notifications alone suffice). */
  pollMs?: number;
  /** The process's Prometheus registry (served at /metrics): the dispatcher's metrics are added to it (metrics.ts). */
  metrics?: client.Registry;
}

interface Job {
  run: ClaimedRun;
  abort: AbortController;
  done: Promise<void>;
}

export class Dispatcher {
  private readonly jobs = new Map<string, Job>();
  private readonly wakeups = new Map<string, () => void>();
  /** Executor types woken while their loop was not sleeping. */
  private readonly woken = new Set<string>();
  /**
   * Executor types woken while every slot was taken: the loop had nothing to claim for, so the
   * next slot to free claims even if its handoff found nothing (that claim may have run before
   * the new run committed, and the notification is spent).
   */
  private readonly wokenWhileFull = new Set<string>();
  private readonly slots: Map<string, number>;
  /** Unsubscribes from the process's notifier. */
  private readonly unsubscribe: (() => void)[] = [];
  private readonly pollMs: number;
  private stopping = false;
  private loops: Promise<void>[] = [];
  private stopTimer?: NodeJS.Timeout;
  private advertiseTimer?: NodeJS.Timeout;
  /** The executor types the instance row advertises now. */
  private advertised: string[] = [];
  private readonly metrics?: DispatcherMetrics;

  constructor(
    private readonly ctx: DispatcherContext,
    private readonly executors: Executor[],
    private readonly opts: DispatcherOptions = {},
  ) {
    this.pollMs = opts.pollMs ?? POLL_MS;
    this.slots = new Map(executors.map((e) => [e.type, e.slots ?? ctx.config.workerSlots]));
    if (opts.metrics)
      this.metrics = createDispatcherMetrics(
        opts.metrics,
        executors.map((e) => ({ type: e.type, slots: e.slots ?? ctx.config.workerSlots })),
        (type) => this.running(type),
      );
  }

  async start(): Promise<void> {
    const { ctx } = this;
    for (const e of this.executors) await e.ready?.();
    await this.advertise();
    this.advertiseTimer = setInterval(() => void this.advertise().catch((err: unknown) => ctx.log.warn('cannot update the advertised executors', { err })), ADVERTISE_MS);
    this.advertiseTimer.unref();
    const notifier = ctx.notifier;
    this.unsubscribe.push(
      notifier.subscribe(CHANNELS.queued, (executorType) => this.wake(executorType)),
      notifier.subscribe(CHANNELS.stop, (executionId) => this.stopExecution(executionId)),
      // Notifications sent while no connection listened are lost: claim and check stops at once.
      notifier.onReconnect(() => {
        for (const e of this.executors) this.wake(e.type);
        void this.checkStops();
      }),
    );
    // Listening before the loops start; if the database cannot be reached, polling covers until it can.
    await notifier.ready();
    this.loops = this.executors.map((e) => this.loop(e));
    this.stopTimer = setInterval(() => void this.checkStops(), STOP_CHECK_MS);
    this.stopTimer.unref();
    ctx.engine.dispatch.startPlanner();
  }

  /**
   * Advertises the executor types that can run tasks now (an executor whose
   * engine stopped answering is withdrawn, and returns when it answers): the
   * QUEUED runs of a type nobody serves say `no_instance_for_pool`, and lose
   * it when a dispatcher serves the type again.
   */
  private async advertise(): Promise<void> {
    const now = this.executors.filter((e) => e.available?.() ?? true).map((e) => e.type);
    const added = now.filter((t) => !this.advertised.includes(t));
    const removed = this.advertised.filter((t) => !now.includes(t));
    if (!added.length && !removed.length && this.advertised.length) return;
    const { ctx } = this;
    await ctx.advertise(now);
    this.advertised = now;
    if (removed.length) {
      ctx.log.warn('executors withdrawn: they cannot run tasks now', { executors: removed });
      await ctx.engine.dispatch.withdrawn(ctx.config.pools, removed);
    }
    await ctx.engine.dispatch.servingPools(ctx.config.pools, now);
  }

  private running(type: string): number {
    let n = 0;
    for (const j of this.jobs.values()) if (j.run.executor_type === type) n++;
    return n;
  }

  private sleep(type: string, ms: number): Promise<void> {
    // A wake while the loop was not sleeping (in the middle of a claim) is kept, not lost.
    if (this.woken.delete(type)) return Promise.resolve();
    return new Promise((resolve) => {
      const t = setTimeout(done, ms);
      const wakeups = this.wakeups;
      function done() {
        clearTimeout(t);
        if (wakeups.get(type) === done) wakeups.delete(type);
        resolve();
      }
      this.wakeups.set(type, done);
    });
  }

  /** Wakes the loop of an executor type: at once if it sleeps, else as soon as it would. */
  private wake(type: string): void {
    if (this.running(type) >= (this.slots.get(type) ?? Infinity)) this.wokenWhileFull.add(type);
    const w = this.wakeups.get(type);
    if (w) w();
    else this.woken.add(type);
  }

  private async loop(executor: Executor): Promise<void> {
    const { ctx } = this;
    const slots = this.slots.get(executor.type)!;
    while (!this.stopping) {
      let claimed: ClaimedRun[] = [];
      let wait = this.pollMs;
      const free = slots - this.running(executor.type);
      if (free > 0 && (executor.available?.() ?? true)) {
        try {
          // One statement claims and tells when the next run held back by a retry backoff is due,
          // both by the database's clock (a skewed clock here must not start runs late or early).
          const r = await ctx.engine.dispatch.claim({ instanceId: ctx.instanceId, pools: ctx.config.pools, executorType: executor.type, limit: free });
          claimed = r.runs;
          if (r.nextAt) wait = Math.max(0, Math.min(this.pollMs, r.nextAt.getTime() - r.at.getTime()));
        } catch (err) {
          this.metrics?.claimErrors.inc({ executor: executor.type });
          ctx.log.warn('claim failed', { err, executor: executor.type });
        }
      }
      for (const run of claimed) this.launch(executor, run);
      if (claimed.length && this.running(executor.type) < slots) continue; // more may be waiting
      if (this.running(executor.type) >= slots) wait = this.pollMs; // a finishing job wakes the loop
      if (wait > 0) await this.sleep(executor.type, wait);
    }
  }

  private launch(executor: Executor, run: ClaimedRun): void {
    const abort = new AbortController();
    const { ctx } = this;
    this.metrics?.claimed.inc({ executor: executor.type });
    // A run the plan that queued it also started (a freed slot's handoff) waited for nothing.
    this.metrics?.queueWait.observe({ pool: run.pool }, (run.waited_ms ?? 0) / 1000);
    const held = this.metrics?.held.startTimer({ executor: executor.type });
    // The next run for this slot, claimed as this one ends (process executor); none once stopping.
    const handoff = { claim: () => (this.stopping ? undefined : { instanceId: ctx.instanceId, pools: ctx.config.pools, executorType: executor.type }) };
    // Every line written for this run, by the executor, the engine or the end below, carries its ids.
    const done = withLogFields({ execution_id: run.execution_id, task_run_id: run.id }, () =>
      executor
        .run(run, abort.signal, handoff)
        .catch((err) => this.endFailed(run, err))
        .then((next) => {
          held?.();
          this.jobs.delete(run.id);
          // Claimed already: RUNNING on this instance. While stopping, the instance stop ends it.
          for (const n of next ?? []) if (!this.stopping) this.launch(executor, n);
          // A slot is free: the loop claims for it, unless the handoff did (a claim of the queue's
          // oldest run; none means the queue had none, and a new run wakes the loop by NOTIFY),
          // or a notification came while every slot was taken (see wokenWhileFull).
          if (!next || (!next.length && this.wokenWhileFull.has(executor.type))) {
            this.wokenWhileFull.delete(executor.type);
            this.wake(executor.type);
          }
        })
        .catch(() => this.wake(executor.type)),
    );
    this.jobs.set(run.id, { run, abort, done });
  }

  /**
   * An executor failed without ending its task run (or could not record the
   * end): end it FAILED executor_error, so that its retry policy applies now
   * instead of the run staying RUNNING until its timeout. A no-op when the run
   * already ended.
   */
  private async endFailed(run: ClaimedRun, err: unknown): Promise<void> {
    const { ctx } = this;
    this.metrics?.executorErrors.inc({ executor: run.executor_type });
    ctx.log.error('task run failed in the executor; it ends executor_error', { err, task_run_id: run.id });
    try {
      await ctx.engine.runner.complete(run.id, {
        state: 'FAILED',
        reason: 'executor_error',
        error: `executor error: ${err instanceof Error ? err.message : String(err)}`,
        exitCode: null,
      });
    } catch (finishErr) {
      // Only while stopping: the stop ends the instance's runs, or the watchdog's `lost` rule does once this instance is gone.
      ctx.log.error('cannot end the task run; the instance stop or the lost rule ends it', { err: finishErr, task_run_id: run.id });
    }
  }

  private stopExecution(executionId: string): void {
    for (const j of this.jobs.values()) if (j.run.execution_id === executionId) j.abort.abort();
  }

  /** Backstop for missed notifications: stop jobs whose task run is no longer RUNNING or whose execution is not RUNNING. */
  private async checkStops(): Promise<void> {
    if (!this.jobs.size) return;
    try {
      for (const id of await this.ctx.engine.dispatch.runsToStop([...this.jobs.keys()])) this.jobs.get(id)?.abort.abort();
    } catch (err) {
      this.ctx.log.warn('stop check failed', { err });
    }
  }

  /** SIGTERM: claim nothing more; end our running task runs FAILED instance_shutdown, then kill them. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.stopTimer);
    clearInterval(this.advertiseTimer);
    for (const e of this.executors) this.wake(e.type);
    await Promise.all(this.loops);
    const { ctx } = this;
    // Offline and our running task runs FAILED instance_shutdown, in one transaction; their retries then count on other instances.
    let ended: string[] = [];
    try {
      ended = await ctx.engine.dispatch.stopInstance(ctx.instanceId);
    } catch (err) {
      // The database is unreachable: the runs stay RUNNING until the watchdog's `lost` rule sees this instance gone.
      ctx.log.error('cannot end the running task runs at shutdown', { err });
    }
    // Writes still being retried give up after their next attempt: the runs are ended (or will be, as lost).
    const engineStopped = ctx.engine.stop();
    for (const j of this.jobs.values()) j.abort.abort();
    await Promise.all([...this.jobs.values()].map((j) => j.done));
    // A run claimed for a slot by a completion that committed after the stop above (a handoff) is not launched: end it too.
    try {
      ended.push(...(await ctx.engine.dispatch.stopInstance(ctx.instanceId)));
    } catch (err) {
      ctx.log.warn('cannot end task runs handed to this instance while it stopped; the lost rule ends them', { err });
    }
    for (const e of this.executors) e.close?.();
    await engineStopped;
    if (ended.length) ctx.log.info('task runs ended by shutdown', { task_run_ids: ended });
    for (const u of this.unsubscribe.splice(0)) u();
  }
}
