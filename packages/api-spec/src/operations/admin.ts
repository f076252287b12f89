import { Type } from '@sinclair/typebox';
import type { Operation } from '../operation.js';
import { Page } from '../schemas/helpers.js';
import { AIActionOutcome, AIConversation, AIProvider, AIStatus, AIUsage, Acknowledged, AuditEvent, Instance, StorageStatus } from '../schemas/entities.js';
import { AIProviderRequest, CreateAIConversationRequest, ListQuery, ListQueryWith, OpaqueId, Params, SendAIMessageRequest } from '../schemas/requests.js';
import { OPERATION_CURSORS } from '../schemas/cursors.js';
import { ADMIN, EVENT_STREAM, STREAM_HEADERS, VIEWER, created, err, noContent, ok } from './shared.js';

const ConversationParams = Params({ conversationId: OpaqueId });
const ActionParams = Params({ conversationId: OpaqueId, actionId: OpaqueId });
const aiDisabled = err(409, '`ai_disabled`: no AI provider is configured');
const noConversation = err(404, 'No such conversation');

/** The filters of the audit list and its export. */
const AUDIT_FILTERS = {
  action: Type.Optional(Type.String({ description: 'Only this action, for example execution.cancel; a trailing `*` matches a prefix (`user.*`)' })),
  actor: Type.Optional(Type.String({ description: 'Only events of this actor: a user id or email' })),
  resource: Type.Optional(
    Type.String({
      maxLength: 300,
      description: "Only events on this resource: a type (`execution`) or a type and id (`execution:01J...`), as the events' `target` shows it",
    }),
  ),
  namespace: Type.Optional(
    Type.String({ maxLength: 300, description: 'Only events in this namespace or one below it (their `payload.namespace`): namespace, file, flow and execution events' }),
  ),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Only events at or after this time' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Only events before this time' })),
};

// Instances, audit log and storage status are shown to an admin only.
export const adminOperations: Operation[] = [
  {
    operationId: 'listInstances',
    method: 'get',
    path: '/api/v1/instances',
    tag: 'instances',
    summary: 'Instances with pools, executors and heartbeat (Online within 60 seconds)',
    auth: ADMIN,
    request: { query: ListQuery, cursor: OPERATION_CURSORS.listInstances },
    responses: ok(Page(Instance)),
  },
  {
    operationId: 'getStorageStatus',
    method: 'get',
    path: '/api/v1/storage',
    tag: 'storage',
    summary: 'Object store kind, usage and last cleanup',
    auth: ADMIN,
    request: {},
    responses: ok(StorageStatus),
  },
  {
    operationId: 'listAuditEvents',
    method: 'get',
    path: '/api/v1/audit',
    tag: 'audit',
    summary: 'Audit events, newest first (kept 365 days)',
    auth: ADMIN,
    request: { query: ListQueryWith(AUDIT_FILTERS), cursor: OPERATION_CURSORS.listAuditEvents },
    responses: ok(Page(AuditEvent)),
  },
  {
    operationId: 'exportAuditEvents',
    method: 'get',
    path: '/api/v1/audit/export',
    tag: 'audit',
    summary: 'Every audit event the filters select, newest first, as NDJSON',
    description:
      'The filters of listAuditEvents, without paging: one AuditEvent per line (`application/x-ndjson`), streamed as the events are read ' +
      '(keyset batches, so the export is never held in memory), as an attachment named `audit-<time>.ndjson`.',
    auth: ADMIN,
    request: { query: Type.Object(AUDIT_FILTERS) },
    responses: {
      200: {
        description: 'application/x-ndjson: one AuditEvent object per line',
        contentType: 'application/x-ndjson',
        schema: Type.String(),
        headers: { 'Content-Disposition': 'attachment' },
      },
    },
  },
];

