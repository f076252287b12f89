// Subflow tasks: a task run that starts a child execution. With `wait`, the
// child's end completes the task run (its `child_ended` follow-up,
// followups.ts); without, the task run succeeds once the child exists.
import { mayReach, reachRefusal } from '@svc/namespaces';
import { isExecutionEnded, isExecutionState } from '@svc/state-machine';
import { MAX_CHAIN_DEPTH } from '../constants.js';
import type pg from 'pg';
import type { FollowUpRunner } from '../peers.js';
import { IO_RETRY_FOR_MS, withRetry } from '../retry.js';
import type { EngineResources, Started } from '../resources.js';
import { executionNamespace, executionState } from '../sql/read-executions.js';
import { childOf, childOfEarlierAttempt, linkChild } from '../sql/subflows.js';
import type { ClaimedRun, TaskCompletion, TriggerRequest } from '../types.js';

/** A subflow task as prepared: the flow (`namespace/flow_id`), its rendered inputs, whether the run waits for the child. */
export interface SubflowTask {
  flow: string;
  inputs: Record<string, unknown>;
  wait: boolean;
}

/**
 * Starts the child execution of a subflow task run. With `wait`, null is
 * returned (the child's end completes the run); without, the run's SUCCESS.
 * A child that cannot start, nesting past MAX_CHAIN_DEPTH, or a child of a
 * namespace the parent's may not reach (namespace_not_allowed: @svc/namespaces
 * reach.ts) fails it; in the last case no child starts.
 * `trigger` is the engine's (its follow-ups run).
 */
export class Subflows {
  constructor(
    private readonly o: {
      pool: pg.Pool;
      log: EngineResources['log'];
      /** Aborted when the engine stops: the retried reads and writes give up. */
      stopping: AbortSignal;
      /** The engine's trigger (its follow-ups run). */
      trigger: (req: TriggerRequest) => Promise<Started>;
      followUps: Pick<FollowUpRunner, 'follow'>;
    },
  ) {}

  async start(run: ClaimedRun, f: SubflowTask, parent: { id: string; chain_depth: number; namespace?: string }): Promise<TaskCompletion | null> {
    const { pool, log, trigger } = this.o;
    if (parent.chain_depth + 1 > MAX_CHAIN_DEPTH) {
      return { state: 'FAILED', reason: 'chain_depth_exceeded', error: `subflow nesting would exceed ${MAX_CHAIN_DEPTH} levels (a flow that calls itself?)`, exitCode: null };
    }
    const [ns, flowId] = f.flow.split('/');
    // Checked at save too; checked again here because the flow may have been saved before the rule, or the allowance removed since.
    const caller = parent.namespace ?? (await executionNamespace(pool, { id: parent.id }));
    if (caller === undefined || !(await mayReach(pool, caller, ns))) {
      return { state: 'FAILED', reason: 'namespace_not_allowed', error: reachRefusal('subflow', caller ?? '(unknown)', ns), exitCode: null };
    }
    // Once the child exists, no error may end this run: its retry would start
    // the child a second time. So the reads and writes after the start ride
    // out a database outage (retried, like a run's end), and what still fails
    // is left to the child's own end (its `child_ended` follow-up).
    const io = { what: `subflow run ${run.id}`, forMs: IO_RETRY_FOR_MS, signal: this.o.stopping };
    let child: { id: string };
    // A run that does not wait is done once its child exists; only its end
    // can be lost (a dispatcher killed between the two). Its retry then
    // takes over the child an earlier attempt started instead of starting
    // a second one. (A waiting run is never lost once its child exists:
    // the child row names it, see watchdog.ts.)
    const earlier = f.wait || run.attempt <= 1 ? undefined : await childOfEarlierAttempt(pool, { executionId: run.execution_id, taskKey: run.task_key, taskRunId: run.id });
    if (earlier) {
      child = earlier;
    } else {
      try {
        child = await trigger({
          namespace: ns,
          flowId: flowId,
          inputs: f.inputs,
          triggerType: 'subflow',
          triggerPayload: { parent_execution_id: parent.id, parent_task_run_id: run.id },
          createdBy: `execution:${parent.id}`,
          parentExecutionId: parent.id,
          parentTaskRunId: f.wait ? run.id : undefined,
          chainDepth: parent.chain_depth + 1,
        });
      } catch (err) {
        // A start whose commit went through while its answer was lost (a connection cut then) left the child behind.
        const left = await withRetry(() => childOf(pool, { parentId: parent.id, taskRunId: run.id }), io).catch(() => undefined);
        if (!left) return { state: 'FAILED', reason: 'subflow_error', error: `cannot start ${f.flow}: ${(err as Error).message}`, exitCode: null };
        child = left;
      }
    }
    await withRetry(() => linkChild(pool, { taskRunId: run.id, childId: child.id }), io).catch((err) =>
      log.warn('cannot link a subflow run to its child', { err, task_run_id: run.id, child_execution_id: child.id }),
    );
    if (!f.wait) return { state: 'SUCCESS', reason: '', error: '', exitCode: null, outputs: { execution_id: child.id } };
    // The child may have ended before this run was linked to it: end it here then (idempotent with the follow-up).
    try {
      const st = await withRetry(() => executionState(pool, { id: child.id }), io);
      if (st !== undefined && isExecutionState(st) && isExecutionEnded(st)) {
        await this.o.followUps.follow([{ kind: 'child_ended', parentTaskRunId: run.id, childExecutionId: child.id }]);
      }
    } catch (err) {
      log.warn('cannot check a subflow child; its end completes the run', { err, task_run_id: run.id, child_execution_id: child.id });
    }
    return null;
  }
}
