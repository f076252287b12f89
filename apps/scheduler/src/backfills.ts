// Backfills: a flow's schedule trigger run over a past range.
// The gateway writes a `backfills` row and one `backfill_runs` row per fire
// time (computed by @svc/timing's FireTimes, as the scheduler fires), and
// pause/resume/cancel change the row's state. This advancer creates the
// executions: each pass claims running backfills with FOR UPDATE SKIP
// LOCKED (so one scheduler instance works on a backfill at a time), counts
// its unended executions, and creates executions for its oldest pending
// fire times up to `max_in_flight`, in the claiming transaction. A run row
// goes from pending to created only with its execution (WHERE state =
// 'pending'), and its primary key is (backfill, fire time): a fire time
// becomes one execution however many schedulers run and whenever one stops.
// Executions go through the engine's trigger, so the flow's concurrency rule
// applies as to any schedule fire; the trigger payload is a schedule fire's
// ({ fire_time, schedule, cron, timezone }) plus `backfill`, trigger_type is
// `schedule` (the spec has no backfill type) and the label `backfill` holds
// the backfill's id. A fire time that meets a disabled flow pauses the
// backfill (resumed by hand) rather than spending the fire times left.
// Each pass also writes, on the run rows, the outcome of the executions that
// have ended (in the claiming transaction, after counting those in flight,
// so a backfill ends done with every outcome written), and of those of
// backfills not running (paused, cancelled): progress reads the outcome, and
// survives retention deleting the executions.
// Above each backfill's own max_in_flight, two caps hold across all
// backfills of a flow and of a namespace, whatever their number and however
// many schedulers run (SVC_BACKFILL_MAX_IN_FLIGHT_PER_FLOW, ..._PER_NAMESPACE):
// a backfill gets executions only while its scheduler holds the flow's and
// the namespace's advisory locks, which count what is in flight from the
// rows (tryLockBackfillScope, countScopeRunsIn); a backfill whose locks another
// scheduler holds waits for the next pass.
// The statements are @svc/scheduling's (packages/scheduling/src/backfills.ts, the one
// writer of backfills and backfill_runs), each run on the claiming
// transaction's client; this file holds only the savepoints around a fire.
import type pg from 'pg';
import {
  backfillTriggerDefinition,
  claimRunningBackfills,
  countBackfillRunsIn,
  countScopeRunsIn,
  finishBackfill,
  pauseClaimedBackfill,
  pendingFireTimes,
  recordBackfillRun,
  recordRunOutcomes,
  touchBackfill,
  tryLockBackfillScope,
  type ClaimedBackfillRow,
} from '@svc/scheduling';
import { FlowDisabledError, FlowNotFoundError, InputsInvalidError, type Engine } from '@svc/engine';
import { TemplateError } from '@svc/flow-schema';
import { runLoop, type Loop } from './loop.js';

/** The label every execution of a backfill carries, valued with the backfill's id. */
export const BACKFILL_LABEL = 'backfill';

/** Execution states that count as in flight. */
export const IN_FLIGHT_STATES = ['QUEUED', 'RUNNING', 'CANCELLING'] as const;

export interface BackfillLog {
  info(message: string, meta?: Record<string, unknown>): unknown;
  warn(message: string, meta?: Record<string, unknown>): unknown;
}

export interface BackfillAdvancerDeps {
  pool: pg.Pool;
  engine: Engine;
  log: BackfillLog;
  /** Backfills claimed per transaction. Default 10. */
  batchSize?: number;
  /** Executions created per backfill per transaction (the transaction stays short). Default 100. */
  perPass?: number;
  /** Outcomes written per call for backfills not running. Default 1,000. */
  outcomeBatch?: number;
  /** SVC_BACKFILL_MAX_IN_FLIGHT_PER_FLOW: executions in flight of all backfills of one flow. Default: no cap. */
  maxInFlightPerFlow?: number;
  /** SVC_BACKFILL_MAX_IN_FLIGHT_PER_NAMESPACE: executions in flight of all backfills of one namespace. Default: no cap. */
  maxInFlightPerNamespace?: number;
}

export interface AdvanceResult {
  /** Executions created in this pass. */
  created: number;
  /** Fire times that made no execution (flow disabled, inputs invalid...). */
  skipped: number;
  /** Backfills that finished in this pass. */
  finished: string[];
}

export class BackfillAdvancer {
  constructor(private readonly deps: BackfillAdvancerDeps) {}

  /** Advances every running backfill until each is at its in-flight limit or out of fire times. */
  async advance(now: Date): Promise<AdvanceResult> {
    const total: AdvanceResult = { created: 0, skipped: 0, finished: [] };
    // Executions of paused, cancelled or done backfills that ended since the advancer last served them.
    await recordRunOutcomes(this.deps.pool, { limit: this.deps.outcomeBatch ?? 1000 });
    // Backfills already served in this call: a full one goes round again, others wait for the next call.
    for (let round = 0; round < 1000; round++) {
      const r = await this.pass(now);
      total.created += r.created;
      total.skipped += r.skipped;
      total.finished.push(...r.finished);
      if (!r.more) break;
    }
    if (total.created || total.skipped || total.finished.length)
      this.deps.log.info('backfills advanced', { created: total.created, skipped: total.skipped, finished: total.finished });
    return total;
  }

