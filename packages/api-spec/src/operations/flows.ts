import { Type } from '@sinclair/typebox';
import type { Operation } from '../operation.js';
import { Page } from '../schemas/helpers.js';
import { Flow, FlowMetrics, FlowRevision, FlowRevisionDiff, FlowStats, FlowSummary, UpcomingSchedule, WebhookKey } from '../schemas/entities.js';
import { Dashboard, Execution } from '../schemas/resources.js';
import { TRIGGER_BATCH_LIMIT, TriggerFlowBatchRequest, TriggerFlowBatchResult } from '../schemas/bulk.js';
import {
  DashboardQuery,
  FlowMetricsQuery,
  FlowParams,
  FlowId,
  ListQuery,
  ListQueryWith,
  NamespaceName,
  OpaqueId,
  Params,
  RevisionDiffQuery,
  TriggerFlowRequest,
  UpdateFlowRequest,
} from '../schemas/requests.js';
import { OPERATION_CURSORS } from '../schemas/cursors.js';
import { EDITOR, OPERATOR, PUBLIC, VIEWER, created, err, ok } from './shared.js';

/** Where the flow file JSON Schema is served; the document links to it rather than inlining it. */
export const FLOW_SCHEMA_PATH = '/api/v1/schemas/flow.json';

const notFound = err(404, 'No such flow');

