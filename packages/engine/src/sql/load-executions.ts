// The executions as the API shows them, read in one statement: each with
// its task runs and children as JSON arrays (systems/serialize.ts makes the
// API objects of the rows). The start statement returns the same columns
// (start-execution.ts), so a trigger's answer needs no second read.
import type { Queryable } from '@svc/db';
import type { ApiExecution } from '../types.js';

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
  'paused_at',
  'paused_by',
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
  'item_index',
  'item',
  'fan_out',
  'approval',
] as const;

/** A timestamp as the database hands it over: a Date (a column) or a text with an offset (inside JSON it built). */
export type Stamp = Date | string | null;

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
> & { git_sha: string | null; trigger_id: string | null; created_at: Stamp; started_at: Stamp; ended_at: Stamp; duration_ms: number | string | null } & {
  paused_at?: Stamp;
  paused_by?: string | null;
};

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
> & { item_index: number | null; item: unknown; fan_out: number | null; approval?: ApiTaskRun['approval'] } & {
  duration_ms: number | string | null;
  queued_at: Stamp;
  started_at: Stamp;
  ended_at: Stamp;
};

/** A child execution as the load statement builds it. */
export type ExecutionChildRow = { id: string; state: string; created_at: Stamp; namespace: string; flow_id: string | null };

// One statement: the executions, each with its task runs and children as JSON
// arrays. A GET answers with this; a trigger answers with what its start
// statement returned (apiExecution on the same columns).
const LOAD_SQL = `
SELECT ${EXECUTION_API_COLUMNS.map((c) => `e.${c}`).join(', ')},
  COALESCE((SELECT json_agg(json_build_object(${TASK_RUN_API_COLUMNS.map((c) => `'${c}', t.${c}`).join(', ')})
    ORDER BY t.created_at, t.item_index NULLS FIRST, t.attempt, t.id) FROM task_runs t WHERE t.execution_id = e.id), '[]') AS task_runs,
  COALESCE((SELECT json_agg(json_build_object('id', c.id, 'state', c.state, 'created_at', c.created_at, 'namespace', c.namespace, 'flow_id', c.flow_id)
    ORDER BY c.created_at) FROM executions c WHERE c.parent_execution_id = e.id), '[]') AS children
FROM executions e WHERE e.id = ANY($1)`;

/** An execution of the load statement, with its task runs and children. */
export type LoadedExecutionRow = ExecutionApiRow & { task_runs: TaskRunApiRow[]; children: ExecutionChildRow[] };

/** The executions `ids` (those that exist, in no particular order). */
export async function loadExecutionRows(db: Queryable, p: { ids: string[] }): Promise<LoadedExecutionRow[]> {
  return (await db.query<LoadedExecutionRow>({ name: 'svc-load-executions', text: LOAD_SQL, values: [p.ids] })).rows;
}
