// Approval gates and pause (extensions of the flow format and the API): a
// person's decision on a task run waiting at its gate, the gate timeouts the
// maintenance lease holder applies, and pausing and resuming an execution.
// Each change runs in one transaction holding the execution's lock, then
// plans the execution in it (systems/advance.ts): an approval queues the task
// at once, a reject or a timeout lets its dependents be decided. The wait
// itself is rows only (reason awaiting_approval, the `approval` record), so a
// crash of any process loses nothing, and a decision is applied once: the
// statements change only a run still waiting.
import type pg from 'pg';
import { isExecutionEnded, nextExecutionState } from '@svc/state-machine';
import { advance, lockExecution } from './advance.js';
import { CHANNELS } from '../channels.js';
import { inTx, type Client } from '../db.js';
import { ExecutionEndedError, ExecutionNotFoundError, NotAwaitingApprovalError, NotRunningError, TaskNotFoundError } from '../errors.js';
import type { ApprovalRecord } from '../planning/approval.js';
import { approveWaiting, dueApprovals, endWaiting, gatedRun, pauseExecution, resumeExecution, waitingRun, type GatedRun } from '../sql/approvals.js';
import { insertHistory, notify } from '../sql/history.js';
import type { ExecutionRow } from '../rows.js';
import type { FollowUp } from '../types.js';

/** A person's decision on a waiting task run. */
export interface ApprovalDecision {
  kind: 'approve' | 'reject';
  /** Who decides (an email). */
  by: string;
  /** The form values (approve). */
  inputs?: Record<string, unknown>;
  comment?: string;
}

/** What the caller's check of a decision sees (under the execution's lock): the gate and its execution. */
export interface ApprovalGateSeen {
  approval: ApprovalRecord;
  namespace: string;
  flowId: string | null;
  /** Who started the execution. */
  startedBy: string;
}

/** Gate timeouts applied per pass at most (the next pass takes the rest). */
const TIMEOUT_BATCH = 100;

export class Approvals {
  constructor(
    private readonly pool: pg.Pool,
    private readonly now: () => Date,
  ) {}

  /**
   * Applies `d` to the run of `taskKey` waiting at its gate in execution
   * `executionId`, once `check` (the caller's authorization and form check,
   * under the lock) let it. Throws when there is no such execution or task,
   * or when the run is not waiting.
   */
  async decide(executionId: string, taskKey: string, d: ApprovalDecision, check: (gate: ApprovalGateSeen) => Promise<void> | void): Promise<{ followUps: FollowUp[] }> {
    return inTx(this.pool, async (c) => {
      const ex = await lockExecution(c, executionId);
      if (!ex) throw new ExecutionNotFoundError(`no execution ${executionId}`);
      const run = await gatedRun(c, { executionId, taskKey });
      if (!run) throw new TaskNotFoundError(`execution ${executionId} has no task ${taskKey}`);
      if (isExecutionEnded(ex.state) || !isWaiting(run)) throw new NotAwaitingApprovalError(notWaiting(taskKey, run));
      const approval = run.approval as unknown as ApprovalRecord;
      await check({ approval, namespace: ex.namespace, flowId: ex.flow_id, startedBy: run.started_by });
      const at = this.now();
      const decision = { by: d.by, at: at.toISOString(), inputs: d.inputs ?? {}, comment: d.comment ?? '' };
      if (d.kind === 'approve') {
        if (!(await approveWaiting(c, { id: run.id, at, decision: { ...decision, status: 'approved' } }))) throw new NotAwaitingApprovalError(notWaiting(taskKey, run));
      } else {
        const error = `rejected by ${d.by}${d.comment ? `: ${d.comment}` : ''}`;
        const ok = await endWaiting(c, { id: run.id, at, state: 'FAILED', reason: 'rejected', error, decision: { ...decision, inputs: {}, status: 'rejected' } });
        if (!ok) throw new NotAwaitingApprovalError(notWaiting(taskKey, run));
        await insertHistory(c, { rows: [{ executionId, taskRunId: run.id, from: 'PENDING', to: 'FAILED', reason: 'rejected', actor: d.by }], at });
      }
      return { followUps: await this.planAfter(c, ex, at) };
    });
  }

