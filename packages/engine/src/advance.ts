// Applying the planner to the database. `advanceMany` runs in the caller's
// transaction with the execution rows locked: it reads the task runs of all
// these executions in one statement, asks the pure planner what follows for
// each, and writes all of it in one more statement (queued, retried, skipped
// and cancelled task runs, ended executions, their history rows, the NOTIFY
// hints, and the planning requests of the ended runs it saw, deleted). Work
// that touches other executions (the parent of a subflow, the next queued
// execution of a flow with a concurrency limit, flow triggers) is returned as
// follow-ups, run after commit in their own transactions, so locks are only
// ever taken on the executions being planned.
import { plan, retryDelayMs, type BackoffPolicy, type ExecutionState, type Plan, type PlanRun, type PlanTask, type TaskRunState } from '@svc/state-machine';
import type { FlowDefinition, RetryPolicy } from '@svc/flow-schema';
import { parseTemplate, renderTemplateMap, TemplateError } from '@svc/flow-schema';
import { parseDuration } from '@svc/timing';
import { CHANNELS, history, notify, type Client } from './db.js';
import { DEFAULT_TASK_TIMEOUT_MS, INSTANCE_ONLINE_MS, RETRY_DEFAULTS } from './constants.js';
import { claimedRun, type ClaimedRun, type ClaimOptions } from './claim.js';
import { newId } from '@svc/db';
import { executionVars } from './vars.js';
import { APPLY_PLAN_SQL } from './sql/apply-plan.js';
import { END_EXECUTION_SQL } from './sql/end-execution.js';
import { recordFollowUps, type FollowUp } from './outbox.js';

export interface ExecutionRow {
  id: string;
  state: ExecutionState;
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
  state: TaskRunState;
  reason: string;
  error: string;
  pool: string;
  executor_type: string;
  outputs: Record<string, unknown> | null;
  child_execution_id: string | null;
}

export type { FollowUp } from './outbox.js';

export { EXECUTION_COLUMNS, servedSql } from './sql/fragments.js';
import { EXECUTION_COLUMNS } from './sql/fragments.js';

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


/** The oldest heartbeat of an instance still online at `now`. */
export const onlineSince = (now: Date) => new Date(now.getTime() - INSTANCE_ONLINE_MS);

/**
 * SQL for the oldest heartbeat of an instance still online: `onlineSince` of
 * a test's clock given as the parameter `param`, else of the database's clock
 * (which wrote the heartbeats).
 */
export const onlineSinceSql = (param: string) => `COALESCE(${param}::timestamptz, now() - ${INSTANCE_ONLINE_MS} * interval '1 millisecond')`;

/** The task's backoff: the task's `retry` over the flow's, over the defaults (its attempts are planTasks' `maxAttempts`). */
export function backoffPolicy(def: FlowDefinition, taskKey: string): BackoffPolicy {
  const task = def.tasks.find((t) => t.id === taskKey);
  const p: RetryPolicy = { ...(def.retry ?? {}), ...(task?.retry ?? {}) };
  return {
    backoff: p.backoff ?? RETRY_DEFAULTS.backoff,
    initialMs: p.initial ? parseDuration(p.initial) : RETRY_DEFAULTS.initialMs,
    maxMs: p.max ? parseDuration(p.max) : RETRY_DEFAULTS.maxMs,
  };
}

export const planTasks = (def: FlowDefinition): PlanTask[] =>
  def.tasks.map((t) => ({ id: t.id, dependsOn: t.depends_on ?? [], runIf: t.run_if ?? 'success', maxAttempts: t.retry?.max_attempts ?? def.retry?.max_attempts ?? RETRY_DEFAULTS.maxAttempts }));

/** What planning reads of each task run (`t`), with whether it has a planning request. */
const PLAN_READ_COLUMNS = `t.id, t.execution_id, t.task_key, t.attempt, t.state, t.reason, t.error, t.pool, t.executor_type, t.outputs, t.child_execution_id,
  EXISTS (SELECT 1 FROM plan_requests p WHERE p.task_run_id = t.id) AS requested`;

/** The planning read of executions (their task runs, latest attempt first per task). */
export const planRead = (executionIds: string[]): { name: string; text: string; values: unknown[] } => ({
  name: 'svc-plan-read',
  text: `SELECT ${PLAN_READ_COLUMNS} FROM task_runs t WHERE t.execution_id = ANY($1) ORDER BY t.execution_id, t.task_key, t.attempt DESC`,
  values: [executionIds],
});

export interface RunRead extends TaskRunRow {
  /** The run has a planning request (it ended and has not been planned since). */
  requested: boolean;
}

/** Everything one planning step writes, for any number of executions, gathered for one statement. */
class Writes {
  readonly queue: string[] = [];
  readonly retry: { id: string; prev: string; delay: number }[] = [];
  readonly end: { id: string; from_state: string; state: string; reason: string }[] = [];
  readonly execEnd: { id: string; from_state: string; state: string; reason: string; error: string; outputs: Record<string, unknown> | null; duration: number }[] = [];
  readonly clear: string[] = [];
  readonly changed = new Set<string>();
}


