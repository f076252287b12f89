// Executions as the API shows them: every required field of the spec's
// Execution and TaskRun objects, with their types.
import type { Queryable } from '@svc/db';
import type { ApiExecution } from '../types.js';
import { latestByItem } from '../planning/fan-out.js';
import { loadExecutionRows, type ExecutionApiRow, type ExecutionChildRow, type Stamp, type TaskRunApiRow } from '../sql/load-executions.js';

/** A timestamp as the API writes it: from a Date (a column) or a text with an offset (inside JSON built by the database). */
const ts = (v: Stamp | undefined) => (v === null || v === undefined ? null : (v instanceof Date ? v : new Date(v)).toISOString());
const num = (v: number | string | null | undefined) => (v === null || v === undefined ? null : Number(v));

export async function loadExecutions(db: Queryable, ids: string[]): Promise<ApiExecution[]> {
  if (!ids.length) return [];
  const rows = await loadExecutionRows(db, { ids });
  const byId = new Map<string, ApiExecution>();
  for (const e of rows) byId.set(e.id, apiExecution(e, e.task_runs, e.children));
  return ids.map((id) => byId.get(id)).filter((x): x is ApiExecution => x !== undefined);
}

/**
 * The API's Execution object from an executions row (EXECUTION_API_COLUMNS),
 * its task runs (TASK_RUN_API_COLUMNS, in creation order) and its children.
 */
export function apiExecution(e: ExecutionApiRow, taskRuns: TaskRunApiRow[], children: ExecutionChildRow[]): ApiExecution {
  return {
    id: e.id,
    state: e.state,
    reason: e.reason,
    error: e.error,
    namespace: e.namespace,
    flow_id: e.flow_id,
    flow_revision_id: e.flow_revision_id,
    ...(e.git_sha ? { git_sha: e.git_sha } : {}),
    snapshot_id: e.snapshot_id,
    snapshot_version: e.snapshot_version,
    inputs: e.inputs,
    labels: e.labels,
    outputs: e.outputs,
    parent_execution_id: e.parent_execution_id,
    restart_of_id: e.restart_of_id,
    // Replay (an extension): the execution this one replays (its trigger payload's replay_of), else null.
    replay_of: e.trigger_type === 'replay' && typeof e.trigger_payload?.replay_of === 'string' ? e.trigger_payload.replay_of : null,
    chain_depth: e.chain_depth,
    children: children.map((c) => ({ id: c.id, state: c.state, created_at: ts(c.created_at)!, namespace: c.namespace, flow_id: c.flow_id })),
    created_at: ts(e.created_at)!,
    created_by: e.created_by,
    started_at: ts(e.started_at),
    ended_at: ts(e.ended_at),
    duration_ms: num(e.duration_ms),
    secret_keys_used: e.secret_keys_used,
    trigger_type: e.trigger_type,
    ...(e.trigger_id ? { trigger_id: e.trigger_id } : {}),
    trigger_payload: e.trigger_payload,
    // Pause (an extension): only a running execution is paused.
    paused: !!e.paused_at && (e.state === 'RUNNING' || e.state === 'CANCELLING'),
    paused_at: ts(e.paused_at),
    paused_by: e.paused_by ?? null,
    task_runs: taskRuns.map((r) => ({
      ...fanOutFields(r, taskRuns),
      id: r.id,
      task_key: r.task_key,
      task_type: r.task_type,
      executor_type: r.executor_type,
      pool: r.pool,
      state: r.state,
      reason: r.reason,
      error: r.error,
      attempt: r.attempt,
      child_execution_id: r.child_execution_id,
      reused_from_id: r.reused_from_id,
      exit_code: r.exit_code,
      duration_ms: num(r.duration_ms),
      queued_at: ts(r.queued_at),
      started_at: ts(r.started_at),
      ended_at: ts(r.ended_at),
      outputs: r.outputs,
      // The latest runner event (an additional property): {type, at, message?, percent?}, or null.
      progress: r.progress ?? null,
      // An approval gate once reached (an extension): the gate and its decision, else null.
      approval: r.approval ?? null,
    })),
  };
}

const ITEM_STATES = ['pending', 'queued', 'running', 'success', 'failed', 'timed_out', 'cancelled', 'skipped'] as const;

/**
 * The fan-out fields of task run `r` (additional properties): an item's
 * index and value; a parent's item count and its items by the state of their
 * latest attempt. None on other runs.
 */
function fanOutFields(r: TaskRunApiRow, all: TaskRunApiRow[]) {
  if (r.item_index !== null && r.item_index !== undefined) return { item_index: r.item_index, item: r.item };
  if (r.fan_out === null || r.fan_out === undefined) return {};
  const latest = latestByItem(all.filter((x) => x.task_key === r.task_key));
  const counts = Object.fromEntries(ITEM_STATES.map((s) => [s, 0])) as Record<(typeof ITEM_STATES)[number], number>;
  for (const x of latest.values()) counts[x.state.toLowerCase() as (typeof ITEM_STATES)[number]]++;
  return { fan_out: r.fan_out, item_counts: { total: r.fan_out, ...counts } };
}
