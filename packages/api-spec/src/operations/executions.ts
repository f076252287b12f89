import { Type } from '@sinclair/typebox';
import type { Operation } from '../operation.js';
import { Binary, FreeObject, Page } from '../schemas/helpers.js';
import { Artifact, Insight, MetricValue } from '../schemas/entities.js';
import { Execution, LogLine } from '../schemas/resources.js';
import { ExecutionLogsQuery, ExecutionParams, ListExecutionsQuery, ListQuery, OpaqueId, Params, TaskAttemptFilterQuery, TaskFilterQuery } from '../schemas/requests.js';
import { OPERATION_CURSORS } from '../schemas/cursors.js';
import { EVENT_STREAM, OPERATOR, STREAM_HEADERS, VIEWER, accepted, created, err, ok } from './shared.js';

const notFound = err(404, '`execution_not_found`');

const TaskParams = Params({ executionId: OpaqueId, taskKey: Type.String({ minLength: 1, maxLength: 63, description: 'The task id' }) });
const ApprovalDecision = Type.Object(
  {
    inputs: Type.Optional(FreeObject("Values of the gate's form fields, by field id (approve only; required fields must be given)")),
    comment: Type.Optional(Type.String({ maxLength: 2000, description: 'Recorded with the decision and the audit event' })),
  },
  { additionalProperties: false },
);
const decisionErrors = {
  ...err(404, '`execution_not_found`; `task_not_found`: the execution has no such task'),
  ...err(
    403,
    '`forbidden`: the caller is not an approver of this gate (role on the namespace below `approvers.role` and in none of `approvers.groups`), or started the execution and `forbid_self_approval` is set, or calls through the AI assistant or MCP',
  ),
  ...err(409, '`not_awaiting_approval`: the task run is not waiting for approval (not reached yet, already decided, or the execution ended)'),
};

