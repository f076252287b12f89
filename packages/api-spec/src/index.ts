export { ROLES, SPEC_ROLES, isRole, roleAtLeast, type Role, type SpecRole } from './roles.js';
export { successStatus, type AuthKind, type HttpMethod, type Operation, type OperationAuth, type OperationRequest, type OperationResponse, type Tag } from './operation.js';
export {
  CALLER_SCOPED_OPERATION_IDS,
  namespaceSources,
  OWN_ACCOUNT_OPERATION_IDS,
  READ_SCOPED_LIST_OPERATION_IDS,
  type NamespaceSource,
  type NamespacedRecord,
} from './namespaces.js';
export { operations, organizationOperations, EXTENSION_OPERATION_IDS, FLOW_SCHEMA_PATH, SendEmailRequest, type SendEmailBody } from './operations/index.js';
export { AUTH_KINDS, DEFAULT_DOCUMENT_VERSION, DEFAULT_SERVER_URL, buildOpenApiDocument, minRoleLabel, type OpenApiOptions } from './openapi.js';
export * as schemas from './schemas/index.js';
export { OPERATION_CURSORS } from './schemas/cursors.js';
// The runner protocol's wire types, derived from the schemas the gateway validates with.
export {
  COMPLETION_STATES,
  type RunnerCompletion,
  type RunnerHeartbeatResponse,
  type RunnerLogLine,
  type RunnerLogsRequest,
  type RunnerEventsRequest,
  type RunnerMetric,
  type RunnerSpec,
} from './schemas/runner.js';
// The API's shapes as TypeScript, generated from the document (scripts/generate-types.ts);
// clients that want only these import `@svc/api-spec/openapi-types`, and the
// typed openapi-fetch client is `@svc/api-spec/client`. (`operations` here is
// the catalog, so the generated per-operation types are `ApiOperations`.)
export type { components, paths, operations as ApiOperations } from './openapi-types.generated.js';
export type * from './api-types.js';
export type { AITurnEvent, AITurnEventData, AITurnEventName, AITurnSend } from './ai-turn-events.js';
