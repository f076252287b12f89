// Applying the planner to the database. `advanceMany` runs in the caller's
// transaction with the execution rows locked: it reads the task runs of all
// these executions in one statement, asks the pure planning step
// (planning/plan-step.ts, over the state machine's `plan`) what follows for
// each, and writes all of it in one more statement (queued, retried, skipped
// and cancelled task runs, ended executions, their history rows, the NOTIFY
// hints, and the planning requests of the ended runs it saw, deleted). Work
// that touches other executions (the parent of a subflow, the next queued
// execution of a flow with a concurrency limit, flow triggers) is returned as
// follow-ups, run after commit in their own transactions, so locks are only
// ever taken on the executions being planned.
import { newId } from '@svc/db';
import { continueTrace, tracingOn } from '@svc/logging';
import { CHANNELS } from '../channels.js';
import type { Client } from '../db.js';
import { applyPlan } from '../sql/apply-plan.js';
import { claimedRun } from '../sql/claim-task-runs.js';
import { endExecution as endExecutionRow } from '../sql/end-execution.js';
import { insertHistory, notify } from '../sql/history.js';
import { lockExecution as lockExecutionRow } from '../sql/lock-executions.js';
import { latestRuns as latestRunRows, planReadQuery, storedTraceparents } from '../sql/plan-read.js';
import { executionSnapshot } from '../sql/read-executions.js';
import { durationAt, finishEnd, followUpsOfEnd, planStep, Writes } from '../planning/plan-step.js';
import { recordFollowUps } from './outbox.js';
import { executionVars } from './vars.js';
import type { ExecutionRow, RunRead, TaskRunRow } from '../rows.js';
import type { ClaimedRun, ClaimOptions, FollowUp } from '../types.js';

export type { ExecutionRow, RunRead, TaskRunRow } from '../rows.js';
export type { FollowUp } from '../types.js';
export { EXECUTION_COLUMNS, onlineSince, onlineSinceSql, servedSql } from '../sql/fragments.js';
export { planReadQuery } from '../sql/plan-read.js';
export { backoffPolicy, planTasks, scopeOf } from '../planning/plan-step.js';

export async function lockExecution(c: Client, id: string): Promise<ExecutionRow | null> {
  return (await lockExecutionRow(c, { id })) ?? null;
}

/** The latest attempt of each task of an execution. */
export async function latestRuns(c: Client, executionId: string): Promise<TaskRunRow[]> {
  return latestRunRows(c, { executionId });
}

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
  const all = runs ?? (await c.query<RunRead>(planReadQuery({ executionIds: executions.map((e) => e.id) }))).rows;
  const byExecution = new Map<string, RunRead[]>();
  for (const r of all) {
    let list = byExecution.get(r.execution_id);
    if (!list) byExecution.set(r.execution_id, (list = []));
    list.push(r);
  }
  const w = new Writes();
  // With tracing on (docs/operating/tracing.md), the step of each execution whose trace is stored is a span `plan execution` of that trace.
  const traces = tracingOn() ? await storedTraceparents(c, { executionIds: executions.map((e) => e.id) }) : undefined;
  for (const ex of executions) {
    const step = async () => {
      const pending = planStep(ex, byExecution.get(ex.id) ?? [], w, now, newId);
      if (pending) finishEnd(pending, pending.readsVars ? await varsOf(c, ex, opts) : {}, w, now);
    };
    if (traces?.has(ex.id)) await continueTrace(traces.get(ex.id), 'plan execution', { 'svc.execution_id': ex.id, 'svc.namespace': ex.namespace }, step);
    else await step();
  }
  const byId = new Map(all.map((r) => [r.id, r]));
  const handoff = queuedOut?.handoff;
  const direct = handoff
    ? w.queue.filter((id) => handoff.pools.includes(byId.get(id)!.pool) && byId.get(id)!.executor_type === handoff.executorType).slice(0, Math.max(0, handoff.limit))
    : [];
  if (!w.queue.length && !w.retry.length && !w.end.length && !w.execEnd.length && !w.fanEnd.length && !w.clear.length && !w.await.length) return [];
  const rows = await applyPlan(c, { now, w, quiet: queuedOut?.quiet ?? false, direct, handoff });
  if (queuedOut) {
    const exById = new Map(executions.map((e) => [e.id, e]));
    const started = new Set<string>();
    for (const row of rows) {
      if (row.kind !== 'started' || !row.run) continue;
      const run = row.run as unknown as ClaimedRun;
      started.add(run.id);
      (queuedOut.started ??= []).push(claimedRun(run, exById.get(run.execution_id) as ClaimedRun['execution']));
    }
    for (const id of w.queue) if (!started.has(id)) queuedOut.queued.push({ id, executor_type: byId.get(id)!.executor_type });
    for (const r of w.retry) queuedOut.queued.push({ id: r.id, executor_type: byId.get(r.prev)!.executor_type });
  }
  // Recorded in this transaction: a crash after the commit cannot lose them (outbox.ts).
  return recordFollowUps(c, rows.filter((row) => row.kind === 'ended').flatMap(followUpsOfEnd));
}

async function varsOf(c: Client, ex: ExecutionRow, opts: AdvanceOptions): Promise<Record<string, string>> {
  const snapshot = await executionSnapshot(c, { id: ex.id });
  return executionVars(c, opts.storage, { namespace: ex.namespace, snapshot_id: snapshot, definition: ex.definition });
}

/** Plans and applies one step for a locked execution. Returns the follow-ups to run after commit. */
export async function advance(c: Client, ex: ExecutionRow, now: Date, opts: AdvanceOptions = {}): Promise<FollowUp[]> {
  return advanceMany(c, [ex], now, opts);
}

/** Writes the end of an execution (outside the planner: cancel of a queued execution, flow timeout) and returns what must follow it. */
export async function endExecution(
  c: Client,
  ex: ExecutionRow,
  end: { state: string; reason: string; error: string; outputs?: Record<string, unknown> | null },
  now: Date,
): Promise<FollowUp[]> {
  const row = await endExecutionRow(c, {
    id: ex.id,
    state: end.state,
    reason: end.reason,
    error: end.error,
    outputs: end.outputs ?? null,
    at: now,
    durationMs: durationAt(ex, now),
  });
  await insertHistory(c, { rows: [{ executionId: ex.id, from: ex.state, to: end.state, reason: end.reason }], at: now });
  await notify(c, { channel: CHANNELS.changed, payload: ex.id });
  return recordFollowUps(c, row ? followUpsOfEnd(row) : []);
}
