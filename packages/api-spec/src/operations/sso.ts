// Single sign-on through OpenID Connect: the admin's settings, what
// the login page needs, and the logout that also ends the IdP session. The
// browser's redirects to and from the IdP (GET /api/v1/sso/oidc/login and
// /callback) are navigations, not JSON operations: routes/sso.ts mounts them.
// Beyond the spec's operation index
// (EXTENSION_OPERATION_IDS, docs/operating/sso.md).
import type { Operation } from '../operation.js';
import { OidcSettings, OidcSettingsRequest, SsoLink, SsoLinkStart, SsoLogout, SsoStatus } from '../schemas/sso.js';
import { ADMIN, PUBLIC, VIEWER, err, noContent, ok } from './shared.js';

export const ssoOperations: Operation[] = [
  {
    operationId: 'getSsoStatus',
    method: 'get',
    path: '/api/v1/sso/status',
    tag: 'auth',
    summary: 'Whether single sign-on is offered, and the name on its button (for the login page)',
    auth: PUBLIC,
    request: {},
    responses: ok(SsoStatus),
  },
  {
    operationId: 'getOidcSettings',
    method: 'get',
    path: '/api/v1/sso/oidc',
    tag: 'auth',
    summary: 'The OpenID Connect settings (the client secret is named by its secret reference, never shown)',
    auth: ADMIN,
    request: {},
    responses: { ...ok(OidcSettings), ...err(404, 'Not configured') },
  },
  {
    operationId: 'putOidcSettings',
    method: 'put',
    path: '/api/v1/sso/oidc',
    tag: 'auth',
    summary: "Write the OpenID Connect settings; the issuer's discovery document is read first (audited)",
    auth: ADMIN,
    request: { body: OidcSettingsRequest },
    responses: { ...ok(OidcSettings), ...err(422, 'Invalid settings, an unknown secret, or an issuer whose discovery document cannot be read') },
  },
  {
    operationId: 'deleteOidcSettings',
    method: 'delete',
    path: '/api/v1/sso/oidc',
    tag: 'auth',
    summary: 'Remove the OpenID Connect settings (SSO users keep their accounts; audited)',
    auth: ADMIN,
    request: {},
    responses: { ...noContent('Removed'), ...err(404, 'Not configured') },
  },
  {
    operationId: 'getOidcLink',
    method: 'get',
    path: '/api/v1/sso/oidc/link',
    tag: 'auth',
    summary: "The IdP identities linked to the caller's own account",
    auth: VIEWER,
    request: {},
    responses: ok(SsoLink),
  },
  {
    operationId: 'startOidcLink',
    method: 'post',
    path: '/api/v1/sso/oidc/link',
    tag: 'auth',
    summary:
      "Start linking an IdP identity to the caller's own account (a browser session): answers the IdP's authorization URL; the callback links the identity that signs in there to this signed-in user (audited as user.sso_link)",
    auth: VIEWER,
    request: {},
    responses: { ...ok(SsoLinkStart), ...err(409, 'Single sign-on is not configured, or the caller is not signed in with a browser session') },
  },
  {
    operationId: 'oidcLogout',
    method: 'post',
    path: '/api/v1/sso/oidc/logout',
    tag: 'auth',
    summary: "Sign out: ends the svc session, and names the IdP's logout URL when it has one",
    auth: VIEWER,
    request: {},
    responses: ok(SsoLogout),
  },
];