export const flowOperations: Operation[] = [
  {
    operationId: 'listFlows',
    method: 'get',
    path: '/api/v1/flows',
    tag: 'flows',
    summary: 'List flows',
    auth: VIEWER,
    request: {
      query: ListQueryWith({
        namespace: Type.Optional(Type.String({ description: 'Selects the namespace and its children' })),
        q: Type.Optional(
          Type.String({
            maxLength: 200,
            description:
              'Extension: selects the flows whose id, description or namespace contains this text, ignoring case; `%`, `_` and `\\` match themselves. At most 200 characters; combines with `namespace`, and the cursor pages through the matches',
          }),
        ),
      }),
      cursor: OPERATION_CURSORS.listFlows,
    },
    responses: ok(Page(FlowSummary)),
  },
  {
    operationId: 'getFlow',
    method: 'get',
    path: '/api/v1/flows/{namespace}/{flowId}',
    tag: 'flows',
    summary: 'A flow with its source and parsed definition',
    auth: VIEWER,
    request: { params: FlowParams },
    responses: { ...ok(Flow), ...notFound },
  },
  {
    operationId: 'updateFlow',
    method: 'patch',
    path: '/api/v1/flows/{namespace}/{flowId}',
    tag: 'flows',
    summary: 'Enable or disable a flow',
    description: 'A disabled flow gets 409 `flow_disabled` on trigger; its schedules and webhooks do not fire.',
    auth: EDITOR,
    request: { params: FlowParams, body: UpdateFlowRequest },
    responses: { ...ok(Flow), ...notFound },
  },
  {
    operationId: 'diffFlowRevisions',
    method: 'get',
    path: '/api/v1/flows/{namespace}/{flowId}/diff',
    tag: 'flows',
    summary: 'Diff between two revisions of a flow',
    auth: VIEWER,
    request: { params: FlowParams, query: RevisionDiffQuery },
    responses: { ...ok(FlowRevisionDiff), ...notFound },
  },
  {
    operationId: 'triggerFlow',
    method: 'post',
    path: '/api/v1/flows/{namespace}/{flowId}/executions',
    tag: 'flows',
    summary: 'Start an execution of a flow',
    description:
      'Inputs are validated against the flow inputs at trigger time. ' +
      "Extension: the value of an input of `type: file` is the id of an upload of the flow's namespace (createUpload); an upload that is unknown there (another namespace's included) or expired is refused (422 on `inputs.<id>`). " +
      'Each file input is listed in listExecutionArtifacts as kind `input`, named `<input id>/<file name>` (docs/using/files.md).',
    auth: OPERATOR,
    request: { params: FlowParams, body: TriggerFlowRequest, bodyRequired: false },
    responses: { ...created(Execution, 'The new execution'), ...notFound, ...err(409, '`flow_disabled`: the flow is disabled') },
  },
  {
    operationId: 'triggerFlowBatch',
    method: 'post',
    path: '/api/v1/flows/{namespace}/{flowId}/executions/batch',
    tag: 'flows',
    summary: `Start up to ${TRIGGER_BATCH_LIMIT.toLocaleString('en')} executions of a flow in one request, each with its own inputs and labels`,
    description:
      'All or nothing: every item is validated as triggerFlow validates its body, and the executions are created in one transaction. ' +
      'A bad item fails the whole request (422 `validation_failed`, each problem named `items[<i>].inputs.<input>`) and nothing is created. ' +
      "The flow's concurrency rule applies to each item in order, as if each were triggered after the one before: an execution that finds the limit full is QUEUED (behavior `queue`) or SKIPPED (`skip`). " +
      'Each execution writes its `execution.trigger` audit event, with `batch_size` and `batch_index` in its details. ' +
      'With `dry_run`, the flow and every item are checked the same way and nothing is created (200). ' +
      `More than ${TRIGGER_BATCH_LIMIT.toLocaleString('en')} items is refused (422, field \`items\`); a body over the server's limit (SVC_MAX_BODY_BYTES) gets 413.`,
    auth: OPERATOR,
    request: { params: FlowParams, body: TriggerFlowBatchRequest },
    responses: {
      ...ok(TriggerFlowBatchResult, 'The dry run: every item checked, nothing created (`executions` empty)'),
      ...created(TriggerFlowBatchResult, 'The executions created, in item order'),
      ...notFound,
      ...err(409, '`flow_disabled`: the flow is disabled'),
      ...err(413, '`body_too_large`: the body is over the server limit (SVC_MAX_BODY_BYTES)'),
      ...err(422, `\`validation_failed\`: no items, more than ${TRIGGER_BATCH_LIMIT.toLocaleString('en')}, or an item's inputs or labels are invalid`),
    },
  },
  {
    operationId: 'getFlowMetrics',
    method: 'get',
    path: '/api/v1/flows/{namespace}/{flowId}/metrics',
    tag: 'flows',
    summary: 'A custom metric over the last 50 executions, one series per `group_by` tag value',
    auth: VIEWER,
    request: { params: FlowParams, query: FlowMetricsQuery },
    responses: { ...ok(FlowMetrics), ...notFound },
  },
  {
    operationId: 'listFlowRevisions',
    method: 'get',
    path: '/api/v1/flows/{namespace}/{flowId}/revisions',
    tag: 'flows',
    summary: 'Revisions of a flow, newest first',
    auth: VIEWER,
    request: { params: FlowParams, query: ListQuery, cursor: OPERATION_CURSORS.listFlowRevisions },
    responses: { ...ok(Page(FlowRevision)), ...notFound },
  },
  {
    operationId: 'getFlowRevision',
    method: 'get',
    path: '/api/v1/flows/{namespace}/{flowId}/revisions/{revisionId}',
    tag: 'flows',
    summary: 'One revision of a flow',
    auth: VIEWER,
    request: { params: Params({ namespace: NamespaceName, flowId: FlowId, revisionId: OpaqueId }) },
    responses: { ...ok(FlowRevision), ...notFound },
  },
  {
    operationId: 'getFlowStats',
    method: 'get',
    path: '/api/v1/flows/{namespace}/{flowId}/stats',
    tag: 'flows',
    summary: 'The last 50 executions of the flow with state and duration',
    auth: VIEWER,
    request: { params: FlowParams },
    responses: { ...ok(FlowStats), ...notFound },
  },
  {
    operationId: 'rotateWebhookKey',
    method: 'post',
    path: '/api/v1/flows/{namespace}/{flowId}/triggers/{triggerId}/webhook-key',
    tag: 'flows',
    summary: 'Replace the key of a webhook trigger',
    auth: EDITOR,
    request: {
      params: Params({ namespace: NamespaceName, flowId: FlowId, triggerId: Type.String({ minLength: 1, maxLength: 63 }) }),
    },
    responses: { ...ok(WebhookKey, 'The new key (the old one stops working)'), ...err(404, 'No such flow or webhook trigger') },
  },
  {
    operationId: 'listUpcomingSchedules',
    method: 'get',
    path: '/api/v1/schedules/upcoming',
    tag: 'schedules',
    summary: 'Next fire times of the active schedules',
    auth: VIEWER,
    request: { query: ListQueryWith({ namespace: Type.Optional(Type.String()) }), cursor: OPERATION_CURSORS.listUpcomingSchedules },
    responses: ok(Page(UpcomingSchedule)),
  },
  {
    operationId: 'getFlowSchema',
    method: 'get',
    path: FLOW_SCHEMA_PATH,
    tag: 'schemas',
    summary: 'JSON Schema (draft 2020-12) of a flow file',
    auth: PUBLIC,
    request: {},
    responses: {
      200: {
        description: `The JSON Schema of \`*.flow.yaml\` files, served at ${FLOW_SCHEMA_PATH} (not inlined in this document)`,
        contentType: 'application/json',
        schema: Type.Object({}, { additionalProperties: true, description: `See ${FLOW_SCHEMA_PATH}` }),
      },
    },
  },
  {
    operationId: 'getDashboard',
    method: 'get',
    path: '/api/v1/stats/dashboard',
    tag: 'stats',
    summary: 'KPIs, buckets, running executions and recent failures',
    auth: VIEWER,
    request: { query: DashboardQuery },
    responses: ok(Dashboard),
  },
];
