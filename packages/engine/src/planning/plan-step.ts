// Pure planning: what one step of an execution writes, from its row and its
// task runs, decided by the state machine's `plan` (packages/state-machine).
// No I/O, clock or randomness here: the time and the ids of new rows come in
// as arguments; systems/advance.ts reads the rows, loads variables when the
// flow's outputs need them, and writes the result in one statement.
import { plan, retryDelayMs, type Plan, type PlanRun, type PlanTask, type TaskRunState } from '@svc/state-machine';
import type { FlowDefinition } from '@svc/flow-schema';
import { compileCondition, ConditionError, evaluateCondition, isConditionExpression, parseTemplate, renderTemplateMap, TemplateError } from '@svc/flow-schema';
import { backoffPolicy, maxAttemptsOf } from './backoff.js';
import { gateOf, gateState, pendingApproval } from './approval.js';
import { hasForEach, planFanOuts } from './fan-out.js';
import type { Writes } from './writes.js';
import { startDateOf, triggerDateOf } from './trigger-date.js';
import type { FollowUp } from '../types.js';
import type { EndedRow, ExecutionRow, RunRead, TaskRunRow } from '../rows.js';

export { backoffPolicy } from './backoff.js';
export { Writes } from './writes.js';

export const planTasks = (def: FlowDefinition): PlanTask[] =>
  def.tasks.map((t) => ({
    id: t.id,
    dependsOn: t.depends_on ?? [],
    runIf: isConditionExpression(t.run_if) ? 'expression' : ((t.run_if ?? 'success') as 'success' | 'failure' | 'always'),
    // A fan-out retries its items, each on its own (planning/fan-out.ts), never the parent run.
    maxAttempts: hasForEach(t) ? 1 : maxAttemptsOf(def, t),
    ...(t.approval !== undefined ? { approval: true } : {}),
  }));

/** What must follow the end of an execution, after commit: its waiting parent, its concurrency queue, its flow triggers. */
export function followUpsOfEnd(row: EndedRow): FollowUp[] {
  const follow: FollowUp[] = [];
  if (row.parent_task_run_id) follow.push({ kind: 'child_ended', parentTaskRunId: row.parent_task_run_id, childExecutionId: row.id });
  if (row.concurrency_key) follow.push({ kind: 'start_queued', concurrencyKey: row.concurrency_key });
  if (row.has_flow_triggers) follow.push({ kind: 'flow_triggers', executionId: row.id });
  return follow;
}

/** An execution's duration when it ends at `now`, from its start (or its creation, if it never started). */
export const durationAt = (ex: ExecutionRow, now: Date) => Math.max(0, now.getTime() - (ex.started_at ?? ex.created_at).getTime());

/**
 * The end of a SUCCESS execution whose flow declares outputs, left for the
 * caller to finish (finishEnd): rendering them may need the execution's
 * variables, which only the caller can read.
 */
export interface PendingEnd {
  ex: ExecutionRow;
  reason: string;
  error: string;
  /** The task runs as the step leaves them (the ones it skips or cancels in their new state). */
  final: RunRead[];
  /** Whether the outputs' templates read `vars` (else they render without them). */
  readsVars: boolean;
}

/**
 * Plans one execution from its task runs (every attempt, latest first per
 * task) into `w`, at `now`; `newId` names the retries it creates. Returns the
 * execution's end when its outputs are still to be rendered (finishEnd).
 */
