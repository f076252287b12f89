import type { Operation } from '../operation.js';
import { adminOperations, aiOperations } from './admin.js';
import { alertOperations } from './alerts.js';
import { authOperations } from './auth.js';
import { backfillOperations } from './backfills.js';
import { bulkExecutionOperations } from './bulk.js';
import { roleBindingOperations } from './role-bindings.js';
import { executionOperations } from './executions.js';
import { replayOperations } from './replay.js';
import { flowOperations } from './flows.js';
import { gitOperations } from './git.js';
import { namespaceOperations } from './namespaces.js';
import { organizationAdminOperations } from './organizations.js';
import { platformSecretOperations } from './platform-secrets.js';
import { hookOperations, runnerOperations } from './runner.js';
import { secretOperations } from './secrets.js';
import { ssoOperations } from './sso.js';
import { uploadOperations } from './uploads.js';

/**
 * The operation catalog: one entry per row of the spec's "Operation index".
 * Routes, role checks, validation and the OpenAPI document are all derived
 * from it. The two webhook rows have no operationId in the spec; they are
 * `webhookStart` (POST /hooks/{key}) and `gitPushWebhook` (POST /hooks/git/{sourceId}).
 */
export const operations: readonly Operation[] = Object.freeze([
  ...authOperations,
  ...executionOperations,
  ...replayOperations,
  ...bulkExecutionOperations,
  ...flowOperations,
  ...namespaceOperations,
  ...uploadOperations,
  ...secretOperations,
  ...platformSecretOperations,
  ...gitOperations,
  ...adminOperations,
  ...aiOperations,
  ...organizationAdminOperations,
  ...alertOperations,
  ...backfillOperations,
  ...roleBindingOperations,
  ...ssoOperations,
  ...runnerOperations,
  ...hookOperations,
]);

/**
 * Operations of the catalog beyond the spec's "Operation index", each for a
 * reason written down in the docs: getAIUsage, the admin view of the daily AI
 * limits (docs/operating/security.md), and the admin view of the
 * organizations of the email interface (organizations.ts), and
 * backfills (backfills.ts). The
 * tests that compare the document with the index expect exactly these on top
 * of it.
 */
export const EXTENSION_OPERATION_IDS: readonly string[] = Object.freeze([
  'getAIUsage',
  'listOrganizations',
  'createOrganization',
  'updateOrganization',
  'createOrganizationKey',
  'revokeOrganizationKey',
  'addOrganizationSender',
  'removeOrganizationSender',
  'listOrganizationEmails',
  // Alert rules (alerts.ts, docs/using/alerts.md).
  'listAlertRules',
  'createAlertRule',
  'getAlertRule',
  'updateAlertRule',
  'deleteAlertRule',
  'listAlertDeliveries',
  'createBackfill',
  'listBackfills',
  'getBackfill',
  'pauseBackfill',
  'resumeBackfill',
  'cancelBackfill',
  // Role bindings (role-bindings.ts, docs/operating/roles.md).
  'listRoleBindings',
  'createRoleBinding',
  'deleteRoleBinding',
  // Single sign-on (sso.ts, docs/operating/sso.md).
  'getSsoStatus',
  'getOidcSettings',
  'putOidcSettings',
  'deleteOidcSettings',
  'oidcLogout',
  // What a flow names outside its namespace (namespaces.ts, docs/operating/roles.md).
  'setNamespaceAllowedCallers',
  'getOidcLink',
  'startOidcLink',
  // The audit export (audit.ts, docs/using/api.md).
  'exportAuditEvents',
  // Files between tasks and file inputs (runner.ts, uploads.ts, docs/using/files.md).
  'runnerGetFile',
  'createUpload',
  // Platform secrets (platform-secrets.ts, docs/operating/security.md).
  'listPlatformSecrets',
  'putPlatformSecret',
  'deletePlatformSecret',
  // Approval gates, pause and resume (executions.ts, docs/using/approvals.md).
  'approveTaskRun',
  'rejectTaskRun',
  'pauseExecution',
  'resumeExecution',
  // Replay (replay.ts, docs/using/executions.md#replay).
  'replayExecution',
  // Bulk actions on executions (bulk.ts, docs/using/executions.md).
  'bulkExecutions',
  // Batch trigger (flows.ts, docs/using/executions.md#batch-trigger).
  'triggerFlowBatch',
]);

export { FLOW_SCHEMA_PATH } from './flows.js';
export { organizationOperations, SendEmailRequest, type SendEmailBody } from './emails.js';