  /** One transaction: claims up to batchSize running backfills and serves each. */
  private async pass(now: Date): Promise<AdvanceResult & { more: boolean }> {
    const out = { created: 0, skipped: 0, finished: [] as string[], more: false };
    const perPass = this.deps.perPass ?? 100;
    await this.deps.engine.executions.transaction(async (c, tx) => {
      const claimed = await claimRunningBackfills(c, this.deps.batchSize ?? 10);
      for (const b of claimed) {
        const inFlight = await countBackfillRunsIn(c, b.id, IN_FLIGHT_STATES);
        // After that count: whatever was not in flight has ended, and has its outcome written before the backfill can end done.
        await recordRunOutcomes(c, { id: b.id, limit: 10_000 });
        const own = Math.min(perPass, b.max_in_flight - inFlight);
        const pending = own > 0 ? await pendingFireTimes(c, b.id, own + 1) : [];
        const room = pending.length ? Math.min(own, await this.sharedRoom(c, b)) : own;
        const definition = pending.length ? await backfillTriggerDefinition(c, b) : undefined;
        let served = 0;
        let paused = false;
        for (const at of pending.slice(0, Math.max(room, 0))) {
          served++;
          const fireTime = at.toISOString();
          await c.query('SAVEPOINT backfill_fire');
          let executionId: string | null = null;
          let reason = '';
          try {
            const created = await tx.trigger({
              namespace: b.namespace,
              flowId: b.flow_id,
              inputTemplates: { templates: definition?.inputs ?? {} },
              labels: { [BACKFILL_LABEL]: b.id },
              triggerType: 'schedule',
              triggerId: b.trigger_id,
              triggerPayload: { fire_time: fireTime, schedule: b.trigger_id, cron: b.cron, timezone: b.timezone, backfill: b.id },
              createdBy: 'backfill',
            });
            executionId = created.id;
          } catch (err) {
            const why = skipReason(err);
            await c.query('ROLLBACK TO SAVEPOINT backfill_fire');
            if (!why) throw err;
            if (why === 'flow_disabled') {
              // A disabled flow would spend every fire time left: the backfill waits, paused, for the flow and a resume.
              await c.query('RELEASE SAVEPOINT backfill_fire');
              await pauseClaimedBackfill(c, b.id, now);
              this.deps.log.warn('backfill paused: its flow is disabled', { backfill: b.id, namespace: b.namespace, flow_id: b.flow_id });
              paused = true;
              break;
            }
            reason = why;
            this.deps.log.warn('backfill fire time made no execution', { backfill: b.id, fire_time: fireTime, reason, err });
          }
          const recorded = await recordBackfillRun(c, { backfillId: b.id, fireTime: at, state: executionId ? 'created' : 'skipped', executionId, reason, now });
          if (!recorded) {
            // Not pending any more (cancelled meanwhile): undo its execution.
            await c.query('ROLLBACK TO SAVEPOINT backfill_fire');
            continue;
          }
          await c.query('RELEASE SAVEPOINT backfill_fire');
          if (executionId) out.created++;
          else out.skipped++;
        }
        if (paused) continue;
        const left = pending.length - served;
        if (left > 0 && served === perPass) out.more = true;
        if (own > 0 && pending.length === 0 && inFlight === 0) {
          // Nothing pending, nothing in flight: the backfill is done.
          await finishBackfill(c, b.id, now);
          out.finished.push(b.id);
        } else {
          await touchBackfill(c, b.id, now);
        }
      }
    });
    return out;
  }

  /**
   * Executions the flow's and the namespace's caps leave room for, counted
   * under their locks (held until the transaction ends, so what this pass
   * creates is counted by the next holder); 0 when another scheduler holds
   * either. Without caps, no lock is taken.
   */
  private async sharedRoom(c: pg.PoolClient, b: ClaimedBackfillRow): Promise<number> {
    const { maxInFlightPerFlow: perFlow, maxInFlightPerNamespace: perNamespace } = this.deps;
    if (perFlow === undefined && perNamespace === undefined) return Infinity;
    if (!(await tryLockBackfillScope(c, { namespace: b.namespace, flowId: b.flow_id }))) return 0;
    let room = Infinity;
    if (perFlow !== undefined) room = Math.min(room, perFlow - (await countScopeRunsIn(c, { namespace: b.namespace, flowId: b.flow_id }, IN_FLIGHT_STATES)));
    if (perNamespace !== undefined) room = Math.min(room, perNamespace - (await countScopeRunsIn(c, { namespace: b.namespace }, IN_FLIGHT_STATES)));
    return room;
  }

  /** Advances on an interval until stopped; errors are logged and the loop goes on. */
  start(opts: { now: () => Date; intervalMs: number }): Loop {
    return runLoop(async () => {
      try {
        await this.advance(opts.now());
      } catch (err) {
        this.deps.log.warn('backfill advance failed', { err });
      }
    }, opts.intervalMs);
  }
}

function skipReason(err: unknown): string | undefined {
  if (err instanceof FlowDisabledError) return 'flow_disabled';
  if (err instanceof FlowNotFoundError) return 'flow_not_found';
  if (err instanceof InputsInvalidError) return 'inputs_invalid';
  if (err instanceof TemplateError) return 'template_error';
  return undefined;
}
