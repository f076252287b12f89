// The tools of the assistant and of the MCP server: each one is an operation
// of the catalogue, run through the invoker with the caller's principal, so a
// tool can do exactly what its caller could do over the API. `read` tools run
// at once; `action` tools change something: the assistant only proposes them
// (they run on confirmAIAction), MCP clients call them directly.
import { argText } from '@svc/ai';
import type { InvokeInput } from './invoke.js';

export type ToolKind = 'read' | 'action';

export interface ToolDef {
  name: string;
  description: string;
  kind: ToolKind;
  operationId: string;
  /** JSON Schema of the arguments. */
  parameters: { type: 'object'; properties: Record<string, Record<string, unknown>>; required?: string[]; additionalProperties?: boolean };
  toInput(args: Record<string, unknown>): InvokeInput;
  /** One line shown on the confirm button of a proposed action. */
  summary?(args: Record<string, unknown>): string;
  /** MCP tool annotations (hints for clients, as the MCP specification defines them). */
  annotations: ToolAnnotations;
}

/**
 * `readOnlyHint`: the tool changes nothing. `destructiveHint` (meaningful
 * when not read-only): it may end or overwrite something (a running
 * execution, a file), not only add. `idempotentHint`: calling it again with
 * the same arguments has no further effect. `openWorldHint`: false, every
 * tool works on this service only.
 */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

const READ: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
/** Adds something new each call (an execution, an insight). */
const ADDS: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
/** Ends or overwrites something; again with the same arguments, nothing more happens. */
const OVERWRITES: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };

/** Log lines a tool returns at most (bounded logs). */
export const MAX_LOG_LINES = 200;
/** Characters of a tool result given back to the model at most. */
export const MAX_RESULT_CHARS = 20_000;

const str = (description: string) => ({ type: 'string', description });
const s = (v: unknown) => (v === undefined || v === null ? undefined : argText(v));
const executionArg = { execution_id: str('Execution id') };

