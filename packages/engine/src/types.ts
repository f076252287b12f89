// The engine's own vocabulary, shared by its statements, planning and
// systems: types only, at the bottom of the engine's imports (a system or a
// statement that needs one imports it from here, never from the file of the
// system that produces it).
import type { FlowDefinition } from '@svc/flow-schema';
import type { MasterKey } from '@svc/config';
import type { SealedTaskRunValues } from '@svc/secrets';
import type { components } from '@svc/api-spec';
import type { ExecutionRow } from './rows.js';

/** The API's Execution object (getExecution), as the engine returns it. */
export type ApiExecution = components['schemas']['Execution'];

/** The work an engine change causes after its commit (systems/outbox.ts). `id` is its outbox row, once written. */
export type FollowUp =
  | { kind: 'child_ended'; parentTaskRunId: string; childExecutionId: string; id?: string }
  | { kind: 'start_queued'; concurrencyKey: string; id?: string }
  | { kind: 'stop_children'; executionId: string; id?: string }
  | { kind: 'flow_triggers'; executionId: string; id?: string };

/** How a task run ended, as its runner (or the engine) reports it. */
export interface TaskCompletion {
  state: 'SUCCESS' | 'FAILED' | 'TIMED_OUT' | 'CANCELLED';
  reason: string;
  error: string;
  exitCode: number | null;
  outputs?: Record<string, unknown>;
  metrics?: { name: string; value: number; tags?: Record<string, string> }[];
}

/**
 * How a completion reported by a task is masked: the master keys that open
 * the secret values recorded on its run. Every completion whose text comes
 * from a task (a runner, an executor) must pass it; completions whose text the
 * engine wrote itself (timeouts, lost runs, shutdown) need not.
 */
export interface Masking {
  masterKeys: readonly MasterKey[];
}

/** A task run as a claim (or a plan's handoff) returns it. */
export interface ClaimedRun {
  id: string;
  execution_id: string;
  task_key: string;
  task_type: string;
  executor_type: string;
  pool: string;
  attempt: number;
  /** An item of a fan-out (for_each): its 0-based index and its value; absent for any other run. */
  item_index?: number;
  item?: unknown;
  /** Milliseconds it waited in QUEUED, from queued (or its backoff's end) to this claim; absent when the plan that queued it started it. */
  waited_ms?: number;
  /** The run's execution as it was at the claim (its definition, inputs, labels and ids do not change). */
  execution?: ExecutionRow & { snapshot_id: string };
}

export interface ClaimResult {
  runs: ClaimedRun[];
  /** The earliest future time at which a QUEUED run of these pools and type becomes claimable (retry backoff), or null. */
  nextAt: Date | null;
  /** The claim's time (the database's clock unless `now` was given): what `nextAt` is to be compared with. */
  at: Date;
}

export interface ClaimOptions {
  instanceId: string;
  pools: string[];
  executorType: string;
  limit: number;
  /** A test's clock; default the database's. */
  now?: Date;
}

/** A completion to end with others (systems/completion.ts endAndPlan). */
export interface PendingCompletion {
  taskRunId: string;
  done: TaskCompletion;
  /** A completion reported by a task: masked against its run's secrets. */
  masking?: Masking;
  /**
   * Claims one QUEUED run for the slot this run frees, in the same
   * transaction (after planning, so the next task of its own execution can
   * be the one): the dispatcher launches it without a claim of its own.
   */
  claim?: Omit<ClaimOptions, 'limit' | 'now'>;
  /**
   * The run's execution as the caller knows it (a claimed run carries its
   * definition): its id when it is planned inline (INLINE_PLAN_MAX_TASKS
   * tasks at most), null when it is not. When every completion of a batch
   * says, the planning read goes out with the ends in the first round trip.
   */
  planRead?: string | null;
}

/** What endAndPlan did for one completion. */
export interface EndResult {
  /** The run's execution when this call ended the run, else null (it was not RUNNING). */
  executionId: string | null;
  /** Whether the execution was planned in the same transaction (else a pass plans its request). */
  planned: boolean;
  /** What `claim` claimed for the freed slot (at most one run). */
  claimed: ClaimedRun[];
}

/**
 * An audit event of a start (a row of audit_events, as @svc/identity's
 * recordAudit writes them), written by the statement that inserts the
 * execution: the trigger path keeps one round trip (bench/RESULTS.md).
 */
