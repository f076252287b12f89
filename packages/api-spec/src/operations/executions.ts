import { Type } from '@sinclair/typebox';
import type { Operation } from '../operation.js';
import { Binary, Page } from '../schemas/helpers.js';
import { Artifact, Insight, MetricValue } from '../schemas/entities.js';
import { Execution, LogLine } from '../schemas/resources.js';
import { ExecutionLogsQuery, ExecutionParams, ListExecutionsQuery, ListQuery, OpaqueId, Params, TaskAttemptFilterQuery, TaskFilterQuery } from '../schemas/requests.js';
import { OPERATION_CURSORS } from '../schemas/cursors.js';
import { EVENT_STREAM, OPERATOR, STREAM_HEADERS, VIEWER, accepted, created, err, ok } from './shared.js';

const notFound = err(404, '`execution_not_found`');

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