export const TOOLS: ToolDef[] = [
  {
    name: 'list_flows',
    description: 'List flows (namespace, id, description), optionally of one namespace and its children or matching a text.',
    kind: 'read',
    annotations: READ,
    operationId: 'listFlows',
    parameters: { type: 'object', properties: { namespace: str('Namespace'), q: str('Text found, in any case, in the flow id, its description or its namespace') } },
    toInput: (a) => ({ query: { namespace: s(a.namespace), q: s(a.q), limit: 100 } }),
  },
  {
    name: 'get_flow',
    description: 'A flow with its YAML source and parsed definition.',
    kind: 'read',
    annotations: READ,
    operationId: 'getFlow',
    parameters: { type: 'object', properties: { namespace: str('Namespace'), flow_id: str('Flow id') }, required: ['namespace', 'flow_id'] },
    toInput: (a) => ({ params: { namespace: s(a.namespace), flowId: s(a.flow_id) } }),
  },
  {
    name: 'list_files',
    description: 'Files of a namespace (head version).',
    kind: 'read',
    annotations: READ,
    operationId: 'listFiles',
    parameters: { type: 'object', properties: { namespace: str('Namespace') }, required: ['namespace'] },
    toInput: (a) => ({ params: { namespace: s(a.namespace) }, query: { limit: 200 } }),
  },
  {
    name: 'read_file',
    description: 'The content of one file of a namespace.',
    kind: 'read',
    annotations: READ,
    operationId: 'getFile',
    parameters: { type: 'object', properties: { namespace: str('Namespace'), path: str('File path, e.g. flows/etl.flow.yaml') }, required: ['namespace', 'path'] },
    toInput: (a) => ({ params: { namespace: s(a.namespace) }, query: { path: s(a.path) } }),
  },
  {
    name: 'list_executions',
    description: 'Executions, newest first; filters: namespace, flow id, state.',
    kind: 'read',
    annotations: READ,
    operationId: 'listExecutions',
    parameters: { type: 'object', properties: { namespace: str('Namespace'), flow: str('Flow id'), state: str('QUEUED, RUNNING, SUCCESS, FAILED, TIMED_OUT, CANCELLED...') } },
    toInput: (a) => ({ query: { namespace: s(a.namespace), flow: s(a.flow), state: s(a.state), limit: 20 } }),
  },
  {
    name: 'get_execution',
    description: 'An execution with its state, error and task runs.',
    kind: 'read',
    annotations: READ,
    operationId: 'getExecution',
    parameters: { type: 'object', properties: executionArg, required: ['execution_id'] },
    toInput: (a) => ({ params: { executionId: s(a.execution_id) } }),
  },
  {
    name: 'read_logs',
    description: `Log lines of an execution (at most ${MAX_LOG_LINES}), optionally of one task. Secret values are masked.`,
    kind: 'read',
    annotations: READ,
    operationId: 'getExecutionLogs',
    parameters: {
      type: 'object',
      properties: { ...executionArg, task: str('Task id'), limit: { type: 'integer', minimum: 1, maximum: MAX_LOG_LINES } },
      required: ['execution_id'],
    },
    toInput: (a) => ({ params: { executionId: s(a.execution_id) }, query: { task: s(a.task), limit: Math.min(MAX_LOG_LINES, Math.max(1, Number(a.limit) || 100)) } }),
  },
  {
    name: 'get_flow_schema',
    description: 'The JSON Schema (draft 2020-12) of a *.flow.yaml file.',
    kind: 'read',
    annotations: READ,
    operationId: 'getFlowSchema',
    parameters: { type: 'object', properties: {} },
    toInput: () => ({}),
  },
  {
    name: 'validate_flow',
    description: 'Validate a flow file text without saving it; returns the errors.',
    kind: 'read',
    annotations: READ,
    operationId: 'validateFile',
    parameters: {
      type: 'object',
      properties: { namespace: str('Namespace'), path: str('File path ending in .flow.yaml'), content: str('The YAML text') },
      required: ['namespace', 'path', 'content'],
    },
    toInput: (a) => ({ params: { namespace: s(a.namespace) }, body: { path: s(a.path) ?? '', content: s(a.content) ?? '' } }),
  },
  {
    name: 'save_flow',
    description: "Save (create or replace) a file of a namespace, e.g. a flow, as a new namespace version. Needs the user's confirmation.",
    kind: 'action',
    annotations: OVERWRITES,
    operationId: 'saveChanges',
    parameters: {
      type: 'object',
      properties: { namespace: str('Namespace'), path: str('File path, e.g. flows/etl.flow.yaml'), content: str('The whole new file text'), message: str('Change message') },
      required: ['namespace', 'path', 'content'],
    },
    toInput: (a) => ({
      params: { namespace: s(a.namespace) },
      body: { changes: [{ op: 'put', path: s(a.path) ?? '', content: s(a.content) ?? '' }], message: (s(a.message) || `Save ${s(a.path)}`).slice(0, 500) },
    }),
    summary: (a) => `Save ${s(a.path)} in namespace ${s(a.namespace)}${a.message ? `: ${s(a.message)}` : ''}`,
  },
  {
    name: 'trigger_flow',
    description: 'Start an execution of a flow with inputs.',
    kind: 'action',
    annotations: ADDS,
    operationId: 'triggerFlow',
    parameters: {
      type: 'object',
      properties: { namespace: str('Namespace'), flow_id: str('Flow id'), inputs: { type: 'object', description: 'Input values by input id' } },
      required: ['namespace', 'flow_id'],
    },
    toInput: (a) => ({ params: { namespace: s(a.namespace), flowId: s(a.flow_id) }, body: { inputs: a.inputs && typeof a.inputs === 'object' ? a.inputs : {} } }),
    summary: (a) => `Trigger ${s(a.namespace)}/${s(a.flow_id)}${a.inputs && Object.keys(a.inputs).length ? ` with inputs ${JSON.stringify(a.inputs)}` : ''}`,
  },
  {
    name: 'cancel_execution',
    description: 'Cancel a queued or running execution.',
    kind: 'action',
    annotations: OVERWRITES,
    operationId: 'cancelExecution',
    parameters: { type: 'object', properties: executionArg, required: ['execution_id'] },
    toInput: (a) => ({ params: { executionId: s(a.execution_id) } }),
    summary: (a) => `Cancel execution ${s(a.execution_id)}`,
  },
  {
    name: 'rerun_execution',
    description: 'Run an ended execution again from the start, as a new execution.',
    kind: 'action',
    annotations: ADDS,
    operationId: 'rerunExecution',
    parameters: { type: 'object', properties: executionArg, required: ['execution_id'] },
    toInput: (a) => ({ params: { executionId: s(a.execution_id) } }),
    summary: (a) => `Rerun execution ${s(a.execution_id)}`,
  },
  {
    name: 'restart_execution',
    description: 'Restart a FAILED, TIMED_OUT or CANCELLED execution from its failed tasks, as a new execution.',
    kind: 'action',
    annotations: ADDS,
    operationId: 'restartExecution',
    parameters: { type: 'object', properties: executionArg, required: ['execution_id'] },
    toInput: (a) => ({ params: { executionId: s(a.execution_id) } }),
    summary: (a) => `Restart execution ${s(a.execution_id)}`,
  },
  {
    name: 'replay_execution',
    description:
      "Replay an ended execution as a new one: inputs and labels merged over the original's, from a task (the tasks before it reuse their SUCCESS runs; without one every task runs), on the pinned or the latest flow revision. dry_run answers the plan (what is reused and what runs) and starts nothing.",
    kind: 'action',
    annotations: ADDS,
    operationId: 'replayExecution',
    parameters: {
      type: 'object',
      properties: {
        ...executionArg,
        inputs: { type: 'object', description: "Input values by input id, merged over the original's" },
        labels: { type: 'object', description: "Labels merged over the original's (null removes one)" },
        from: str('The task id to replay from'),
        revision: str("pinned (default: the original's flow revision and snapshot) or latest (the flow's current ones)"),
        dry_run: { type: 'boolean', description: 'Only answer the plan' },
      },
      required: ['execution_id'],
    },
    toInput: (a) => ({
      params: { executionId: s(a.execution_id) },
      body: {
        ...(a.inputs && typeof a.inputs === 'object' ? { inputs: a.inputs } : {}),
        ...(a.labels && typeof a.labels === 'object' ? { labels: a.labels } : {}),
        ...(s(a.from) !== undefined ? { from: s(a.from) } : {}),
        ...(s(a.revision) !== undefined ? { revision: s(a.revision) } : {}),
        ...(a.dry_run === true ? { dry_run: true } : {}),
      },
    }),
    summary: (a) =>
      `Replay execution ${s(a.execution_id)}${a.from ? ` from ${s(a.from)}` : ''}${a.revision === 'latest' ? ' on the latest revision' : ''}${a.inputs && Object.keys(a.inputs).length ? ` with inputs ${JSON.stringify(a.inputs)}` : ''}${a.dry_run === true ? ' (dry run)' : ''}`,
  },
];

export const TRIAGE_TOOL: ToolDef = {
  name: 'request_triage',
  description: 'Ask for an AI triage of a FAILED or TIMED_OUT execution (summary, probable cause, suggested fix, with evidence); read it with list_insights.',
  kind: 'action',
  annotations: ADDS,
  operationId: 'requestTriage',
  parameters: { type: 'object', properties: executionArg, required: ['execution_id'] },
  toInput: (a) => ({ params: { executionId: s(a.execution_id) } }),
};

export const toolByName = (name: string) => TOOLS.find((t) => t.name === name);

/** A tool result as text for the model, bounded. */
export function resultText(v: unknown): string {
  const t = typeof v === 'string' ? v : JSON.stringify(v);
  return t.length > MAX_RESULT_CHARS ? `${t.slice(0, MAX_RESULT_CHARS)}… (truncated)` : t;
}