/** An ended execution, as the statements that end one return it. */
interface EndedRow {
  id: string;
  parent_task_run_id: string | null;
  concurrency_key: string | null;
  has_flow_triggers: boolean | null;
}

/** What must follow the end of an execution, after commit: its waiting parent, its concurrency queue, its flow triggers. */
function followUpsOfEnd(row: EndedRow): FollowUp[] {
  const follow: FollowUp[] = [];
  if (row.parent_task_run_id) follow.push({ kind: 'child_ended', parentTaskRunId: row.parent_task_run_id, childExecutionId: row.id });
  if (row.concurrency_key) follow.push({ kind: 'start_queued', concurrencyKey: row.concurrency_key });
  if (row.has_flow_triggers) follow.push({ kind: 'flow_triggers', executionId: row.id });
  return follow;
}

/** An execution's duration when it ends at `now`, from its start (or its creation, if it never started). */
const durationAt = (ex: ExecutionRow, now: Date) => Math.max(0, now.getTime() - (ex.started_at ?? ex.created_at).getTime());


/**
 * Plans and applies one step for each of these executions, locked by the
 * caller's transaction. Executions that are not running (ended, or queued by
 * a concurrency limit) only have their planning requests deleted. Returns the
 * follow-ups to run after commit.
 */
export interface AdvanceOptions {
  /** The object store, to read `namespace.yaml` variables when flow outputs use `vars`; without it they see the database's variables only. */
  storage?: { getBuffer(k: string): Promise<Buffer> };
}

/** Plans `executions` (locked by the caller) in one read and one write. */
export async function advanceMany(
  c: Client,
  executions: ExecutionRow[],
  now: Date,
  opts: AdvanceOptions = {},
  /**
   * `quiet`: the NOTIFY that wakes dispatchers for newly QUEUED runs is left
   * to the caller, who claims in this transaction; `queued` receives those
   * runs (id and executor type), so it can send it for the ones it left.
   * With `handoff`, up to `handoff.limit` runs this step queues for that
   * claimer's pools and executor type start at once, claimed by it, when no
   * other run of theirs waits (APPLY_PLAN_SQL); they go to `started`, not
   * to `queued`.
   */
  queuedOut?: { quiet: boolean; queued: { id: string; executor_type: string }[]; handoff?: ClaimOptions; started?: ClaimedRun[] },
  /** The task runs of `executions`, read by the caller after their locks (more rows are ignored); else read here. */
  runs?: RunRead[],
): Promise<FollowUp[]> {
  if (!executions.length) return [];
  const all =
    runs ??
    (await c.query<RunRead>(planRead(executions.map((e) => e.id)))).rows;
  const byExecution = new Map<string, RunRead[]>();
  for (const r of all) {
    let list = byExecution.get(r.execution_id);
    if (!list) byExecution.set(r.execution_id, (list = []));
    list.push(r);
  }
  const w = new Writes();
  for (const ex of executions) await planOne(c, ex, byExecution.get(ex.id) ?? [], w, now, opts);
  const byId = new Map(all.map((r) => [r.id, r]));
  const handoff = queuedOut?.handoff;
  const direct = handoff
    ? w.queue.filter((id) => handoff.pools.includes(byId.get(id)!.pool) && byId.get(id)!.executor_type === handoff.executorType).slice(0, Math.max(0, handoff.limit))
    : [];
  if (!w.queue.length && !w.retry.length && !w.end.length && !w.execEnd.length && !w.clear.length) return [];
  const res = await c.query<EndedRow & { kind: string; run: Record<string, unknown> | null }>({
    name: 'svc-plan-apply',
    text: APPLY_PLAN_SQL,
    values: [
      now, onlineSince(now), JSON.stringify(w.queue), JSON.stringify(w.retry), JSON.stringify(w.end), JSON.stringify(w.clear),
      JSON.stringify(w.execEnd), JSON.stringify([...w.changed]), queuedOut?.quiet ?? false,
      JSON.stringify(direct), handoff?.instanceId ?? '', JSON.stringify(handoff?.pools ?? []), handoff?.executorType ?? '', handoff?.now ?? null, DEFAULT_TASK_TIMEOUT_MS,
    ],
  });
  if (queuedOut) {
    const exById = new Map(executions.map((e) => [e.id, e]));
    const started = new Set<string>();
    for (const row of res.rows) {
      if (row.kind !== 'started' || !row.run) continue;
      const run = row.run as unknown as ClaimedRun;
      started.add(run.id);
      (queuedOut.started ??= []).push(claimedRun(run, exById.get(run.execution_id) as ClaimedRun['execution']));
    }
    for (const id of w.queue) if (!started.has(id)) queuedOut.queued.push({ id, executor_type: byId.get(id)!.executor_type });
    for (const r of w.retry) queuedOut.queued.push({ id: r.id, executor_type: byId.get(r.prev)!.executor_type });
  }
  // Recorded in this transaction: a crash after the commit cannot lose them (outbox.ts).
  return recordFollowUps(c, res.rows.filter((row) => row.kind === 'ended').flatMap(followUpsOfEnd));
}