export const executionOperations: Operation[] = [
  {
    operationId: 'listExecutions',
    method: 'get',
    path: '/api/v1/executions',
    tag: 'executions',
    summary: 'List executions, newest first',
    auth: VIEWER,
    request: { query: ListExecutionsQuery, cursor: OPERATION_CURSORS.listExecutions },
    responses: ok(Page(Execution)),
  },
  {
    operationId: 'getExecution',
    method: 'get',
    path: '/api/v1/executions/{executionId}',
    tag: 'executions',
    summary: 'An execution with its task runs',
    auth: VIEWER,
    request: { params: ExecutionParams },
    responses: { ...ok(Execution), ...notFound },
  },
  {
    operationId: 'listExecutionArtifacts',
    method: 'get',
    path: '/api/v1/executions/{executionId}/artifacts',
    tag: 'executions',
    summary: 'Artifacts uploaded by the task runs of an execution',
    auth: VIEWER,
    request: { params: ExecutionParams, query: ListQuery, cursor: OPERATION_CURSORS.listExecutionArtifacts },
    responses: { ...ok(Page(Artifact)), ...notFound },
  },
  {
    operationId: 'downloadArtifact',
    method: 'get',
    path: '/api/v1/executions/{executionId}/artifacts/{artifactId}',
    tag: 'executions',
    summary: 'Download one artifact',
    auth: VIEWER,
    request: { params: Params({ executionId: OpaqueId, artifactId: OpaqueId }) },
    responses: {
      200: {
        description: 'The artifact bytes',
        contentType: 'application/octet-stream',
        schema: Binary(),
        headers: { 'Content-Disposition': 'attachment; filename of the artifact' },
      },
      ...notFound,
    },
  },
  {
    operationId: 'cancelExecution',
    method: 'post',
    path: '/api/v1/executions/{executionId}/cancel',
    tag: 'executions',
    summary: 'Cancel an execution (QUEUED: at once; RUNNING: via CANCELLING)',
    description: 'Writes the audit event `execution.cancel`.',
    auth: OPERATOR,
    request: { params: ExecutionParams },
    responses: { ...ok(Execution), ...notFound, ...err(409, '`execution_ended`: the execution has already ended') },
  },
  {
    operationId: 'approveTaskRun',
    method: 'post',
    path: '/api/v1/executions/{executionId}/tasks/{taskKey}/approve',
    tag: 'executions',
    summary: 'Approve a task waiting at its approval gate (an extension): it runs',
    description:
      'The task run waiting with reason `awaiting_approval` is queued at once. Records who, when, the form values and the comment (`tasks.<id>.approval` downstream). ' +
      "Allowed to a caller whose role on the flow's namespace reaches the gate's `approvers.role`, or who is in one of its `approvers.groups`; never through the AI assistant or MCP. Writes the audit event `execution.approve`.",
    auth: VIEWER,
    humanOnly: true,
    request: { params: TaskParams, body: ApprovalDecision, bodyRequired: false },
    responses: { ...ok(Execution), ...decisionErrors, ...err(422, "`validation_failed`: a required form field is missing, or a value is not of its field's type") },
  },
  {
    operationId: 'rejectTaskRun',
    method: 'post',
    path: '/api/v1/executions/{executionId}/tasks/{taskKey}/reject',
    tag: 'executions',
    summary: 'Reject a task waiting at its approval gate (an extension): it ends FAILED `rejected`',
    description: 'Same approvers as approveTaskRun. Tasks with `run_if: failure` downstream then run. Writes the audit event `execution.reject`.',
    auth: VIEWER,
    humanOnly: true,
    request: { params: TaskParams, body: ApprovalDecision, bodyRequired: false },
    responses: { ...ok(Execution), ...decisionErrors },
  },
  {
    operationId: 'pauseExecution',
    method: 'post',
    path: '/api/v1/executions/{executionId}/pause',
    tag: 'executions',
    summary: 'Pause a running execution (an extension): no new task run starts until it is resumed',
    description:
      "Running task runs finish; queued ones wait; the execution stays RUNNING with reason `paused` and still counts against its flow's concurrency limit. Cancel still works. Pausing a paused execution changes nothing. Writes the audit event `execution.pause`.",
    auth: OPERATOR,
    request: { params: ExecutionParams },
    responses: { ...ok(Execution), ...notFound, ...err(409, '`execution_ended`: the execution has ended; `not_running`: it is QUEUED or CANCELLING') },
  },
  {
    operationId: 'resumeExecution',
    method: 'post',
    path: '/api/v1/executions/{executionId}/resume',
    tag: 'executions',
    summary: 'Resume a paused execution (an extension): it goes on where it stopped',
    description: 'Resuming an execution that is not paused changes nothing. Writes the audit event `execution.resume`.',
    auth: OPERATOR,
    request: { params: ExecutionParams },
    responses: { ...ok(Execution), ...notFound, ...err(409, '`execution_ended`: the execution has ended') },
  },
  {
    operationId: 'streamExecutionEvents',
    method: 'get',
    path: '/api/v1/executions/{executionId}/events',
    tag: 'executions',
    summary: 'Event stream of execution state changes',
    description:
      'Sends `execution` events (data: the execution detail; id: a hash of the states) on each state change of the execution or a task run, ' +
      '`: keep-alive` after about 15 seconds without data, and `event: end` with data `{}` when the execution has ended. ' +
      'Resume with `Last-Event-ID`.',
    auth: VIEWER,
    request: { params: ExecutionParams },
    streaming: true,
    responses: {
      200: { description: 'text/event-stream of `execution` and `end` events', contentType: EVENT_STREAM, schema: Type.String(), headers: STREAM_HEADERS },
      ...notFound,
    },
  },
  {
    operationId: 'listExecutionInsights',
    method: 'get',
    path: '/api/v1/executions/{executionId}/insights',
    tag: 'executions',
    summary: 'AI triage results of an execution',
    auth: VIEWER,
    request: { params: ExecutionParams, query: ListQuery, cursor: OPERATION_CURSORS.listExecutionInsights },
    responses: { ...ok(Page(Insight)), ...notFound },
  },
  {
    operationId: 'requestTriage',
    method: 'post',
    path: '/api/v1/executions/{executionId}/insights',
    tag: 'executions',
    summary: 'Ask the AI assistant to triage an execution',
    auth: OPERATOR,
    request: { params: ExecutionParams },
    responses: {
      ...accepted(Insight, 'Triage requested'),
      ...notFound,
      ...err(409, '`ai_disabled`: no AI provider is configured'),
      ...err(429, '`rate_limited`: a daily AI limit (SVC_AI_*_PER_DAY) is reached; `Retry-After` gives the seconds until it resets'),
    },
  },
  {
    operationId: 'getExecutionLogs',
    method: 'get',
    path: '/api/v1/executions/{executionId}/logs',
    tag: 'executions',
    summary: 'A page of log lines',
    auth: VIEWER,
    request: { params: ExecutionParams, query: ExecutionLogsQuery, cursor: OPERATION_CURSORS.getExecutionLogs },
    responses: { ...ok(Page(LogLine)), ...notFound },
  },
  {
    operationId: 'downloadExecutionLogs',
    method: 'get',
    path: '/api/v1/executions/{executionId}/logs/download',
    tag: 'executions',
    summary: 'All log lines as text',
    auth: VIEWER,
    request: { params: ExecutionParams, query: TaskAttemptFilterQuery },
    responses: {
      200: { description: 'Plain text, one line per log line', contentType: 'text/plain', schema: Type.String(), headers: { 'Content-Disposition': 'attachment' } },
      ...notFound,
    },
  },
  {
    operationId: 'streamExecutionLogs',
    method: 'get',
    path: '/api/v1/executions/{executionId}/logs/stream',
    tag: 'executions',
    summary: 'Event stream of log lines',
    description:
      'Sends `line` events (data: a LogLine; id: the read position of each task run), `: keep-alive` after about 15 seconds without data, ' +
      'and `event: end` with data `{}` when the execution has ended. With `Last-Event-ID`, only lines after that position are sent.',
    auth: VIEWER,
    request: { params: ExecutionParams, query: TaskFilterQuery },
    streaming: true,
    responses: {
      200: { description: 'text/event-stream of `line` and `end` events', contentType: EVENT_STREAM, schema: Type.String(), headers: STREAM_HEADERS },
      ...notFound,
    },
  },
  {
    operationId: 'listExecutionMetrics',
    method: 'get',
    path: '/api/v1/executions/{executionId}/metrics',
    tag: 'executions',
    summary: 'Custom metrics reported by the tasks of an execution',
    auth: VIEWER,
    request: { params: ExecutionParams, query: ListQuery, cursor: OPERATION_CURSORS.listExecutionMetrics },
    responses: { ...ok(Page(MetricValue)), ...notFound },
  },
  {
    operationId: 'rerunExecution',
    method: 'post',
    path: '/api/v1/executions/{executionId}/rerun',
    tag: 'executions',
    summary: 'Run the same snapshot, definition, inputs and labels again; all tasks run',
    description: 'Allowed from SUCCESS, FAILED, TIMED_OUT, CANCELLED. Writes the audit event `execution.rerun`.',
    auth: OPERATOR,
    request: { params: ExecutionParams },
    responses: { ...created(Execution, 'The new execution'), ...notFound, ...err(409, '`not_restartable`: the execution has not ended') },
  },
  {
    operationId: 'restartExecution',
    method: 'post',
    path: '/api/v1/executions/{executionId}/restart',
    tag: 'executions',
    summary: 'Restart from failed: SUCCESS task runs are reused, the others run',
    description: 'Allowed from FAILED, TIMED_OUT, CANCELLED. Writes the audit event `execution.restart`.',
    auth: OPERATOR,
    request: { params: ExecutionParams },
    responses: { ...created(Execution, 'The new execution'), ...notFound, ...err(409, '`not_restartable`: the execution is not FAILED, TIMED_OUT or CANCELLED') },
  },
];