  /**
   * Applies `on_timeout` to runs whose gate's deadline passed at `now` (the
   * maintenance holder's clock): fail (FAILED approval_timed_out), skip
   * (SKIPPED approval_timed_out) or approve. The runs it decided.
   */
  async timeOut(now: Date | null): Promise<{ ids: string[]; followUps: FollowUp[] }> {
    const ids: string[] = [];
    const follow: FollowUp[] = [];
    for (const due of await dueApprovals(this.pool, { now, limit: TIMEOUT_BATCH })) {
      const f = await inTx(this.pool, async (c) => {
        const ex = await lockExecution(c, due.execution_id);
        const run = await waitingRun(c, { id: due.id });
        if (!ex || !run || isExecutionEnded(ex.state) || !isWaiting(run)) return null;
        const approval = run.approval as unknown as ApprovalRecord;
        const at = now ?? this.now();
        const decision = { status: 'timed_out', at: at.toISOString() };
        if (approval.on_timeout === 'approve') {
          if (!(await approveWaiting(c, { id: run.id, at, decision }))) return null;
        } else {
          const state = approval.on_timeout === 'skip' ? 'SKIPPED' : 'FAILED';
          const error = `no decision before the approval deadline ${approval.deadline ?? ''}`;
          if (!(await endWaiting(c, { id: run.id, at, state, reason: 'approval_timed_out', error, decision }))) return null;
          await insertHistory(c, { rows: [{ executionId: ex.id, taskRunId: run.id, from: 'PENDING', to: state, reason: 'approval_timed_out' }], at });
        }
        return this.planAfter(c, ex, at);
      });
      if (f) {
        ids.push(due.id);
        follow.push(...f);
      }
    }
    return { ids, followUps: follow };
  }

  /** Pauses execution `id` for `actor`: no new task run of it starts (its QUEUED ones are held). Pausing a paused one changes nothing. */
  async pause(id: string, actor: string): Promise<void> {
    await inTx(this.pool, async (c) => {
      const ex = await lockExecution(c, id);
      if (!ex) throw new ExecutionNotFoundError(`no execution ${id}`);
      // The transition table decides: RUNNING only (an ended one is execution_ended, a queued or cancelling one not running).
      const t = nextExecutionState(ex.state, 'pause');
      if (!t.ok && t.refusal === 'execution_ended') throw new ExecutionEndedError(`execution ${id} has ended (${ex.state})`);
      if (!t.ok) throw new NotRunningError(`execution ${id} is ${ex.state}: only a RUNNING execution can be paused`);
      if (ex.paused_at) return;
      await pauseExecution(c, { id, at: this.now(), actor });
      await notify(c, { channel: CHANNELS.changed, payload: id });
    });
  }

  /** Resumes execution `id`: its held runs are released and it is planned at once. Resuming one not paused changes nothing. */
  async resume(id: string): Promise<{ followUps: FollowUp[] }> {
    return inTx(this.pool, async (c) => {
      const ex = await lockExecution(c, id);
      if (!ex) throw new ExecutionNotFoundError(`no execution ${id}`);
      if (isExecutionEnded(ex.state)) throw new ExecutionEndedError(`execution ${id} has ended (${ex.state})`);
      if (!ex.paused_at) return { followUps: [] };
      const at = this.now();
      for (const type of await resumeExecution(c, { id, at })) await notify(c, { channel: CHANNELS.queued, payload: type });
      return { followUps: await this.planAfter(c, { ...ex, paused_at: null }, at) };
    });
  }

  /** Plans the execution in the decision's transaction, and tells its listeners it changed. */
  private async planAfter(c: Client, ex: ExecutionRow, at: Date): Promise<FollowUp[]> {
    const follow = await advance(c, ex, at);
    await notify(c, { channel: CHANNELS.changed, payload: ex.id });
    return follow;
  }
}

const isWaiting = (run: GatedRun) => run.state === 'PENDING' && run.reason === 'awaiting_approval' && run.approval !== null;

function notWaiting(taskKey: string, run: GatedRun): string {
  const status = (run.approval as { status?: string } | null)?.status;
  if (status && status !== 'pending') return `task ${taskKey} is not waiting for approval: its approval is ${status}`;
  return `task ${taskKey} is not waiting for approval (${run.state}${run.reason ? ` ${run.reason}` : ''})`;
}
