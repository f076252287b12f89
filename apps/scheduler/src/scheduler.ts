// The scheduler: schedule triggers fire on their cron, exactly once across
// any number of scheduler instances, and flow triggers lost to a crash are
// fired late rather than never. The loop has three kinds of work:
//   - sync: the `schedules` table follows the `schedule` triggers of
//     enabled flows (new rows get the first fire time after now, a changed
//     cron, zone or catch_up is recomputed, rows of gone triggers and of
//     disabled or deleted flows are deleted), and keys of webhook triggers
//     that no longer exist are deleted. It runs at start, then whenever a
//     check every `syncMs` finds the flows or triggers changed (counts and
//     latest updated_at: 2 ms at 10,000 schedules, against 30 ms for the
//     full sync), and once a minute regardless. Polling, not NOTIFY: the
//     namespaces package writes the triggers and sends no notification.
//   - tick (every `tickMs`): due schedules are claimed with SKIP LOCKED; for
//     each, `decideFire` picks the fire time per `catch_up`, a
//     `schedule_fires` row (unique per trigger and fire time) and the
//     execution are written in the claiming transaction, and next_fire_at is
//     advanced. The row lock and the unique marker together make a fire time
//     happen once however many instances tick.
//   - sweep (every `sweepMs`): `sweepFlowTriggers` fires flow triggers of
//     executions that ended in the last 10 minutes and have no firing row
//     (the engine fires them as a follow-up; this is the backstop).
// Every step takes `now` as an argument, so tests drive downtime and DST
// days without sleeping.
import type pg from 'pg';
import client from 'prom-client';
import { FlowDisabledError, FlowNotFoundError, InputsInvalidError, type Engine, type EngineTx } from '@svc/engine';
import { TemplateError, type FlowTrigger } from '@svc/flow-schema';
import {
  advanceSchedules,
  claimDueSchedules,
  deleteInactiveSchedules,
  insertScheduleFire,
  selectChangedSchedules,
  triggerFingerprint,
  upsertSchedules,
  type DueSchedule,
  type ScheduleAdvance,
  type ScheduleSpec,
} from '@svc/scheduling';
import { startTrace, tracingOn } from '@svc/logging';
import { deleteOrphanWebhookKeys } from '@svc/namespaces';
import { decideFire, ON_TIME_MS, type CatchUp } from './catch-up.js';
import { FireTimesCache } from './fire-times.js';
import { runLoop, type Loop } from './loop.js';

export interface SchedulerLog {
  info(message: string, meta?: Record<string, unknown>): unknown;
  warn(message: string, meta?: Record<string, unknown>): unknown;
}

export interface SchedulerDeps {
  pool: pg.Pool;
  log: SchedulerLog;
  /** Creates executions (its `config.now` stamps them). */
  engine: Engine;
  /** The loop's clock. Default: the system clock. */
  now?: () => Date;
  /** Milliseconds between ticks. Default 1000. */
  tickMs?: number;
  /** Milliseconds between sync checks (a full sync when flows or triggers changed). Default 2000. */
  syncMs?: number;
  /** Milliseconds after which a full sync runs even when nothing seemed to change. Default 60 000. */
  fullSyncMs?: number;
  /** Milliseconds between flow-trigger sweeps. Default 5000. */
  sweepMs?: number;
  /** How far back the sweep looks for ended executions, in ms. Default 10 minutes. */
  sweepLookbackMs?: number;
  /** Due schedules claimed per transaction. Default 100. */
  batchSize?: number;
  /** Lateness still on time under `catch_up: none`, in ms. Default 60 000. */
  onTimeMs?: number;
  /** The process's Prometheus registry (served at /metrics): the schedule fire metrics are added to it. */
  metrics?: client.Registry;
}

export interface SyncResult {
  /** Schedule rows written (new, or recomputed after a change). */
  upserted: number;
  /** Schedule rows deleted (trigger gone, flow disabled or deleted). */
  deleted: number;
  /** Webhook keys deleted with their trigger. */
  webhookKeysDeleted: number;
}

