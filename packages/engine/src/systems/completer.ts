// The one completion path (Engine.complete and completeAndClaim): a RUNNING
// task run is ended (masked against the secrets it resolved when the
// completion comes from a task) and its execution planned: in the batch
// that ends it (completion-batcher.ts, endAndPlan), else by this process's
// Planner when one is started, else at once; then the follow-ups run.
import type pg from 'pg';
import type { MasterKey } from '@svc/config';
import type { FollowUpRunner } from '../peers.js';
import type { EngineResources } from '../resources.js';
import { withRetry } from '../retry.js';
import { beingCancelled } from '../sql/task-run-reads.js';
import type { ClaimedRun, ClaimOptions, TaskCompletion } from '../types.js';
import { CompletionBatcher } from './completion-batcher.js';
import { planReadOf, type Completions } from './completion.js';
import type { Planner, Planning } from './planner.js';

/** Reasons of a FAILED end reported for a task that was stopped from outside (a signal, a killed container): a cancel when its execution is CANCELLING. */
const STOPPED_REASONS = new Set(['instance_shutdown', 'executor_error', 'lost']);

/** Options of a completion. */
export interface CompleteOptions {
  /** The completion's text and outputs come from the task: masked against the secrets its run resolved. Default false. */
  fromTask?: boolean;
  /** Claims one QUEUED run for the slot this run frees, in the transaction that ends it. Default: none. */
  claim?: Omit<ClaimOptions, 'limit' | 'now'>;
  /** The run as claimed (its execution's definition lets the batch read the plan with the ends). Default: unknown. */
  run?: ClaimedRun;
}

export class Completer {
  /** Completions ended and planned together (group commit). */
  private readonly batcher: CompletionBatcher;

  constructor(
    private readonly o: {
      pool: pg.Pool;
      now: () => Date;
      masterKeys: readonly MasterKey[];
      log: EngineResources['log'];
      /** Aborted when the engine stops: the retried end gives up. */
      stopping: AbortSignal;
      completions: Completions;
      planning: Planning;
      followUps: Pick<FollowUpRunner, 'follow'>;
      /** This process's Planner, once started. */
      planner: () => Planner | undefined;
    },
  ) {
    const { completions, followUps, log, now } = o;
    this.batcher = new CompletionBatcher({
      write: (items) => completions.endAndPlan(items, () => now()),
      endOnly: async (it) => {
        const executionId = await completions.end(it.taskRunId, it.done, { masking: it.masking });
        return { executionId, planned: false, claimed: [] };
      },
      follow: (f) => followUps.follow(f),
      onSplit: (err, size) => log.warn('ending a batch of task runs failed; they are ended one by one', { err, completions: size }),
    });
  }

  /** Ends a RUNNING task run and has its execution planned (see Engine.completeAndClaim). */
  async completeAndClaim(taskRunId: string, done: TaskCompletion, opts: CompleteOptions = {}): Promise<{ ended: boolean; claimed: ClaimedRun[] }> {
    const { o } = this;
    const masking = opts.fromTask ? { masterKeys: o.masterKeys } : undefined;
    // A runner stopped by a signal asks the gateway whether it is a cancel, but
    // only for a moment: a loaded gateway can let it fall back to
    // instance_shutdown; and a container stopped on cancel can be killed after
    // its grace before its runner reports at all (the executor then ends it
    // executor_error). When the execution is being cancelled, the stop was the cancel.
    if (done.state === 'FAILED' && STOPPED_REASONS.has(done.reason) && opts.fromTask && (await this.beingCancelled(taskRunId))) {
      done = { ...done, state: 'CANCELLED', reason: 'cancelled', error: 'cancelled' };
    }
    // The end time is the database's clock: the claim wrote the start with it. Ended and
    // planned in one transaction with the completions that arrive meanwhile (completion-batcher.ts).
    const r = await withRetry(() => this.batcher.submit({ taskRunId, done, masking, claim: opts.claim, planRead: opts.run ? planReadOf(opts.run) : undefined }), {
      what: `ending task run ${taskRunId}`,
      signal: o.stopping,
      onRetry: (err, attempt, delayMs) => o.log.warn('cannot record the end of a task run; retrying', { err, task_run_id: taskRunId, attempt, retry_in_ms: delayMs }),
    });
    if (!r.executionId) return { ended: false, claimed: [] };
    const planner = o.planner();
    if (r.planned) {
      // Done: planned (and followed up) in the batch.
    } else if (planner) {
      // A pass holds the execution: the planner plans (and follows up) this run's request soon.
      void planner.kick();
    } else {
      const p = await o.planning.plan(() => o.now(), [r.executionId]);
      await o.followUps.follow(p.followUps);
    }
    return { ended: true, claimed: r.claimed };
  }

  /** Whether this task run's execution is being cancelled. */
  private async beingCancelled(taskRunId: string): Promise<boolean> {
    return beingCancelled(this.o.pool, { taskRunId });
  }
}
