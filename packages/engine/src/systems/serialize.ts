// Executions as the API shows them: every required field of the spec's
// Execution and TaskRun objects, with their types.
import type { Queryable } from '@svc/db';
import type { ApiExecution } from '../resources.js';

/** The executions columns the API object is made of. */
export const EXECUTION_API_COLUMNS = [
  'id',
  'state',
  'reason',
  'error',
  'namespace',
  'flow_id',
  'flow_revision_id',
  'git_sha',
  'snapshot_id',
  'snapshot_version',
  'inputs',
  'labels',
  'outputs',
  'parent_execution_id',
  'restart_of_id',
  'chain_depth',
  'created_at',
  'created_by',
  'started_at',
  'ended_at',
  'duration_ms',
  'secret_keys_used',
  'trigger_type',
  'trigger_id',
  'trigger_payload',
] as const;
/** The task_runs columns of the API's TaskRun object. */
export const TASK_RUN_API_COLUMNS = [
  'id',
  'task_key',
  'task_type',
  'executor_type',
  'pool',
  'state',
  'reason',
  'error',
  'attempt',
  'child_execution_id',
  'reused_from_id',
  'exit_code',
  'duration_ms',
  'queued_at',
  'started_at',
  'ended_at',
  'outputs',
  'progress',
] as const;

/** A timestamp as the database hands it over: a Date (a column) or a text with an offset (inside JSON it built). */
type Stamp = Date | string | null;

type ApiTaskRun = ApiExecution['task_runs'][number];

/** An executions row of EXECUTION_API_COLUMNS as pg returns it (or as the start statement's JSON holds it). */
export type ExecutionApiRow = Pick<
  ApiExecution,
  | 'id'
  | 'state'
  | 'reason'
  | 'error'
  | 'namespace'
  | 'flow_id'
  | 'flow_revision_id'
  | 'snapshot_id'
  | 'snapshot_version'
  | 'inputs'
  | 'labels'
  | 'outputs'
  | 'parent_execution_id'
  | 'restart_of_id'
  | 'chain_depth'
  | 'created_by'
  | 'secret_keys_used'
  | 'trigger_type'
  | 'trigger_payload'
> & { git_sha: string | null; trigger_id: string | null; created_at: Stamp; started_at: Stamp; ended_at: Stamp; duration_ms: number | string | null };

/** A task run of TASK_RUN_API_COLUMNS, as JSON built by the database (timestamps as text). */
export type TaskRunApiRow = Pick<
  ApiTaskRun,
  | 'id'
  | 'task_key'
  | 'task_type'
  | 'executor_type'
  | 'pool'
  | 'state'
  | 'reason'
  | 'error'
  | 'attempt'
  | 'child_execution_id'
  | 'reused_from_id'
  | 'exit_code'
  | 'outputs'
  | 'progress'
> & { duration_ms: number | string | null; queued_at: Stamp; started_at: Stamp; ended_at: Stamp };

/** A child execution as the load statement builds it. */
export type ExecutionChildRow = { id: string; state: string; created_at: Stamp; namespace: string; flow_id: string | null };

/** A timestamp as the API writes it: from a Date (a column) or a text with an offset (inside JSON built by the database). */
const ts = (v: Stamp | undefined) => (v === null || v === undefined ? null : (v instanceof Date ? v : new Date(v)).toISOString());
const num = (v: number | string | null | undefined) => (v === null || v === undefined ? null : Number(v));

// One statement: the executions, each with its task runs and children as JSON
// arrays. A GET answers with this; a trigger answers with what its start
// statement returned (apiExecution on the same columns).
const LOAD_SQL = `
SELECT ${EXECUTION_API_COLUMNS.map((c) => `e.${c}`).join(', ')},
  COALESCE((SELECT json_agg(json_build_object(${TASK_RUN_API_COLUMNS.map((c) => `'${c}', t.${c}`).join(', ')})
    ORDER BY t.created_at, t.attempt, t.id) FROM task_runs t WHERE t.execution_id = e.id), '[]') AS task_runs,
  COALESCE((SELECT json_agg(json_build_object('id', c.id, 'state', c.state, 'created_at', c.created_at, 'namespace', c.namespace, 'flow_id', c.flow_id)
    ORDER BY c.created_at) FROM executions c WHERE c.parent_execution_id = e.id), '[]') AS children
FROM executions e WHERE e.id = ANY($1)`;

export async function loadExecutions(db: Queryable, ids: string[]): Promise<ApiExecution[]> {
  if (!ids.length) return [];
  const ex = await db.query<ExecutionApiRow & { task_runs: TaskRunApiRow[]; children: ExecutionChildRow[] }>({ name: 'svc-load-executions', text: LOAD_SQL, values: [ids] });
  const byId = new Map<string, ApiExecution>();
  for (const e of ex.rows) byId.set(e.id, apiExecution(e, e.task_runs, e.children));
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
    task_runs: taskRuns.map((r) => ({
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
    })),
  };
}
