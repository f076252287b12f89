import type { Operation } from '../operation.js';
import { adminOperations, aiOperations } from './admin.js';
import { authOperations } from './auth.js';
import { executionOperations } from './executions.js';
import { flowOperations } from './flows.js';
import { gitOperations } from './git.js';
import { namespaceOperations } from './namespaces.js';
import { hookOperations, runnerOperations } from './runner.js';
import { secretOperations } from './secrets.js';

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
  ...gitOperations,
  ...adminOperations,
  ...aiOperations,
  ...runnerOperations,
  ...hookOperations,
]);

export { FLOW_SCHEMA_PATH } from './flows.js';
export { organizationOperations, SendEmailRequest } from './emails.js';
