// Schemas of single sign-on (operations/sso.ts): the OpenID Connect
// settings an admin writes, what the login page may know, and the logout answer.
import { Type } from '@sinclair/typebox';
import { component, DateTime, Nullable } from './helpers.js';
import { RoleSchema } from './entities.js';

const closed = { additionalProperties: false } as const;

const GroupRole = Type.Object(
  {
    group: Type.String({ minLength: 1, maxLength: 255, description: 'A value of the groups claim' }),
    role: RoleSchema,
  },
  closed,
);

const settingsFields = {
  enabled: Type.Boolean({ description: 'Whether "Sign in with <display_name>" is offered' }),
  display_name: Type.String({ minLength: 1, maxLength: 60, description: 'The name on the login button' }),
  issuer_url: Type.String({
    minLength: 1,
    maxLength: 1024,
    description: 'The issuer identifier; its /.well-known/openid-configuration is read (https, or http on a loopback address)',
  }),
  client_id: Type.String({ minLength: 1, maxLength: 255 }),
  client_secret_secret: Type.String({
    minLength: 1,
    maxLength: 1350,
    description:
      'The name of the platform secret (PUT /api/v1/platform-secrets/{name}) that holds the client secret; a global or namespace secret or a provider reference, which flows can read, is 422. The value is never shown',
  }),
  scopes: Type.Array(Type.String({ minLength: 1, maxLength: 100, pattern: '^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$' }), {
    maxItems: 20,
    description: 'Requested scopes; `openid` is always added',
  }),
  groups_claim: Type.String({ minLength: 1, maxLength: 100, description: 'The ID token or userinfo claim that holds the groups (a dotted path such as `realm_access.roles`)' }),
  password_login_disabled: Type.Boolean({ description: 'Users who signed in through SSO may not sign in with a password' }),
  default_role: RoleSchema,
  group_roles: Type.Array(GroupRole, {
    maxItems: 200,
    description: 'IdP group → global role; at every SSO login the user gets the highest role of their groups, else default_role',
  }),
  link_by_email: Type.Boolean({
    description:
      "An IdP identity not linked yet whose verified email is an existing user's is linked to that user at login. Never to an admin. Off (the default): such a login is refused (`link_required`) and the user links the identity from their profile",
  }),
  allowed_email_domains: Type.Array(Type.String({ minLength: 1, maxLength: 253, pattern: '^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$' }), {
    maxItems: 100,
    description: "Lower-case email domains (exact, no subdomains) an SSO login's email must have; empty: any",
  }),
  google_hd: Type.String({ maxLength: 253, description: "The Google Workspace domain every ID token's `hd` claim must equal; empty: not checked" }),
  entra_tid: Type.String({ maxLength: 64, description: "The Microsoft Entra tenant id every ID token's `tid` claim must equal; empty: not checked" }),
  existing_users_only: Type.Boolean({ description: 'An SSO login never creates a user: only users already linked (or linked now by email) sign in' }),
  session_max_age_seconds: Nullable(
    Type.Integer({
      minimum: 300,
      maximum: 31_536_000,
      description: 'A session an SSO login creates ends this long after the login, however it is used; null: only SVC_SESSION_TTL after its last use',
    }),
  ),
};

export const OidcSettingsRequest = component(
  'OidcSettingsRequest',
  Type.Object(
    {
      ...settingsFields,
      scopes: Type.Optional(settingsFields.scopes),
      groups_claim: Type.Optional(settingsFields.groups_claim),
      password_login_disabled: Type.Optional(settingsFields.password_login_disabled),
      default_role: Type.Optional(settingsFields.default_role),
      group_roles: Type.Optional(settingsFields.group_roles),
      enabled: Type.Optional(settingsFields.enabled),
      link_by_email: Type.Optional(settingsFields.link_by_email),
      allowed_email_domains: Type.Optional(settingsFields.allowed_email_domains),
      google_hd: Type.Optional(settingsFields.google_hd),
      entra_tid: Type.Optional(settingsFields.entra_tid),
      existing_users_only: Type.Optional(settingsFields.existing_users_only),
      session_max_age_seconds: Type.Optional(settingsFields.session_max_age_seconds),
    },
    {
      ...closed,
      description:
        'Omitted fields take their defaults, except `default_role` and the sign-up controls (`link_by_email`, `allowed_email_domains`, `google_hd`, `entra_tid`, `existing_users_only`, `session_max_age_seconds`), which keep their stored values when omitted (defaults for new settings: `none`, off, empty, null)',
    },
  ),
);

export const OidcSettings = component(
  'OidcSettings',
  Type.Object(
    {
      ...settingsFields,
      redirect_uri: Type.String({ description: 'The redirect URI to register at the IdP' }),
      updated_by: Type.String(),
      updated_at: DateTime(),
    },
    closed,
  ),
);

export const SsoStatus = component(
  'SsoStatus',
  Type.Object(
    {
      oidc: Type.Boolean({ description: 'Whether OpenID Connect login is offered' }),
      display_name: Type.Optional(Type.String()),
      login_url: Type.Optional(Type.String({ description: 'Where the browser goes to sign in' })),
    },
    closed,
  ),
);

export const SsoLogout = component(
  'SsoLogout',
  Type.Object(
    {
      end_session_url: Type.Optional(Type.String({ description: "The IdP's RP-initiated logout URL, when it has one: the browser goes there next" })),
    },
    closed,
  ),
);

export const SsoLink = component(
  'SsoLink',
  Type.Object(
    {
      offered: Type.Boolean({ description: 'Whether single sign-on is configured and enabled, so an identity can be linked' }),
      identities: Type.Array(
        Type.Object(
          {
            issuer: Type.String(),
            linked_at: DateTime(),
            last_login_at: Nullable(DateTime()),
          },
          closed,
        ),
        { description: "The IdP identities linked to the caller's account" },
      ),
    },
    closed,
  ),
);

export const SsoLinkStart = component(
  'SsoLinkStart',
  Type.Object(
    {
      authorization_url: Type.String({ description: "The IdP's authorization URL: the browser goes there next; the answer also sets the svc_oidc cookie of the login" }),
    },
    closed,
  ),
);
