import { Type } from '@sinclair/typebox';
import type { Operation } from '../operation.js';
import { Binary, FreeObject, StringEnum } from '../schemas/helpers.js';
import { ExecutionRef } from '../schemas/entities.js';
import { AnyJson, OpaqueId, Params } from '../schemas/requests.js';
import { RunnerCompleteRequest, RunnerEventsRequest, RunnerHeartbeatRequest, RunnerHeartbeatResponse, RunnerLogsRequest, RunnerSpec } from '../schemas/runner.js';
import { RUN_TOKEN, accepted, created, err, noContent, ok } from './shared.js';

const TaskRunParams = Params({ taskRunId: OpaqueId });
const ended = err(409, 'The task run has ended (the runner should stop)');

export const runnerOperations: Operation[] = [
  {
    operationId: 'runnerGetSpec',
    method: 'get',
    path: '/api/runner/v1/task-runs/{taskRunId}/spec',
    tag: 'runner',
    summary: 'What to run: command, env, files, limits, values to mask',
    auth: RUN_TOKEN,
    request: { params: TaskRunParams },
    responses: ok(RunnerSpec),
  },
  {
    operationId: 'runnerGetBundle',
    method: 'get',
    path: '/api/runner/v1/task-runs/{taskRunId}/bundle',
    tag: 'runner',
    summary: 'The namespace files of the pinned snapshot as an archive',
    auth: RUN_TOKEN,
    request: { params: TaskRunParams },
    responses: {
      200: { description: 'Archive bytes; `bundle_hash` of the spec identifies it', contentType: 'application/octet-stream', schema: Binary() },
    },
  },
  {
    operationId: 'runnerHeartbeat',
    method: 'post',
    path: '/api/runner/v1/task-runs/{taskRunId}/heartbeat',
    tag: 'runner',
    summary: 'The runner is alive; the answer says whether to cancel',
    auth: RUN_TOKEN,
    request: { params: TaskRunParams, body: RunnerHeartbeatRequest, bodyRequired: false },
    responses: {
      ...ok(RunnerHeartbeatResponse),
      ...ended,
    },
  },
  {
    operationId: 'runnerPostLogs',
    method: 'post',
    path: '/api/runner/v1/task-runs/{taskRunId}/logs',
    tag: 'runner',
    summary: 'Append log lines (already masked by the runner)',
    auth: RUN_TOKEN,
    request: { params: TaskRunParams, body: RunnerLogsRequest },
    responses: { ...noContent('Stored'), ...ended },
  },
  {
    operationId: 'runnerPostEvents',
    method: 'post',
    path: '/api/runner/v1/task-runs/{taskRunId}/events',
    tag: 'runner',
    summary: 'Report outputs, metrics and progress events',
    auth: RUN_TOKEN,
    request: { params: TaskRunParams, body: RunnerEventsRequest },
    responses: { ...noContent('Stored'), ...ended },
  },
  {
    operationId: 'runnerPutArtifact',
    method: 'put',
    path: '/api/runner/v1/task-runs/{taskRunId}/artifacts/{name}',
    tag: 'runner',
    summary: 'Upload one artifact or output file (raw bytes, streamed)',
    description:
      'The body is streamed to the object store, its size and sha256 computed on the way. With an `x-svc-sha256` header (64 hex digits), a body with another sha256 is refused (422 on that field) and nothing is kept; past SVC_MAX_ARTIFACT_BYTES, 413 and nothing is kept. `kind=output` stores an output file of the task (docs/using/files.md).',
    auth: RUN_TOKEN,
    request: {
      params: Params({ taskRunId: OpaqueId, name: Type.String({ minLength: 1, maxLength: 512 }) }),
      query: Type.Object({
        kind: Type.Optional(StringEnum(['artifact', 'output'] as const, { default: 'artifact', description: "`output`: a file matched by the task's `output_files`" })),
      }),
      body: Binary(),
      bodyContentType: 'application/octet-stream',
    },
    responses: {
      ...created(FreeObject('The stored artifact: `{"id", "size", "sha256"}`')),
      ...err(413, 'Larger than SVC_MAX_ARTIFACT_BYTES'),
      ...err(422, 'The body does not have the sha256 of `x-svc-sha256`'),
      ...ended,
    },
  },
  {
    operationId: 'runnerGetFile',
    method: 'get',
    path: '/api/runner/v1/task-runs/{taskRunId}/files/{artifactId}',
    tag: 'runner',
    summary: 'One file the task run reads: an output file of an upstream task or a file input (raw bytes, streamed)',
    description:
      "Streamed from the object store, with `Content-Length` and `x-svc-sha256` (the sha256 recorded when it was stored). Only a file of the task run's own execution (or of the execution it was restarted or replayed from, for a reused task) is served: any other id answers 404, whatever namespace it belongs to. The runner checks the size and sha256 of what it received before the command starts (docs/using/files.md).",
    auth: RUN_TOKEN,
    request: { params: Params({ taskRunId: OpaqueId, artifactId: OpaqueId }) },
    responses: {
      200: { description: 'The bytes of the file', contentType: 'application/octet-stream', schema: Binary() },
      ...err(404, 'No such file in this execution (or its content is gone from the object store)'),
      ...ended,
    },
  },
  {
    operationId: 'runnerComplete',
    method: 'post',
    path: '/api/runner/v1/task-runs/{taskRunId}/complete',
    tag: 'runner',
    summary: 'Report the end of the task process',
    auth: RUN_TOKEN,
    request: { params: TaskRunParams, body: RunnerCompleteRequest },
    responses: {
      ...ok(FreeObject('`{"accepted": true}` when this report ended the task run; `false` when it had ended already (a late or repeated report changes nothing)')),
      ...ended,
    },
  },
];

export const hookOperations: Operation[] = [
  {
    operationId: 'webhookStart',
    method: 'post',
    path: '/hooks/{key}',
    tag: 'hooks',
    summary: 'Start the flow of a webhook trigger',
    description: 'The key in the path authorizes the call. Trigger inputs read `trigger.body` (this JSON body) and `trigger.headers`.',
    auth: { kind: 'webhook_key' },
    request: {
      params: Params({ key: Type.String({ minLength: 1, maxLength: 256 }) }),
      body: AnyJson,
      bodyRequired: false,
      // Other systems post JSON or anything else: JSON is parsed, other content types are kept as text.
      bodyContentType: '*/*',
    },
    responses: {
      ...created(ExecutionRef, 'The execution started'),
      ...err(404, 'Unknown key'),
      ...err(409, '`flow_disabled`: the flow is disabled'),
    },
  },
  {
    operationId: 'gitPushWebhook',
    method: 'post',
    path: '/hooks/git/{sourceId}',
    tag: 'hooks',
    summary: 'Request a sync of a git source from a push notification',
    description: 'Authorized by a signature over the body made with the source’s webhook secret.',
    auth: { kind: 'signature' },
    request: { params: Params({ sourceId: OpaqueId }), body: AnyJson, bodyRequired: false },
    responses: { ...accepted(FreeObject('The sync request')), ...err(404, 'Unknown source') },
  },
];