export function planStep(ex: ExecutionRow, runs: RunRead[], w: Writes, now: Date, newId: () => string): PendingEnd | null {
  for (const r of runs) if (r.requested) w.clear.push(r.id);
  if (ex.state !== 'RUNNING' && ex.state !== 'CANCELLING') return null;
  // The latest run of each task (a fan-out's parent), and every run of the items of fan-outs.
  const latest = new Map<string, RunRead>();
  let items: Map<string, RunRead[]> | undefined;
  for (const r of runs) {
    if (r.item_index === null || r.item_index === undefined) {
      if (!latest.has(r.task_key)) latest.set(r.task_key, r);
      continue;
    }
    items ??= new Map();
    let list = items.get(r.task_key);
    if (!list) items.set(r.task_key, (list = []));
    list.push(r);
  }
  const def = ex.definition;
  const stopping = ex.state === 'CANCELLING' ? 'cancel' : null;
  const paused = !!ex.paused_at && stopping === null;
  // Running fan-outs first: a parent whose items all ended ends here, and `plan` sees it ended.
  const fan = planFanOuts(def, latest, items ?? new Map(), stopping, w, newId, paused);
  if (fan.ended.size) for (const [k, e] of fan.ended) latest.set(k, { ...latest.get(k)!, state: e.state, error: e.error, outputs: e.outputs as RunRead['outputs'] });
  const p: Plan = plan({
    tasks: planTasks(def),
    maxParallel: fan.maxParallel,
    runs: [...latest.values()].map((r): PlanRun => {
      const gate = gateState(r.approval?.status as string | undefined);
      return { taskKey: r.task_key, attempt: r.attempt, state: r.state, error: r.error, reason: r.reason, ...(gate ? { gate } : {}) };
    }),
    stopping,
    condition: (taskKey) => decideCondition(ex, taskKey, latest),
    paused,
  });
  const byKey = (k: string) => latest.get(k)!;
  for (const k of p.queue) w.queue.push(byKey(k).id);
  for (const k of p.await ?? []) w.await.push({ id: byKey(k).id, approval: pendingApproval(gateOf(def, k)!, now) });
  for (const { taskKey } of p.retry) {
    const prev = byKey(taskKey);
    // The backoff counts from the failed attempt's end, not from this pass.
    w.retry.push({ id: newId(), prev: prev.id, delay: retryDelayMs(backoffPolicy(def, taskKey), prev.attempt) });
  }
  const ended = new Map<string, TaskRunState>();
  for (const [list, to] of [
    [p.skip, 'SKIPPED'],
    [p.cancel, 'CANCELLED'],
    [p.fail ?? [], 'FAILED'],
  ] as const) {
    for (const s of list) {
      const r = byKey(s.taskKey);
      const error = 'error' in s ? s.error : 'conditionFalse' in s ? `run_if ${conditionText(def, s.taskKey)} is false` : '';
      w.end.push({ id: r.id, from_state: r.state, state: to, reason: s.reason, error });
      ended.set(s.taskKey, to);
    }
  }
  if (p.queue.length || p.retry.length || ended.size || p.await?.length) w.changed.add(ex.id);
  if (!p.end) return null;
  const { state } = p.end;
  const error = p.end.error ?? '';
  const reason = p.end.failedTask ? `task ${p.end.failedTask} ${state === 'FAILED' ? 'failed' : 'ended'}` : '';
  if (state === 'SUCCESS' && def.outputs) {
    const final = [...latest.values()].map((r) => (ended.has(r.task_key) ? { ...r, state: ended.get(r.task_key)! } : r));
    try {
      // Variables are read only when the outputs use them (rare, and the caller holds the execution's lock).
      const readsVars = Object.values(def.outputs).some((src) => parseTemplate(src).roots.includes('vars'));
      return { ex, reason, error, final, readsVars };
    } catch (err) {
      if (!(err instanceof TemplateError)) throw err;
      w.execEnd.push({
        id: ex.id,
        from_state: ex.state,
        state: 'FAILED',
        reason: 'template_error',
        error: `flow outputs: ${err.message}`,
        outputs: null,
        duration: durationAt(ex, now),
      });
      w.changed.add(ex.id);
      return null;
    }
  }
  w.execEnd.push({ id: ex.id, from_state: ex.state, state, reason, error, outputs: null, duration: durationAt(ex, now) });
  w.changed.add(ex.id);
  return null;
}

/** The `{{ … }}` of a task's expression run_if, as written (trimmed). */
const conditionText = (def: FlowDefinition, taskKey: string) => (def.tasks.find((t) => t.id === taskKey)?.run_if ?? '').trim();

/**
 * Decides the expression run_if of `taskKey` over the execution's scope and
 * its tasks' latest runs (the planner asks once its dependencies succeeded).
 * A condition that no longer compiles (it did at save) is an error.
 */
function decideCondition(ex: ExecutionRow, taskKey: string, latest: Map<string, RunRead>): { ok: true; value: boolean } | { ok: false; error: string } {
  const source = ex.definition.tasks.find((t) => t.id === taskKey)?.run_if;
  if (!isConditionExpression(source)) return { ok: false, error: `run_if of ${taskKey} is not an expression` };
  try {
    return evaluateCondition(compileCondition(source), scopeOf(ex, [...latest.values()]));
  } catch (err) {
    if (!(err instanceof ConditionError)) throw err;
    return { ok: false, error: `run_if ${source.trim()}: ${err.message}` };
  }
}

/** Renders a pending end's outputs with `vars` into `w`: SUCCESS with them, or FAILED template_error when they do not resolve. */
export function finishEnd(e: PendingEnd, vars: Record<string, string>, w: Writes, now: Date): void {
  const { ex } = e;
  let state: 'SUCCESS' | 'FAILED' = 'SUCCESS';
  let { reason, error } = e;
  let outputs: Record<string, unknown> | null = null;
  try {
    outputs = renderTemplateMap(ex.definition.outputs!, { ...scopeOf(ex, e.final), vars }).values;
  } catch (err) {
    if (!(err instanceof TemplateError)) throw err;
    state = 'FAILED';
    reason = 'template_error';
    error = `flow outputs: ${err.message}`;
  }
  w.execEnd.push({ id: ex.id, from_state: ex.state, state, reason, error, outputs, duration: durationAt(ex, now) });
  w.changed.add(ex.id);
}

/** The template scope of an execution: inputs, labels, ids, trigger data and the tasks' outputs and states. */
export function scopeOf(ex: ExecutionRow, runs: Pick<TaskRunRow, 'task_key' | 'outputs' | 'state' | 'approval'>[]) {
  const payload = ex.trigger_payload ?? {};
  const date = triggerDateOf(payload);
  return {
    inputs: ex.inputs,
    labels: ex.labels,
    vars: {} as Record<string, string>,
    execution: { id: ex.id, namespace: ex.namespace, flow_id: ex.flow_id, start_date: startDateOf(ex.started_at, ex.created_at) },
    flow: { id: ex.flow_id ?? '', namespace: ex.namespace },
    // A task with an approval gate also gives its decision: tasks.<id>.approval.by, .status, .inputs, .comment...
    tasks: Object.fromEntries(runs.map((r) => [r.task_key, { outputs: r.outputs ?? {}, state: r.state, ...(r.approval ? { approval: r.approval } : {}) }])),
    trigger: {
      body: payload.body,
      headers: (payload.headers as Record<string, string> | undefined) ?? {},
      outputs: (payload.outputs as Record<string, unknown> | undefined) ?? {},
      ...(date ? { date } : {}),
    },
  };
}
