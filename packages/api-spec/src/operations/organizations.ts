// The admin view of the organization email interface: the
// organizations, their `svc_live_` keys (a key is returned once, by
// createOrganizationKey, and stored only as its hash), verified senders,
// daily quotas and the emails they sent. Beyond the spec's operation index
// (EXTENSION_OPERATION_IDS, docs/behaviour/choices.md); the same rows the
// `svc org` CLI writes on the database.
import { Type } from '@sinclair/typebox';
import type { Operation } from '../operation.js';
import { OPERATION_CURSORS } from '../schemas/cursors.js';
import { Nullable, Page } from '../schemas/helpers.js';
import { CreatedOrganizationKey, Organization, OrganizationEmail, OrganizationSender } from '../schemas/organizations.js';
import { ListQuery, NamespaceName, OpaqueId, Params } from '../schemas/requests.js';
import { ADMIN, created, err, noContent, ok } from './shared.js';

/** What `svc org create` accepts (@svc/identity ORG_NAME_PATTERN). */
const OrganizationName = Type.String({ minLength: 1, maxLength: 63, pattern: '^[a-z0-9][a-z0-9._-]{0,62}$' });
const OrgParams = Params({ organization: OrganizationName });

const noOrganization = err(404, 'No such organization');

export const organizationAdminOperations: Operation[] = [
  {
    operationId: 'listOrganizations',
    method: 'get',
    path: '/api/v1/organizations',
    tag: 'organizations',
    summary: "Organizations of the email interface by name: keys (never the keys themselves), senders, quota and today's use, rate limit",
    auth: ADMIN,
    request: { query: ListQuery, cursor: OPERATION_CURSORS.listOrganizations },
    responses: ok(Page(Organization)),
  },
  {
    operationId: 'createOrganization',
    method: 'post',
    path: '/api/v1/organizations',
    tag: 'organizations',
    summary: 'Create an organization (as `svc org create`)',
    auth: ADMIN,
    request: { body: Type.Object({ name: OrganizationName }, { additionalProperties: false }) },
    responses: { ...created(Organization), ...err(409, 'An organization of that name exists') },
  },
  {
    operationId: 'updateOrganization',
    method: 'patch',
    path: '/api/v1/organizations/{organization}',
    tag: 'organizations',
    summary:
      "Set the organization's daily quota (0 stops its email; null for SVC_ORG_DAILY_QUOTA) and the namespaces whose alert rules may send as it (the whole list; each covers its children)",
    auth: ADMIN,
    request: {
      params: OrgParams,
      body: Type.Object(
        {
          daily_quota: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 2_147_483_647, description: 'Emails per UTC day' }))),
          namespaces: Type.Optional(
            Type.Array(NamespaceName, {
              maxItems: 100,
              description: 'Replaces the list: namespaces whose alert rules may name the organization in an email channel, each with its children; [] allows none',
            }),
          ),
        },
        { additionalProperties: false, minProperties: 1 },
      ),
    },
    responses: { ...ok(Organization), ...noOrganization },
  },
  {
    operationId: 'createOrganizationKey',
    method: 'post',
    path: '/api/v1/organizations/{organization}/keys',
    tag: 'organizations',
    summary: 'Create a `svc_live_` key; the answer holds the key, shown this once',
    auth: ADMIN,
    request: { params: OrgParams, body: Type.Object({ name: Type.Optional(Type.String({ maxLength: 100 })) }, { additionalProperties: false }), bodyRequired: false },
    responses: { ...created(CreatedOrganizationKey), ...noOrganization },
  },
  {
    operationId: 'revokeOrganizationKey',
    method: 'delete',
    path: '/api/v1/organizations/{organization}/keys/{keyId}',
    tag: 'organizations',
    summary: 'Revoke a key at once (its next request is 401 on every gateway)',
    auth: ADMIN,
    request: { params: Params({ organization: OrganizationName, keyId: OpaqueId }) },
    responses: { ...noContent('Revoked'), ...err(404, 'No such organization or key') },
  },
  {
    operationId: 'addOrganizationSender',
    method: 'post',
    path: '/api/v1/organizations/{organization}/senders',
    tag: 'organizations',
    summary: 'Add a verified sender: a domain (acme.example, not its subdomains) or an address',
    auth: ADMIN,
    request: { params: OrgParams, body: Type.Object({ value: Type.String({ minLength: 1, maxLength: 320 }) }, { additionalProperties: false }) },
    responses: { ...created(OrganizationSender), ...noOrganization },
  },
  {
    operationId: 'removeOrganizationSender',
    method: 'delete',
    path: '/api/v1/organizations/{organization}/senders/{sender}',
    tag: 'organizations',
    summary: 'Remove a verified sender (the next email from it is refused)',
    auth: ADMIN,
    request: { params: Params({ organization: OrganizationName, sender: Type.String({ minLength: 1, maxLength: 320 }) }) },
    responses: { ...noContent('Removed'), ...err(404, 'No such organization or sender') },
  },
  {
    operationId: 'listOrganizationEmails',
    method: 'get',
    path: '/api/v1/organizations/{organization}/emails',
    tag: 'organizations',
    summary: 'Emails the organization sent, newest first, with their delivery status (not their text)',
    auth: ADMIN,
    request: { params: OrgParams, query: ListQuery, cursor: OPERATION_CURSORS.listOrganizationEmails },
    responses: { ...ok(Page(OrganizationEmail)), ...noOrganization },
  },
];
