import type { Operation } from '../operation.js';
import { adminOperations, aiOperations } from './admin.js';
import { alertOperations } from './alerts.js';
import { authOperations } from './auth.js';
import { backfillOperations } from './backfills.js';
import { roleBindingOperations } from './role-bindings.js';
import { executionOperations } from './executions.js';
import { flowOperations } from './flows.js';
import { gitOperations } from './git.js';
import { namespaceOperations } from './namespaces.js';
import { organizationAdminOperations } from './organizations.js';
import { platformSecretOperations } from './platform-secrets.js';
import { hookOperations, runnerOperations } from './runner.js';
import { secretOperations } from './secrets.js';
import { ssoOperations } from './sso.js';

/**
 * The operation catalog: one entry per row of the spec's "Operation index".
 * Routes, role checks, validation and the OpenAPI document are all derived
 * from it. The two webhook rows have no operationId in the spec; they are
 * `webhookStart` (POST /hooks/{key}) and `gitPushWebhook` (POST /hooks/git/{sourceId}).
 */
export const operations: readonly Operation[] = Object.freeze([
  ...authOperations,
  ...executionOperations,
  ...flowOperations,
  ...namespaceOperations,
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
 * limits (issue #29, docs/operating/security.md), and the admin view of the
 * organizations of the email interface (issue #32, organizations.ts), and
 * backfills (issue #33, backfills.ts). The
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
  // Alert rules (issue #33, alerts.ts, docs/using/alerts.md).
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
  // Role bindings (issue #34, role-bindings.ts, docs/operating/roles.md).
  'listRoleBindings',
  'createRoleBinding',
  'deleteRoleBinding',
  // Single sign-on (issue #34, sso.ts, docs/operating/sso.md).
  'getSsoStatus',
  'getOidcSettings',
  'putOidcSettings',
  'deleteOidcSettings',
  'oidcLogout',
  // What a flow names outside its namespace (issue #40, namespaces.ts, docs/operating/roles.md).
  'setNamespaceAllowedCallers',
  'getOidcLink',
  'startOidcLink',
  // The audit export (issue #40, audit.ts, docs/using/api.md).
  'exportAuditEvents',
  // Platform secrets (issue #40, platform-secrets.ts, docs/operating/security.md).
  'listPlatformSecrets',
  'putPlatformSecret',
  'deletePlatformSecret',
]);

export { FLOW_SCHEMA_PATH } from './flows.js';
export { organizationOperations, SendEmailRequest, type SendEmailBody } from './emails.js';
