// Running follow-ups (outbox.ts): the parent of an ended subflow child, the
// next queued execution of a flow, the children of a cancelled execution,
// flow triggers. A recorded follow-up (with an outbox id) runs in the
// transaction that holds its row and deletes it; the follow-ups its work
// causes are recorded by that work and run after, in transactions of their own.
import type pg from 'pg';
import { assertNever } from '@svc/assert';
import type { Conn } from '../db.js';
import { ExecutionEndedError } from '../errors.js';
import type { EngineResources } from '../resources.js';
import type { FollowUpRunner } from '../peers.js';
import { childEnd } from '../sql/subflows.js';
import type { FollowUp } from '../types.js';
import type { Cancels } from './cancel.js';
import type { Completions } from './completion.js';
import type { FlowTriggers } from './flow-triggers.js';
import type { Outbox } from './outbox.js';
import type { Starts } from './start.js';

/** Follow-ups older than this are the backstop's: younger ones are normally being run by the instance that wrote them. */
export const OUTBOX_BACKSTOP_AGE_MS = 1_000;

/** The systems a follow-up's work is done by. */
export interface FollowUpPeers {
  outbox: Outbox;
  starts: Starts;
  cancels: Cancels;
  completions: Completions;
  flowTriggers: FlowTriggers;
}

/** Runs follow-ups (the engine's FollowUpRunner, handed to the systems that cause them). */
export class FollowUps implements FollowUpRunner {
  constructor(
    private readonly pool: pg.Pool,
    private readonly peers: FollowUpPeers,
    private readonly now: () => Date,
    private readonly log: EngineResources['log'],
  ) {}

  /** One follow-up's work on `db`; returns the follow-ups it caused (recorded, with their ids). */
  private async work(db: Conn, f: FollowUp): Promise<FollowUp[]> {
    const { peers } = this;
    switch (f.kind) {
      case 'child_ended': {
        const child = await childEnd(db, { childId: f.childExecutionId });
        if (!child) return [];
        const state =
          child.state === 'SUCCESS'
            ? 'SUCCESS'
            : child.state === 'CANCELLED' && child.parent_state === 'CANCELLING'
              ? 'CANCELLED'
              : child.state === 'TIMED_OUT'
                ? 'TIMED_OUT'
                : 'FAILED';
        const r = await peers.completions.complete(
          f.parentTaskRunId,
          {
            state,
            reason: state === 'SUCCESS' ? '' : state === 'CANCELLED' ? 'cancelled' : 'child_failed',
            error: state === 'SUCCESS' ? '' : `child execution ${f.childExecutionId} ended ${child.state}${child.error ? `: ${child.error}` : ''}`,
            exitCode: null,
            outputs: { execution_id: f.childExecutionId, state: child.state, outputs: child.outputs ?? {} },
          },
          this.now,
          { db },
        );
        return r.followUps;
      }
      case 'start_queued':
        return peers.starts.startQueued(f.concurrencyKey, db);
      case 'stop_children': {
        const out: FollowUp[] = [];
        for (const id of await peers.cancels.waitedChildren(f.executionId, db)) {
          try {
            out.push(...(await peers.cancels.cancel(id, 'parent cancelled', db)).followUps);
          } catch (err) {
            if (!(err instanceof ExecutionEndedError)) throw err;
          }
        }
        return out;
      }
      case 'flow_triggers':
        return (await peers.flowTriggers.fire(f.executionId, db)).followUps;
      default:
        return assertNever(f, 'follow-up');
    }
  }

  /**
   * Runs follow-ups and those they cause. Recorded ones (with an outbox id)
   * are skipped when another instance holds or has done them.
   */
  async run(first: FollowUp[]): Promise<void> {
    const queue = [...first];
    for (let guard = 0; queue.length && guard < 10_000; guard++) {
      const f = queue.shift()!;
      if (f.id === undefined) {
        queue.push(...(await this.work(this.pool, f)));
        continue;
      }
      let caused: FollowUp[] = [];
      await this.peers.outbox.withRow(f.id, async (c) => {
        caused = await this.work(c, f);
      });
      queue.push(...caused);
    }
  }

  /** Runs follow-ups after their commit; a failure is logged and left in the outbox for the backstop. */
  async follow(f: FollowUp[]): Promise<void> {
    if (!f.length) return;
    await this.run(f).catch((err) => this.log.warn('follow-up failed; the outbox backstop retries it', { err }));
  }

  /**
   * The backstop: runs follow-ups left in the outbox (their writer died or
   * failed between its commit and running them), up to `limit`. Any instance
   * may call it at any time. Returns how many it found.
   */
  async drain(opts: { olderThanMs?: number; limit?: number } = {}): Promise<number> {
    const pending = await this.peers.outbox.pending(opts.olderThanMs ?? OUTBOX_BACKSTOP_AGE_MS, opts.limit ?? 100);
    await this.run(pending);
    return pending.length;
  }
}