// Conversations belong to their user, so any signed-in user may hold them; an
// action the assistant proposes is checked against the user's role when confirmed.
export const aiOperations: Operation[] = [
  {
    operationId: 'listAIConversations',
    method: 'get',
    path: '/api/v1/ai/conversations',
    tag: 'ai',
    summary: 'The own AI conversations',
    auth: VIEWER,
    request: { query: ListQuery, cursor: OPERATION_CURSORS.listAIConversations },
    responses: ok(Page(AIConversation)),
  },
  {
    operationId: 'createAIConversation',
    method: 'post',
    path: '/api/v1/ai/conversations',
    tag: 'ai',
    summary: 'Start a conversation with the assistant',
    auth: VIEWER,
    request: { body: CreateAIConversationRequest, bodyRequired: false },
    responses: { ...created(AIConversation), ...aiDisabled },
  },
  {
    operationId: 'getAIConversation',
    method: 'get',
    path: '/api/v1/ai/conversations/{conversationId}',
    tag: 'ai',
    summary: 'A conversation with its messages',
    auth: VIEWER,
    request: { params: ConversationParams },
    responses: { ...ok(AIConversation), ...noConversation },
  },
  {
    operationId: 'deleteAIConversation',
    method: 'delete',
    path: '/api/v1/ai/conversations/{conversationId}',
    tag: 'ai',
    summary: 'Delete a conversation',
    auth: VIEWER,
    request: { params: ConversationParams },
    responses: { ...noContent('Deleted'), ...noConversation },
  },
  {
    operationId: 'sendAIMessage',
    method: 'post',
    path: '/api/v1/ai/conversations/{conversationId}/messages',
    tag: 'ai',
    summary: 'Send a message; the assistant turn comes back as an event stream',
    auth: VIEWER,
    request: { params: ConversationParams, body: SendAIMessageRequest },
    streaming: true,
    responses: {
      200: { description: 'text/event-stream of the events of one assistant turn', contentType: EVENT_STREAM, schema: Type.String(), headers: STREAM_HEADERS },
      ...noConversation,
      ...aiDisabled,
      ...err(429, '`rate_limited`: a daily AI limit (SVC_AI_*_PER_DAY) is reached; `Retry-After` gives the seconds until it resets'),
    },
  },
  {
    operationId: 'confirmAIAction',
    method: 'post',
    path: '/api/v1/ai/conversations/{conversationId}/actions/{actionId}/confirm',
    tag: 'ai',
    summary: 'Confirm an action the assistant proposed; it runs with the own role',
    auth: VIEWER,
    request: { params: ActionParams },
    responses: { ...ok(AIActionOutcome), ...err(404, 'No such conversation or action'), ...err(409, 'The action was already decided') },
  },
  {
    operationId: 'rejectAIAction',
    method: 'post',
    path: '/api/v1/ai/conversations/{conversationId}/actions/{actionId}/reject',
    tag: 'ai',
    summary: 'Reject an action the assistant proposed',
    auth: VIEWER,
    request: { params: ActionParams },
    responses: { ...ok(Acknowledged), ...err(404, 'No such conversation or action'), ...err(409, 'The action was already decided') },
  },
  {
    operationId: 'getAIProvider',
    method: 'get',
    path: '/api/v1/ai/provider',
    tag: 'ai',
    summary: 'The AI provider settings (the API key is a secret reference)',
    auth: VIEWER,
    request: {},
    responses: { ...ok(AIProvider), ...err(404, 'No provider is configured') },
  },
  {
    operationId: 'putAIProvider',
    method: 'put',
    path: '/api/v1/ai/provider',
    tag: 'ai',
    summary: 'Configure the AI provider',
    auth: ADMIN,
    request: { body: AIProviderRequest },
    responses: ok(AIProvider),
  },
  {
    operationId: 'deleteAIProvider',
    method: 'delete',
    path: '/api/v1/ai/provider',
    tag: 'ai',
    summary: 'Remove the AI provider (disables the assistant)',
    auth: ADMIN,
    request: {},
    responses: noContent('Deleted'),
  },
  {
    operationId: 'testAIProvider',
    method: 'post',
    path: '/api/v1/ai/provider/test',
    tag: 'ai',
    summary: 'Send a test prompt to the configured (or given) provider',
    auth: ADMIN,
    request: { body: AIProviderRequest, bodyRequired: false },
    responses: { ...ok(Type.Object({ ok: Type.Boolean(), error: Type.Optional(Type.String()) }, { additionalProperties: true })), ...aiDisabled },
  },
  {
    operationId: 'getAIUsage',
    method: 'get',
    path: '/api/v1/ai/usage',
    tag: 'ai',
    summary: 'AI usage of one UTC day (default today) per user and in total, with the daily limits',
    auth: ADMIN,
    request: { query: Type.Object({ day: Type.Optional(Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description: 'A UTC day, YYYY-MM-DD; default today' })) }) },
    responses: ok(AIUsage),
  },
  {
    operationId: 'getAIStatus',
    method: 'get',
    path: '/api/v1/ai/status',
    tag: 'ai',
    summary: 'Whether the assistant is enabled',
    auth: VIEWER,
    request: {},
    responses: ok(AIStatus),
  },
];
