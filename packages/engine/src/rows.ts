// The rows the engine reads to plan, start and dispatch, typed with the
// state machine's states (packages/state-machine owns the vocabularies).
import type { ExecutionState, TaskRunState } from '@svc/state-machine';
import type { FlowDefinition } from '@svc/flow-schema';

/** An execution as planning and starting read it (sql/fragments.ts EXECUTION_COLUMNS). */
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
  /** Paused (an extension): planning starts nothing until it is resumed. Absent on a row just created. */
  paused_at?: Date | null;
}

/** A task run as planning reads it. */
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
  /** An approval gate once reached (an extension): the gate and its decision ({status, by, at, inputs, comment...}); else null. */
  approval?: Record<string, unknown> | null;
}

/** A task run of the planning read (sql/plan-read.ts). */
export interface RunRead extends TaskRunRow {
  /** An item of a fan-out: its index; null for any other run. */
  item_index: number | null;
  /** A fan-out's parent: its number of items once rendered; null otherwise. */
  fan_out: number | null;
  /** The run has a planning request (it ended and has not been planned since). */
  requested: boolean;
}

/** An ended execution, as the statements that end one return it. */
export interface EndedRow {
  id: string;
  parent_task_run_id: string | null;
  concurrency_key: string | null;
  has_flow_triggers: boolean | null;
}