export interface FireResult {
  namespace: string;
  flowId: string;
  triggerId: string;
  /** The fire time fired, or null when `catch_up: none` dropped a late one. */
  fireTime: Date | null;
  executionId: string | null;
  /** Why no execution: dropped (catch_up none), already_fired, flow_disabled, flow_not_found, inputs_invalid, template_error. */
  skipped?: string;
  next: Date;
}

export interface TickResult {
  fired: FireResult[];
  /** Schedules whose firing failed and were left due (retried next tick). */
  failed: number;
}

/** Tick, sync and sweep of one scheduler instance; see the file header. */
export class Scheduler {
  private readonly times = new FireTimesCache();
  /** Schedules whose cron or zone was refused, warned once per spec. */
  private readonly refused = new Set<string>();

  /** What the tick fired, for /metrics: outcomes, failures, and how late each execution started after its fire time. */
  private readonly metrics?: { fires: client.Counter<'outcome'>; errors: client.Counter; lag: client.Histogram };

  constructor(private readonly deps: SchedulerDeps) {
    if (deps.metrics) {
      const registers = [deps.metrics];
      this.metrics = {
        fires: new client.Counter({
          name: 'svc_schedule_fires_total',
          help: 'Schedule fire times this instance handled, by outcome: execution, or why none (dropped, already_fired, flow_disabled, flow_not_found, inputs_invalid, template_error)',
          labelNames: ['outcome'] as const,
          registers,
        }),
        errors: new client.Counter({ name: 'svc_schedule_fire_errors_total', help: 'Schedule fires that failed and stay due (tried again at the next tick)', registers }),
        lag: new client.Histogram({
          name: 'svc_schedule_fire_lag_seconds',
          help: 'How late a schedule fire created its execution, after its fire time (by the scheduler clock)',
          buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 3600],
          registers,
        }),
      };
      this.metrics.fires.inc({ outcome: 'execution' }, 0);
      this.metrics.errors.inc(0);
    }
  }

  private lastFingerprint: string | undefined;
  private lastFullSync = -Infinity;

  /**
   * The loop's sync: the full sync when the flows or triggers changed since
   * the last one (see triggerFingerprint) or a minute passed; else nothing.
   * Returns undefined when it skipped.
   */
  async syncIfChanged(now: Date): Promise<SyncResult | undefined> {
    const fp = await triggerFingerprint(this.deps.pool);
    if (fp === this.lastFingerprint && performance.now() - this.lastFullSync < (this.deps.fullSyncMs ?? 60_000)) return undefined;
    const result = await this.sync(now);
    // Taken before the sync read the triggers: a change during the sync shows as a new fingerprint next time.
    this.lastFingerprint = fp;
    this.lastFullSync = performance.now();
    return result;
  }

  /** Brings `schedules` in step with the schedule triggers of enabled flows. */
  async sync(now: Date): Promise<SyncResult> {
    const { pool } = this.deps;
    const changed = await selectChangedSchedules(pool);
    let upserted = 0;
    // Chunks, so a first sync of many schedules leaves the event loop breathing.
    for (let i = 0; i < changed.length; i += 500) {
      const chunk = changed.slice(i, i + 500).map((s) => ({ ...s, next_fire_at: this.firstAfter(s, now) }));
      upserted += await upsertSchedules(pool, chunk, now);
      if (i + 500 < changed.length) await new Promise((r) => setImmediate(r));
    }
    const deleted = await deleteInactiveSchedules(pool);
    const webhookKeysDeleted = await deleteOrphanWebhookKeys(pool);
    if (upserted || deleted.length) this.deps.log.info('schedules synced', { upserted, deleted: deleted.length });
    return { upserted, deleted: deleted.length, webhookKeysDeleted };
  }

  private firstAfter(s: ScheduleSpec, now: Date): Date | null {
    try {
      return this.times.get(s.cron, s.timezone).next(now);
    } catch (err) {
      // The flow validator refuses these; a row with no next fire time never fires.
      const key = `${s.namespace}/${s.flow_id}/${s.trigger_id}\u0000${s.cron}\u0000${s.timezone}`;
      if (!this.refused.has(key)) {
        this.refused.add(key);
        this.deps.log.warn('schedule not usable', { namespace: s.namespace, flow_id: s.flow_id, trigger_id: s.trigger_id, cron: s.cron, timezone: s.timezone, err });
      }
      return null;
    }
  }

  /**
   * Fires every schedule due at `now`, in batches of `batchSize` rows per
   * transaction until none is left. One transaction at a time: firing from 4
   * transactions side by side (4 rows each) was measured at 10,000 schedules
   * on this 2-core machine: 10 due 96 ms against 98 ms serial, 100 due 825 ms
   * against 983 ms (p50). The database is the bottleneck (an execution costs
   * about 20 statements), so the gain did not pay for the complexity.
   */
  async tick(now: Date): Promise<TickResult> {
    const fired: FireResult[] = [];
    let failed = 0;
    const batchSize = this.deps.batchSize ?? 100;
    for (;;) {
      let claimed = 0;
      let batchFailed = 0;
      // The executions commit with the claim and the markers; the engine runs their follow-ups after the commit.
      await this.deps.engine.executions.transaction(async (c, tx) => {
        const due = await claimDueSchedules<FlowTrigger>(c, now, batchSize);
        claimed = due.length;
        const advances: ScheduleAdvance[] = [];
        for (const s of due) {
          // A savepoint per schedule: one that fails stays due and the others still fire.
          await c.query('SAVEPOINT fire');
          try {
            // With tracing on, each fire is the root of a trace its execution stores and its task runs continue (docs/operating/tracing.md).
            const r = tracingOn()
              ? await startTrace('fire schedule', { 'svc.namespace': s.namespace, 'svc.flow_id': s.flow_id, 'svc.trigger_id': s.trigger_id }, () => this.fireOne(c, tx, s, now))
              : await this.fireOne(c, tx, s, now);
            await c.query('RELEASE SAVEPOINT fire');
            fired.push(r.result);
            advances.push({ namespace: s.namespace, flow_id: s.flow_id, trigger_id: s.trigger_id, next: r.result.next, firedAt: r.result.fireTime });
          } catch (err) {
            await c.query('ROLLBACK TO SAVEPOINT fire');
            if (err instanceof AlreadyFired) {
              // Its execution (if one was made) is undone; the schedule still moves on.
              fired.push(err.result);
              advances.push({ namespace: s.namespace, flow_id: s.flow_id, trigger_id: s.trigger_id, next: err.result.next, firedAt: null });
              continue;
            }
            batchFailed++;
            this.deps.log.warn('schedule fire failed', { namespace: s.namespace, flow_id: s.flow_id, trigger_id: s.trigger_id, err });
          }
        }
        await advanceSchedules(c, advances, now);
      });
      failed += batchFailed;
      // A full batch may leave more due rows; a failing one would be claimed again at once, so stop.
      if (claimed < batchSize || batchFailed) break;
    }
    this.metrics?.errors.inc(failed);
    for (const f of fired) {
      if (this.metrics && (f.executionId || f.skipped)) {
        this.metrics.fires.inc({ outcome: f.executionId ? 'execution' : f.skipped! });
        if (f.executionId && f.fireTime) this.metrics.lag.observe(Math.max(0, now.getTime() - f.fireTime.getTime()) / 1000);
      }
      if (f.executionId || f.skipped)
        this.deps.log.info('schedule fired', {
          namespace: f.namespace,
          flow_id: f.flowId,
          trigger_id: f.triggerId,
          fire_time: f.fireTime?.toISOString() ?? null,
          execution_id: f.executionId,
          skipped: f.skipped,
        });
    }
    return { fired, failed };
  }

  /**
   * Fires one claimed schedule (no advance: the caller batches those). The
   * execution is created first and the marker row written after it, with its
   * id, in the same savepoint: one statement fewer per fire. The marker only
   * exists already when clocks of two schedulers disagree or a row was edited
   * by hand; then AlreadyFired makes the caller undo the execution.
   */
  private async fireOne(c: pg.PoolClient, tx: EngineTx, s: DueSchedule<FlowTrigger>, now: Date): Promise<{ result: FireResult }> {
    const times = this.times.get(s.cron, s.timezone);
    const d = decideFire(times, s.next_fire_at, now, s.catch_up as CatchUp, this.deps.onTimeMs ?? ON_TIME_MS);
    const result: FireResult = { namespace: s.namespace, flowId: s.flow_id, triggerId: s.trigger_id, fireTime: d.fireTime, executionId: null, next: d.next };
    if (!d.fireTime) return { result: { ...result, skipped: 'dropped' } };
    try {
      const created = await tx.trigger({
        namespace: s.namespace,
        flowId: s.flow_id,
        inputTemplates: { templates: s.definition.inputs ?? {} },
        triggerType: 'schedule',
        triggerId: s.trigger_id,
        triggerPayload: { fire_time: d.fireTime.toISOString(), schedule: s.trigger_id, cron: s.cron, timezone: s.timezone },
        createdBy: 'schedule',
      });
      result.executionId = created.id;
    } catch (err) {
      // The fire time is spent either way (its marker row stays, with no execution).
      const reason = skipReason(err);
      if (!reason) throw err;
      result.skipped = reason;
      this.deps.log.warn('schedule fired no execution', { namespace: s.namespace, flow_id: s.flow_id, trigger_id: s.trigger_id, reason, err });
    }
    if (!(await insertScheduleFire(c, s, d.fireTime, result.executionId, now))) {
      throw new AlreadyFired({ ...result, executionId: null, skipped: 'already_fired' });
    }
    return { result };
  }

  /** Fires flow triggers that ended executions missed (see sweepFlowTriggers). */
  async sweep(now: Date): Promise<number> {
    const fired = await this.deps.engine.maintenance.sweepFlowTriggers(new Date(now.getTime() - (this.deps.sweepLookbackMs ?? 600_000)));
    if (fired.length) this.deps.log.info('flow triggers swept', { fired: fired.length });
    return fired.length;
  }

  /** Runs sync, tick and sweep on their intervals until stopped. Errors are logged and the loop goes on. */
  start(): Loop {
    const now = this.deps.now ?? (() => new Date());
    const tickMs = this.deps.tickMs ?? 1000;
    const syncMs = this.deps.syncMs ?? 2000;
    const sweepMs = this.deps.sweepMs ?? 5000;
    const guard = async (what: string, fn: () => Promise<unknown>) => {
      try {
        await fn();
      } catch (err) {
        this.deps.log.warn(`scheduler ${what} failed`, { err });
      }
    };
    // Intervals run on the monotonic clock; `now()` only decides what is due (tests move it).
    let nextSync = 0;
    let nextSweep = 0;
    return runLoop(async (stopped) => {
      const t = now();
      if (performance.now() >= nextSync) {
        nextSync = performance.now() + syncMs;
        await guard('sync', () => this.syncIfChanged(t));
      }
      if (stopped()) return;
      await guard('tick', () => this.tick(t));
      if (performance.now() >= nextSweep && !stopped()) {
        nextSweep = performance.now() + sweepMs;
        await guard('sweep', () => this.sweep(t));
      }
    }, tickMs);
  }
}

/** The fire time's marker row exists: the caller rolls the savepoint back and moves the schedule on. */
class AlreadyFired extends Error {
  override readonly name = 'AlreadyFired';
  constructor(readonly result: FireResult) {
    super(`${result.namespace}/${result.flowId}/${result.triggerId} fired ${result.fireTime?.toISOString()} already`);
  }
}

function skipReason(err: unknown): string | undefined {
  if (err instanceof FlowDisabledError) return 'flow_disabled';
  if (err instanceof FlowNotFoundError) return 'flow_not_found';
  if (err instanceof InputsInvalidError) return 'inputs_invalid';
  if (err instanceof TemplateError) return 'template_error';
  return undefined;
}
