// Schemas of bulkExecutions (operations/bulk.ts): cancel, rerun or restart
// the executions a filter selects, at most BULK_EXECUTIONS_LIMIT at once,
// with a dry run that counts them first.
import { Type } from '@sinclair/typebox';
import { component, DateTime, Nullable, StringEnum, StringMap } from './helpers.js';
import { EXECUTION_STATES, ExecutionState } from './resources.js';

const closed = { additionalProperties: false } as const;

export const BULK_ACTIONS = ['cancel', 'rerun', 'restart'] as const;
/** Most executions one bulk action acts on; a filter that matches more is refused (422). */
export const BULK_EXECUTIONS_LIMIT = 1_000;

export const BulkAction = component(
  'BulkAction',
  StringEnum(BULK_ACTIONS, { description: 'What to do with each execution: as cancelExecution, rerunExecution or restartExecution' }),
);

export const BulkExecutionFilter = component(
  'BulkExecutionFilter',
  Type.Object(
    {
      namespace: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'Selects the namespace and its children' })),
      flow_id: Type.Optional(Type.String({ minLength: 1, maxLength: 192, description: "A flow id, or `namespace/flow id` for one namespace's flow (as listExecutions' `flow`)" })),
      state: Type.Optional(Type.Array(ExecutionState, { minItems: 1, maxItems: EXECUTION_STATES.length, uniqueItems: true, description: 'Any of these states' })),
      labels: Type.Optional(StringMap({ maxProperties: 50, description: 'Every label must have this value' })),
      from: Type.Optional(DateTime({ description: 'Created at or after this instant' })),
      to: Type.Optional(DateTime({ description: 'Created before this instant' })),
    },
    { ...closed, description: 'At least one field must be set: an empty filter is refused (422), so that nothing acts on every execution by accident' },
  ),
);

export const BulkExecutionsRequest = component(
  'BulkExecutionsRequest',
  Type.Object(
    {
      action: BulkAction,
      filter: BulkExecutionFilter,
      dry_run: Type.Optional(Type.Boolean({ default: false, description: 'Only count what the filter matches and what the action would refuse; change nothing' })),
    },
    closed,
  ),
);

export const BulkIneligibleExecution = component(
  'BulkIneligibleExecution',
  Type.Object(
    {
      execution_id: Type.String(),
      namespace: Type.String(),
      flow_id: Nullable(Type.String()),
      state: ExecutionState,
      reason: Type.String({ description: 'The error code the single action would answer: `execution_ended` (cancel), `not_restartable` (rerun, restart)' }),
      message: Type.String(),
    },
    closed,
  ),
);

// Not a component: a bare {code, message} would claim the shape of every such pair in the clients.
const BulkExecutionError = Type.Object(
  { code: Type.String({ description: 'As the single action would answer it, e.g. `execution_ended`, `not_restartable`' }), message: Type.String() },
  { ...closed, description: 'Why the action was refused or failed on this execution' },
);

export const BulkExecutionOutcome = component(
  'BulkExecutionOutcome',
  Type.Object(
    {
      execution_id: Type.String(),
      ok: Type.Boolean(),
      state: Type.Optional(ExecutionState),
      new_execution_id: Type.Optional(Type.String({ description: 'rerun and restart: the execution created' })),
      error: Type.Optional(BulkExecutionError),
    },
    { ...closed, description: 'One execution: `ok` with its state after a cancel or the new execution of a rerun or restart, or the error that refused it' },
  ),
);

export const BulkExecutionsResult = component(
  'BulkExecutionsResult',
  Type.Object(
    {
      action: BulkAction,
      dry_run: Type.Boolean(),
      matched: Type.Integer({ minimum: 0, description: 'Executions the filter selects among those the caller may act on (operator on their namespace)' }),
      limit: Type.Integer({ description: `Most executions one bulk action acts on (${BULK_EXECUTIONS_LIMIT})` }),
      eligible: Type.Integer({ minimum: 0, description: 'Of the matched, those whose state allows the action' }),
      ineligible: Type.Optional(
        Type.Array(BulkIneligibleExecution, {
          description: `Dry run only: the matched executions whose state refuses the action, newest first (among the newest ${BULK_EXECUTIONS_LIMIT} matched)`,
        }),
      ),
      results: Type.Optional(Type.Array(BulkExecutionOutcome, { description: 'Not on a dry run: one per matched execution, newest first' })),
    },
    closed,
  ),
);

// Schemas of triggerFlowBatch (operations/flows.ts): many executions of one
// flow, each with its own inputs and labels, in one request and one transaction.

/** Most executions one batch trigger creates; more items are refused (422). */
export const TRIGGER_BATCH_LIMIT = 1_000;

export const TriggerFlowBatchItem = component(
  'TriggerFlowBatchItem',
  Type.Object(
    {
      inputs: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'Input values, validated against the flow inputs as triggerFlow does' })),
      labels: Type.Optional(StringMap({ description: 'Added to the labels of the flow' })),
    },
    { ...closed, description: 'One execution: what a triggerFlow body holds' },
  ),
);

export const TriggerFlowBatchRequest = component(
  'TriggerFlowBatchRequest',
  Type.Object(
    {
      items: Type.Array(TriggerFlowBatchItem, {
        minItems: 1,
        maxItems: TRIGGER_BATCH_LIMIT,
        description: `1 to ${TRIGGER_BATCH_LIMIT.toLocaleString('en')} executions to create, in order`,
      }),
      dry_run: Type.Optional(Type.Boolean({ default: false, description: 'Only check the flow and every item as a real batch would (the same 404, 409 and 422); create nothing' })),
    },
    closed,
  ),
);

export const TriggerFlowBatchExecution = component(
  'TriggerFlowBatchExecution',
  Type.Object(
    {
      id: Type.String(),
      state: ExecutionState,
    },
    { ...closed, description: "An execution the batch created: RUNNING, or QUEUED or SKIPPED when the flow's concurrency limit held it" },
  ),
);

export const TriggerFlowBatchResult = component(
  'TriggerFlowBatchResult',
  Type.Object(
    {
      executions: Type.Array(TriggerFlowBatchExecution, { description: 'One per item, in item order; empty on a dry run' }),
      dry_run: Type.Boolean(),
      count: Type.Integer({ minimum: 0, description: 'Items checked: the executions created, or that a batch would create' }),
    },
    closed,
  ),
);
