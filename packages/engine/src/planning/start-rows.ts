// Pure planning of a start: the task runs an execution starts with, in the
// states the state machine's `plan` gives them at start. The caller reads
// what a restart reuses and the snapshot's namespace.yaml (systems/start.ts).
import { plan, type TaskRunState } from '@svc/state-machine';
import type { FlowDefinition } from '@svc/flow-schema';
import { resolveExecutor, taskTimeoutMs, type NamespaceFile } from './executor.js';
import { planTasks } from './plan-step.js';

/** A SUCCESS task run of the original that a restart copies. */
export interface ReusedRun {
  id: string;
  outputs: Record<string, unknown> | null;
  exit_code: number | null;
}

/** One task run of a start, as the start statement's JSON parameter holds it. */
export interface StartRow {
  id: string;
  task_key: string;
  task_type: string;
  executor_type: string;
  pool: string;
  state: TaskRunState;
  reason: string;
  reused_from_id: string | null;
  outputs: Record<string, unknown> | null;
  exit_code: number | null;
  spec: { timeout_ms: number } | null;
}

/**
 * The task runs an execution starts with. `planned`: in the states the
 * planner gives them at start (QUEUED, PENDING, SKIPPED; SUCCESS when a
 * restart reuses them), so nothing is left to plan. Otherwise (the start
 * itself would end the execution: every task reused or skipped) they are
 * PENDING or reused, and the caller plans the first step with `advance` in
 * the same transaction; so too when a condition (an expression run_if) is to
 * be decided at start, which needs the execution's scope. `newId` names the rows.
 */
export function startRowsOf(
  def: FlowDefinition,
  reuse: ReadonlyMap<string, ReusedRun>,
  nsFile: NamespaceFile,
  defaultExecutor: string,
  newId: () => string,
): { rows: StartRow[]; planned: boolean } {
  // A condition (expression run_if) decided at start needs the execution's scope: then the caller plans the first step.
  let conditionAsked = false;
  const p = plan({
    tasks: planTasks(def),
    maxParallel: def.max_parallel ?? 0,
    runs: def.tasks.map((t) => ({ taskKey: t.id, attempt: 1, state: reuse.has(t.id) ? 'SUCCESS' : 'PENDING' })),
    condition: () => ((conditionAsked = true), { ok: true, value: true }),
  });
  const planned = !p.end && !p.retry.length && !p.cancel.length && !conditionAsked;
  const queued = new Set(planned ? p.queue : []);
  const skipped = new Set(planned ? p.skip.map((s) => s.taskKey) : []);
  const rows: StartRow[] = def.tasks.map((t) => {
    const { type, pool } = resolveExecutor(t, def, nsFile, defaultExecutor);
    const reused = reuse.get(t.id);
    return {
      id: newId(),
      task_key: t.id,
      task_type: t.type,
      executor_type: type,
      pool,
      state: reused ? 'SUCCESS' : queued.has(t.id) ? 'QUEUED' : skipped.has(t.id) ? 'SKIPPED' : 'PENDING',
      reason: reused ? 'reused' : skipped.has(t.id) ? 'condition_not_met' : '',
      reused_from_id: reused?.id ?? null,
      outputs: reused ? (reused.outputs ?? null) : null,
      exit_code: reused ? reused.exit_code : null,
      spec: reused ? null : { timeout_ms: taskTimeoutMs(t) },
    };
  });
  return { rows, planned };
}
