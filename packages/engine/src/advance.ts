// Applying the planner to the database. `advance` runs in the caller's
// transaction with the execution row locked: it asks the pure planner what
// follows from the task runs' states and writes exactly that (queued, skipped,
// cancelled task runs; the end of the execution), with a history row per
// change. Work that touches other executions (the parent of a subflow, the
// next queued execution of a flow with a concurrency limit) is returned as
// follow-ups, run after commit in their own transactions, so locks are only
// ever taken one execution at a time.
import { plan, type PlanRun, type PlanTask } from '@svc/state-machine';
import type { FlowDefinition } from '@svc/flow-schema';
import { renderTemplateMap, TemplateError } from '@svc/flow-schema';
import { CHANNELS, history, notify, type Client, type HistoryRow } from './db.js';
import { INSTANCE_ONLINE_MS } from './constants.js';

export interface ExecutionRow {
  id: string;
  state: string;
  namespace: string;
  flow_id: string | null;
  definition: FlowDefinition;
  inputs: Record<string, unknown>;
  labels: Record<string, string>;
  trigger_payload: Record<string, unknown>;
  parent_execution_id: string | null;
  parent_task_run_id: string | null;
  started_at: Date | null;
  created_at: Date;
  concurrency_key: string | null;
  chain_depth: number;
}

export interface TaskRunRow {
  id: string;
  execution_id: string;
  task_key: string;
  attempt: number;
  state: string;
  reason: string;
  error: string;
  pool: string;
  executor_type: string;
  outputs: Record<string, unknown> | null;
  child_execution_id: string | null;
}

export type FollowUp =
  | { kind: 'child_ended'; parentTaskRunId: string; childExecutionId: string }
  | { kind: 'start_queued'; concurrencyKey: string }
  | { kind: 'stop_children'; executionId: string }
  | { kind: 'flow_triggers'; executionId: string };

export const EXECUTION_COLUMNS = `id, state, namespace, flow_id, definition, inputs, labels, trigger_payload, parent_execution_id, parent_task_run_id,
  started_at, created_at, concurrency_key, chain_depth`;

export async function lockExecution(c: Client, id: string): Promise<ExecutionRow | null> {
  const r = await c.query<ExecutionRow>(`SELECT ${EXECUTION_COLUMNS} FROM executions WHERE id = $1 FOR UPDATE`, [id]);
  return r.rows[0] ?? null;
}

/** The latest attempt of each task of an execution. */
export async function latestRuns(c: Client, executionId: string): Promise<TaskRunRow[]> {
  const r = await c.query<TaskRunRow>(
    `SELECT DISTINCT ON (task_key) id, execution_id, task_key, attempt, state, reason, error, pool, executor_type, outputs, child_execution_id
     FROM task_runs WHERE execution_id = $1 ORDER BY task_key, attempt DESC`,
    [executionId],
  );
  return r.rows;
}

/** Whether an online dispatcher serves a pool with an executor type. */
async function served(c: Client, pool: string, executorType: string, now: Date): Promise<boolean> {
  const r = await c.query(
    `SELECT 1 FROM instances WHERE kind = 'dispatcher' AND stopped_at IS NULL AND last_heartbeat_at > $3
       AND $1 = ANY(pools) AND $2 = ANY(executors) LIMIT 1`,
    [pool, executorType, new Date(now.getTime() - INSTANCE_ONLINE_MS)],
  );
  return (r.rowCount ?? 0) > 0;
}

/** Moves task runs to QUEUED (with `no_instance_for_pool` when nobody serves them) and wakes dispatchers. */
export async function queueRuns(c: Client, runs: Pick<TaskRunRow, 'id' | 'execution_id' | 'state' | 'pool' | 'executor_type'>[], now: Date, notBefore?: Date): Promise<void> {
  if (!runs.length) return;
  const servedCache = new Map<string, boolean>();
  const rows: HistoryRow[] = [];
  for (const r of runs) {
    const k = `${r.pool}\0${r.executor_type}`;
    if (!servedCache.has(k)) servedCache.set(k, await served(c, r.pool, r.executor_type, now));
    const reason = servedCache.get(k) ? '' : 'no_instance_for_pool';
    await c.query(`UPDATE task_runs SET state = 'QUEUED', reason = $2, queued_at = $3, not_before = $4, updated_at = $3 WHERE id = $1`, [r.id, reason, now, notBefore ?? null]);
    rows.push({ executionId: r.execution_id, taskRunId: r.id, from: r.state, to: 'QUEUED', reason });
  }
  await history(c, rows, now);
  for (const type of new Set(runs.map((r) => r.executor_type))) await notify(c, CHANNELS.queued, type);
}

/** Ends task runs that never ran (SKIPPED or CANCELLED). */
async function endUnstarted(c: Client, runs: TaskRunRow[], to: 'SKIPPED' | 'CANCELLED', reasons: Map<string, string>, now: Date): Promise<void> {
  if (!runs.length) return;
  for (const r of runs) {
    await c.query(`UPDATE task_runs SET state = $2, reason = $3, ended_at = $4, updated_at = $4 WHERE id = $1`, [r.id, to, reasons.get(r.task_key) ?? '', now]);
  }
  await history(c, runs.map((r) => ({ executionId: r.execution_id, taskRunId: r.id, from: r.state, to, reason: reasons.get(r.task_key) ?? '' })), now);
}

