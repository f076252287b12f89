// Platform secrets: the credentials of the git sources
// (credential_secret_key, webhook_secret_key) and of single sign-on
// (client_secret_secret). A store of their own that `secret()` and every
// other resolver of secret references never read, written by admins only,
// every change audited (`platform_secret.set`, `platform_secret.delete`).
// Beyond the spec's operation index (EXTENSION_OPERATION_IDS,
// docs/operating/security.md "Platform credentials").
import type { Operation } from '../operation.js';
import { OPERATION_CURSORS } from '../schemas/cursors.js';
import { Page } from '../schemas/helpers.js';
import { PlatformSecret, PlatformSecretName, PutPlatformSecretRequest } from '../schemas/platform-secrets.js';
import { ListQuery, Params } from '../schemas/requests.js';
import { ADMIN, err, noContent, ok } from './shared.js';

const Name = Params({ name: PlatformSecretName });

export const platformSecretOperations: Operation[] = [
  {
    operationId: 'listPlatformSecrets',
    method: 'get',
    path: '/api/v1/platform-secrets',
    tag: 'secrets',
    summary: 'Names of the platform secrets (never values), and whether a flow-readable global secret has the same name',
    auth: ADMIN,
    globalRoleOnly: true,
    request: { query: ListQuery, cursor: OPERATION_CURSORS.listPlatformSecrets },
    responses: ok(Page(PlatformSecret)),
  },
  {
    operationId: 'putPlatformSecret',
    method: 'put',
    path: '/api/v1/platform-secrets/{name}',
    tag: 'secrets',
    summary: 'Create or replace a platform secret (a credential of the git sources or single sign-on; no flow can read it)',
    auth: ADMIN,
    globalRoleOnly: true,
    request: { params: Name, body: PutPlatformSecretRequest },
    responses: { ...ok(PlatformSecret), ...err(409, '`builtin_provider_disabled`: SVC_MASTER_KEYS is empty') },
  },
  {
    operationId: 'deletePlatformSecret',
    method: 'delete',
    path: '/api/v1/platform-secrets/{name}',
    tag: 'secrets',
    summary: 'Delete a platform secret (a git source or the SSO settings naming it stop authenticating)',
    auth: ADMIN,
    globalRoleOnly: true,
    request: { params: Name },
    responses: { ...noContent('Deleted'), ...err(404, 'No such platform secret') },
  },
];
