// Running follow-ups (outbox.ts): the parent of an ended subflow child, the
// next queued execution of a flow, the children of a cancelled execution,
// flow triggers. A recorded follow-up (with an outbox id) runs in the
// transaction that holds its row and deletes it; the follow-ups its work
// causes are recorded by that work and run after, in transactions of their own.
import type pg from 'pg';
import { assertNever } from '@svc/assert';
import { cancelExecution, ExecutionEndedError, waitedChildren } from './cancel.js';
import { completeTaskRun } from './completion.js';
import type { Conn } from '../db.js';
import { startQueued, type StartDeps } from './start.js';
import { fireFlowTriggers } from './flow-triggers.js';
import { pendingFollowUps, withOutboxRow, type FollowUp } from './outbox.js';
import { CHILD_END_SQL } from '../sql/subflows.js';

/** One follow-up's work on `db`; returns the follow-ups it caused (recorded, with their ids). */
async function work(db: Conn, deps: StartDeps, f: FollowUp): Promise<FollowUp[]> {
  switch (f.kind) {
    case 'child_ended': {
      const child = (await db.query<{ state: string; outputs: Record<string, unknown> | null; error: string; parent_state: string }>(CHILD_END_SQL, [f.childExecutionId])).rows[0];
      if (!child) return [];
      const state =
        child.state === 'SUCCESS'
          ? 'SUCCESS'
          : child.state === 'CANCELLED' && child.parent_state === 'CANCELLING'
            ? 'CANCELLED'
            : child.state === 'TIMED_OUT'
              ? 'TIMED_OUT'
              : 'FAILED';
      const r = await completeTaskRun(
        db,
        f.parentTaskRunId,
        {
          state,
          reason: state === 'SUCCESS' ? '' : state === 'CANCELLED' ? 'cancelled' : 'child_failed',
          error: state === 'SUCCESS' ? '' : `child execution ${f.childExecutionId} ended ${child.state}${child.error ? `: ${child.error}` : ''}`,
          exitCode: null,
          outputs: { execution_id: f.childExecutionId, state: child.state, outputs: child.outputs ?? {} },
        },
        deps.config.now,
        { storage: deps.storage },
      );
      return r.followUps;
    }
    case 'start_queued':
      return startQueued(db, deps, f.concurrencyKey);
    case 'stop_children': {
      const out: FollowUp[] = [];
      for (const id of await waitedChildren(db, f.executionId)) {
        try {
          out.push(...(await cancelExecution(db, id, 'parent cancelled', deps.config.now)).followUps);
        } catch (err) {
          if (!(err instanceof ExecutionEndedError)) throw err;
        }
      }
      return out;
    }
    case 'flow_triggers':
      return (await fireFlowTriggers(db, deps, f.executionId)).followUps;
    default:
      return assertNever(f, 'follow-up');
  }
}

/**
 * Runs follow-ups and those they cause. Recorded ones (with an outbox id)
 * are skipped when another instance holds or has done them.
 */
export async function runFollowUps(pool: pg.Pool, deps: StartDeps, first: FollowUp[]): Promise<void> {
  const queue = [...first];
  for (let guard = 0; queue.length && guard < 10_000; guard++) {
    const f = queue.shift()!;
    if (f.id === undefined) {
      queue.push(...(await work(pool, deps, f)));
      continue;
    }
    let caused: FollowUp[] = [];
    await withOutboxRow(pool, f.id, async (c) => {
      caused = await work(c, deps, f);
    });
    queue.push(...caused);
  }
}

/** Follow-ups older than this are the backstop's: younger ones are normally being run by the instance that wrote them. */
export const OUTBOX_BACKSTOP_AGE_MS = 1_000;

/**
 * The backstop: runs follow-ups left in the outbox (their writer died or
 * failed between its commit and running them), up to `limit`. Any instance
 * may call it at any time. Returns how many it found.
 */
export async function drainOutbox(pool: pg.Pool, deps: StartDeps, opts: { olderThanMs?: number; limit?: number } = {}): Promise<number> {
  const pending = await pendingFollowUps(pool, opts.olderThanMs ?? OUTBOX_BACKSTOP_AGE_MS, opts.limit ?? 100);
  await runFollowUps(pool, deps, pending);
  return pending.length;
}