export interface StartAudit {
  id: string;
  action: string;
  actorId: string | null;
  actorType: string;
  ip: string;
  requestId: string;
  details: Record<string, unknown>;
}

export interface NewExecution {
  /** The id to give it (a trigger whose input templates read `execution.id` chooses it first); default a new one. */
  id?: string;
  namespace: string;
  flowId: string | null;
  flowRevisionId: string | null;
  definition: FlowDefinition;
  snapshotId: string;
  snapshotVersion: number | null;
  inputs: Record<string, unknown>;
  labels: Record<string, string>;
  triggerType: string;
  triggerId?: string | null;
  triggerPayload?: Record<string, unknown>;
  createdBy: string;
  parentExecutionId?: string | null;
  parentTaskRunId?: string | null;
  restartOfId?: string | null;
  chainDepth?: number;
  /** The git commit of the sync that produced the flow's revision. Default none. */
  gitSha?: string | null;
  /** The audit event of who started it, written with the execution (its target: the execution). Default none. */
  audit?: StartAudit;
}

export interface TriggerRequest {
  namespace: string;
  flowId: string;
  inputs?: Record<string, unknown>;
  /**
   * A trigger's input templates (webhook, schedule, flow trigger) and what
   * they read of the trigger: rendered here into `inputs`, with the flow, the
   * execution (its id chosen here; `start_date` the time of rendering, as the
   * execution does not exist yet), `trigger.date` from a schedule's
   * `triggerPayload` (fire_time, timezone) and, when a template names it,
   * `vars` (the flow's variables over its namespace's, as tasks see them). A
   * template that does not resolve throws TemplateError.
   */
  inputTemplates?: { templates: Record<string, string>; trigger?: Record<string, unknown> };
  /** The execution's id (set by withInputs when its templates read the execution). */
  id?: string;
  labels?: Record<string, string>;
  triggerType: string;
  triggerId?: string;
  triggerPayload?: Record<string, unknown>;
  createdBy: string;
  parentExecutionId?: string;
  parentTaskRunId?: string;
  chainDepth?: number;
  /** Who started it, for the audit log (see NewExecution.audit). */
  audit?: StartAudit;
}

/**
 * Many executions of one flow, in one transaction (triggerFlowBatch): each
 * item with its own inputs and labels, in order. `audit(i)`: the audit event
 * of item i's execution (its own id each).
 */
export interface TriggerBatchRequest {
  namespace: string;
  flowId: string;
  items: readonly { inputs?: Record<string, unknown>; labels?: Record<string, string> }[];
  triggerType: string;
  createdBy: string;
  audit?: (index: number) => StartAudit;
  /** Check the flow and every item only; create nothing (the answer is empty). */
  dryRun?: boolean;
}

/** One execution a batch created, in item order: QUEUED or SKIPPED when the flow's concurrency limit held it. */
export interface BatchCreated {
  id: string;
  /** RUNNING, QUEUED or SKIPPED (or the state a start that ended at once left). */
  state: string;
}

/**
 * A created execution. `execution`: its API object as the start statement
 * returned it, when that one statement created and started it (no
 * concurrency limit, nothing left to plan): the trigger's response needs no
 * second read then.
 */
export interface Created {
  id: string;
  followUps: FollowUp[];
  execution?: ApiExecution;
}

/** One log line a runner sends. */
export interface IncomingLogLine {
  n: number;
  ts: string;
  stream: string;
  text: string;
}

/** What a log line is stored with of its task run. */
export interface TaskRunIdentity {
  execution_id: string;
  task_key: string;
  attempt: number;
}

/** A batch of one task run's lines, in `n` order. */
export interface AppendBatch {
  taskRunId: string;
  who: Pick<TaskRunIdentity, 'task_key' | 'attempt'>;
  lines: IncomingLogLine[];
}

/** A runner event (runnerPostEvents): what the runner is doing, shown on the task run. */
export interface RunnerEvent {
  type: 'started' | 'progress' | 'heartbeat';
  message?: string;
  /** 0 to 100. */
  percent?: number;
}

/** `task_runs.spec.secrets` of a task run that resolved secrets (systems/secret-masking.ts). */
export interface RecordedSecrets {
  namespace: string;
  keys: string[];
  /** The values, sealed by @svc/secrets (sealTaskRunValues); absent when no master key is configured. */
  sealed?: SealedTaskRunValues;
}
