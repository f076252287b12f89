// Running follow-ups after a commit: the parent of an ended subflow child, the
// next queued execution of a flow, the children of a cancelled execution.
// Each runs in its own transaction and may produce further follow-ups.
import type pg from 'pg';
import type { FollowUp } from './advance.js';
import { cancelExecution, ExecutionEndedError, waitedChildren } from './cancel.js';
import { completeTaskRun } from './complete.js';
import { startQueued, type StartDeps } from './executions.js';
import { fireFlowTriggers } from './flow-triggers.js';

export async function runFollowUps(pool: pg.Pool, deps: StartDeps, first: FollowUp[]): Promise<void> {
  const queue = [...first];
  for (let guard = 0; queue.length && guard < 10_000; guard++) {
    const f = queue.shift()!;
    switch (f.kind) {
      case 'child_ended': {
        const child = (await pool.query<{ state: string; outputs: Record<string, unknown> | null; error: string; parent_state: string }>(
          `SELECT e.state, e.outputs, e.error, p.state AS parent_state FROM executions e JOIN executions p ON p.id = e.parent_execution_id WHERE e.id = $1`,
          [f.childExecutionId],
        )).rows[0];
        if (!child) break;
        const state = child.state === 'SUCCESS' ? 'SUCCESS' : child.state === 'CANCELLED' && child.parent_state === 'CANCELLING' ? 'CANCELLED' : child.state === 'TIMED_OUT' ? 'TIMED_OUT' : 'FAILED';
        const r = await completeTaskRun(pool, f.parentTaskRunId, {
            state,
            reason: state === 'SUCCESS' ? '' : state === 'CANCELLED' ? 'cancelled' : 'child_failed',
            error: state === 'SUCCESS' ? '' : `child execution ${f.childExecutionId} ended ${child.state}${child.error ? `: ${child.error}` : ''}`,
            exitCode: null,
            outputs: { execution_id: f.childExecutionId, state: child.state, outputs: child.outputs ?? {} },
          }, deps.config.now, { storage: deps.storage });
        queue.push(...r.followUps);
        break;
      }
      case 'start_queued':
        queue.push(...(await startQueued(pool, deps, f.concurrencyKey)));
        break;
      case 'stop_children':
        for (const id of await waitedChildren(pool, f.executionId)) {
          try {
            queue.push(...(await cancelExecution(pool, id, 'parent cancelled', deps.config.now)).followUps);
          } catch (err) {
            if (!(err instanceof ExecutionEndedError)) throw err;
          }
        }
        break;
      case 'flow_triggers':
        queue.push(...(await fireFlowTriggers(pool, deps, f.executionId)).followUps);
        break;
      default: {
        const never: never = f;
        throw new Error(`unknown follow-up ${JSON.stringify(never)}`);
      }
    }
  }
}