const planTasks = (def: FlowDefinition): PlanTask[] => def.tasks.map((t) => ({ id: t.id, dependsOn: t.depends_on ?? [], runIf: t.run_if ?? 'success' }));

/**
 * Plans and applies one step for a locked, not ended execution. Returns the
 * follow-ups to run after commit.
 */
export async function advance(c: Client, ex: ExecutionRow, now: Date): Promise<FollowUp[]> {
  if (ex.state !== 'RUNNING' && ex.state !== 'CANCELLING') return [];
  const runs = await latestRuns(c, ex.id);
  const byKey = new Map(runs.map((r) => [r.task_key, r]));
  const p = plan({
    tasks: planTasks(ex.definition),
    maxParallel: ex.definition.max_parallel ?? 0,
    runs: runs.map((r): PlanRun => ({ taskKey: r.task_key, attempt: r.attempt, state: r.state as PlanRun['state'], error: r.error })),
    stopping: ex.state === 'CANCELLING' ? 'cancel' : null,
  });
  await queueRuns(c, p.queue.map((k) => byKey.get(k)!).filter(Boolean), now);
  await endUnstarted(c, p.skip.map((s) => byKey.get(s.taskKey)!), 'SKIPPED', new Map(p.skip.map((s) => [s.taskKey, s.reason])), now);
  await endUnstarted(c, p.cancel.map((s) => byKey.get(s.taskKey)!), 'CANCELLED', new Map(p.cancel.map((s) => [s.taskKey, s.reason])), now);
  if (p.queue.length || p.skip.length || p.cancel.length) await notify(c, CHANNELS.changed, ex.id);
  if (!p.end) return [];
  let { state } = p.end;
  let error = p.end.error ?? '';
  let reason = p.end.failedTask ? `task ${p.end.failedTask} ${state === 'FAILED' ? 'failed' : 'ended'}` : '';
  let outputs: Record<string, unknown> | null = null;
  if (state === 'SUCCESS' && ex.definition.outputs) {
    try {
      const fresh = await latestRuns(c, ex.id);
      outputs = renderTemplateMap(ex.definition.outputs, scopeOf(ex, fresh)).values;
    } catch (err) {
      if (!(err instanceof TemplateError)) throw err;
      state = 'FAILED';
      reason = 'template_error';
      error = `flow outputs: ${err.message}`;
    }
  }
  return endExecution(c, ex, { state, reason, error, outputs }, now);
}

/** The template scope of an execution: inputs, labels, ids, trigger data and the tasks' outputs and states. */
export function scopeOf(ex: ExecutionRow, runs: TaskRunRow[]) {
  const payload = ex.trigger_payload ?? {};
  return {
    inputs: ex.inputs,
    labels: ex.labels,
    vars: {} as Record<string, string>,
    execution: { id: ex.id, namespace: ex.namespace, flow_id: ex.flow_id },
    flow: { id: ex.flow_id ?? '', namespace: ex.namespace },
    tasks: Object.fromEntries(runs.map((r) => [r.task_key, { outputs: r.outputs ?? {}, state: r.state }])),
    trigger: {
      body: payload.body,
      headers: (payload.headers as Record<string, string> | undefined) ?? {},
      outputs: (payload.outputs as Record<string, unknown> | undefined) ?? {},
    },
  };
}

/** Writes the end of an execution and returns what must follow it. */
export async function endExecution(
  c: Client,
  ex: ExecutionRow,
  end: { state: string; reason: string; error: string; outputs?: Record<string, unknown> | null },
  now: Date,
): Promise<FollowUp[]> {
  const started = ex.started_at ?? ex.created_at;
  await c.query(
    `UPDATE executions SET state = $2, reason = $3, error = $4, outputs = $5, ended_at = $6, duration_ms = $7, concurrency_slot = NULL, updated_at = $6, version = version + 1
     WHERE id = $1`,
    [ex.id, end.state, end.reason, end.error, end.outputs === undefined || end.outputs === null ? null : JSON.stringify(end.outputs), now, Math.max(0, now.getTime() - started.getTime())],
  );
  await history(c, [{ executionId: ex.id, from: ex.state, to: end.state, reason: end.reason }], now);
  await notify(c, CHANNELS.changed, ex.id);
  const follow: FollowUp[] = [];
  if (ex.parent_task_run_id) follow.push({ kind: 'child_ended', parentTaskRunId: ex.parent_task_run_id, childExecutionId: ex.id });
  if (ex.concurrency_key) follow.push({ kind: 'start_queued', concurrencyKey: ex.concurrency_key });
  if (ex.flow_id) follow.push({ kind: 'flow_triggers', executionId: ex.id });
  return follow;
}