/** Plans one execution from its task runs (every attempt, latest first per task) into `w`. */
async function planOne(c: Client, ex: ExecutionRow, runs: RunRead[], w: Writes, now: Date, opts: AdvanceOptions): Promise<void> {
  for (const r of runs) if (r.requested) w.clear.push(r.id);
  if (ex.state !== 'RUNNING' && ex.state !== 'CANCELLING') return;
  const latest = new Map<string, RunRead>();
  for (const r of runs) if (!latest.has(r.task_key)) latest.set(r.task_key, r);
  const def = ex.definition;
  const p: Plan = plan({
    tasks: planTasks(def),
    maxParallel: def.max_parallel ?? 0,
    runs: [...latest.values()].map((r): PlanRun => ({ taskKey: r.task_key, attempt: r.attempt, state: r.state, error: r.error })),
    stopping: ex.state === 'CANCELLING' ? 'cancel' : null,
  });
  const byKey = (k: string) => latest.get(k)!;
  for (const k of p.queue) w.queue.push(byKey(k).id);
  for (const { taskKey } of p.retry) {
    const prev = byKey(taskKey);
    // The backoff counts from the failed attempt's end, not from this pass.
    w.retry.push({ id: newId(), prev: prev.id, delay: retryDelayMs(backoffPolicy(def, taskKey), prev.attempt) });
  }
  const ended = new Map<string, TaskRunState>();
  for (const [list, to] of [[p.skip, 'SKIPPED'], [p.cancel, 'CANCELLED']] as const) {
    for (const s of list) {
      const r = byKey(s.taskKey);
      w.end.push({ id: r.id, from_state: r.state, state: to, reason: s.reason });
      ended.set(s.taskKey, to);
    }
  }
  if (p.queue.length || p.retry.length || ended.size) w.changed.add(ex.id);
  if (!p.end) return;
  let { state } = p.end;
  let error = p.end.error ?? '';
  let reason = p.end.failedTask ? `task ${p.end.failedTask} ${state === 'FAILED' ? 'failed' : 'ended'}` : '';
  let outputs: Record<string, unknown> | null = null;
  if (state === 'SUCCESS' && def.outputs) {
    try {
      const final = [...latest.values()].map((r) => (ended.has(r.task_key) ? { ...r, state: ended.get(r.task_key)! } : r));
      // Variables are read only when the outputs use them (rare, and this runs under the execution's lock).
      const readsVars = Object.values(def.outputs).some((src) => parseTemplate(src).roots.includes('vars'));
      const vars = readsVars ? await varsOf(c, ex, opts) : {};
      outputs = renderTemplateMap(def.outputs, { ...scopeOf(ex, final), vars }).values;
    } catch (err) {
      if (!(err instanceof TemplateError)) throw err;
      state = 'FAILED';
      reason = 'template_error';
      error = `flow outputs: ${err.message}`;
    }
  }
  w.execEnd.push({ id: ex.id, from_state: ex.state, state, reason, error, outputs, duration: durationAt(ex, now) });
  w.changed.add(ex.id);
}

async function varsOf(c: Client, ex: ExecutionRow, opts: AdvanceOptions): Promise<Record<string, string>> {
  const snapshot = (await c.query<{ snapshot_id: string }>(`SELECT snapshot_id FROM executions WHERE id = $1`, [ex.id])).rows[0]!.snapshot_id;
  return executionVars(c, opts.storage, { namespace: ex.namespace, snapshot_id: snapshot, definition: ex.definition });
}

/** Plans and applies one step for a locked execution. Returns the follow-ups to run after commit. */
export async function advance(c: Client, ex: ExecutionRow, now: Date, opts: AdvanceOptions = {}): Promise<FollowUp[]> {
  return advanceMany(c, [ex], now, opts);
}

/** The template scope of an execution: inputs, labels, ids, trigger data and the tasks' outputs and states. */
export function scopeOf(ex: ExecutionRow, runs: Pick<TaskRunRow, 'task_key' | 'outputs' | 'state'>[]) {
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

/** Writes the end of an execution (outside the planner: cancel of a queued execution, flow timeout) and returns what must follow it. */
export async function endExecution(
  c: Client,
  ex: ExecutionRow,
  end: { state: string; reason: string; error: string; outputs?: Record<string, unknown> | null },
  now: Date,
): Promise<FollowUp[]> {
  const r = await c.query<EndedRow>(
    END_EXECUTION_SQL,
    [ex.id, end.state, end.reason, end.error, end.outputs === undefined || end.outputs === null ? null : JSON.stringify(end.outputs), now, durationAt(ex, now)],
  );
  await history(c, [{ executionId: ex.id, from: ex.state, to: end.state, reason: end.reason }], now);
  await notify(c, CHANNELS.changed, ex.id);
  return recordFollowUps(c, r.rows[0] ? followUpsOfEnd(r.rows[0]) : []);
}
