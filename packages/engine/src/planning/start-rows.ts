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

/** A fan-out of the original that a restart resumes: each item's value, and its SUCCESS run to copy (the others run again). */
export interface ReusedFanOut {
  items: { item: unknown; reused?: ReusedRun }[];
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
  /** An item of a fan-out: its index and value (a restart's). */
  item_index?: number;
  item?: unknown;
  /** A fan-out's parent resumed by a restart (RUNNING): its number of items. */
  fan_out?: number;
}

/**
 * The task runs an execution starts with. `planned`: in the states the
 * planner gives them at start (QUEUED, PENDING, SKIPPED; SUCCESS when a
 * restart reuses them), so nothing is left to plan. Otherwise (the start
 * itself would end the execution: every task reused or skipped) they are
 * PENDING or reused, and the caller plans the first step with `advance` in
 * the same transaction; so too when a condition (an expression run_if) is to
 * be decided at start, which needs the execution's scope, and when a task
 * with an approval gate waits from the start. `newId` names the rows.
 */
export function startRowsOf(
  def: FlowDefinition,
  reuse: ReadonlyMap<string, ReusedRun>,
  nsFile: NamespaceFile,
  defaultExecutor: string,
  newId: () => string,
  reuseItems: ReadonlyMap<string, ReusedFanOut> = new Map(),
): { rows: StartRow[]; planned: boolean } {
  // A restart resumes a fan-out (its SUCCESS items copied, the others to run) when its
  // dependencies are all copied too: otherwise its list may render differently, and it runs again whole.
  const resumed = new Map([...reuseItems].filter(([k]) => def.tasks.find((t) => t.id === k)?.depends_on?.every((d) => reuse.has(d)) ?? true));
  // A condition (expression run_if) decided at start needs the execution's scope: then the caller plans the first step.
  let conditionAsked = false;
  const p = plan({
    tasks: planTasks(def),
    maxParallel: def.max_parallel ?? 0,
    runs: def.tasks.map((t) => ({ taskKey: t.id, attempt: 1, state: reuse.has(t.id) ? 'SUCCESS' : resumed.has(t.id) ? 'RUNNING' : 'PENDING' })),
    condition: () => ((conditionAsked = true), { ok: true, value: true }),
  });
  // A resumed fan-out's items are queued by the first planning step (planning/fan-out.ts), and so is
  // the wait of a task with an approval gate and no dependency (its record needs the step's time).
  const planned = !p.end && !p.retry.length && !p.cancel.length && !conditionAsked && !resumed.size && !p.await?.length;
  const queued = new Set(planned ? p.queue : []);
  const skipped = new Set(planned ? p.skip.map((s) => s.taskKey) : []);
  const rows: StartRow[] = def.tasks.flatMap((t) => {
    const { type, pool } = resolveExecutor(t, def, nsFile, defaultExecutor);
    const reused = reuse.get(t.id);
    const fan = resumed.get(t.id);
    if (fan) {
      const base = { task_key: t.id, task_type: t.type, executor_type: type, pool, spec: { timeout_ms: taskTimeoutMs(t) } };
      const parent: StartRow = { ...base, id: newId(), state: 'RUNNING', reason: '', reused_from_id: null, outputs: null, exit_code: null, fan_out: fan.items.length };
      const items = fan.items.map((x, i): StartRow => ({
        ...base,
        id: newId(),
        state: x.reused ? 'SUCCESS' : 'PENDING',
        reason: x.reused ? 'reused' : '',
        reused_from_id: x.reused?.id ?? null,
        outputs: x.reused?.outputs ?? null,
        exit_code: x.reused?.exit_code ?? null,
        spec: x.reused ? null : base.spec,
        item_index: i,
        item: x.item ?? null,
      }));
      return [parent, ...items];
    }
    return [
      {
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
      },
    ];
  });
  return { rows, planned };
}
