// Schemas of the organizations admin operations (operations/organizations.ts):
// an organization with its keys (never the keys themselves), senders, quota
// and rate; a key as created (the only answer that holds it); a sent email
// without its text.
import { Type } from '@sinclair/typebox';
import { component, DateTime, Nullable } from './helpers.js';

export const OrganizationSender = component(
  'OrganizationSender',
  Type.Object({ kind: Type.Union([Type.Literal('domain'), Type.Literal('address')]), value: Type.String() }, { additionalProperties: false }),
);

export const OrganizationKey = component(
  'OrganizationKey',
  Type.Object(
    {
      id: Type.String(),
      prefix: Type.String({ description: 'The first characters of the key (svc_live_ and six more), to tell keys apart; the key itself is never returned again' }),
      name: Type.String(),
      created_at: DateTime(),
      last_used_at: Nullable(DateTime()),
      revoked_at: Nullable(DateTime()),
    },
    { additionalProperties: false },
  ),
);

export const Organization = component(
  'Organization',
  Type.Object(
    {
      id: Type.String(),
      name: Type.String(),
      created_at: DateTime(),
      daily_quota: Type.Object(
        {
          own: Nullable(Type.Integer({ description: "The organization's own quota; null: SVC_ORG_DAILY_QUOTA" })),
          limit: Type.Integer({ description: 'Emails per UTC day that apply' }),
          used_today: Type.Integer(),
        },
        { additionalProperties: false },
      ),
      rate_limit: Type.Object(
        { own: Nullable(Type.Number()), per_second: Type.Number({ description: 'Requests per second shared by all keys (own, else SVC_ORG_RATE_LIMIT)' }) },
        { additionalProperties: false },
      ),
      senders: Type.Array(OrganizationSender),
      namespaces: Type.Array(Type.String(), {
        description: 'Namespaces whose alert rules may send as the organization, each covering its children (`team` covers `team.etl`); empty: none',
      }),
      keys: Type.Array(OrganizationKey),
    },
    { additionalProperties: false },
  ),
);

export const OrganizationEmail = component(
  'OrganizationEmail',
  Type.Object(
    {
      id: Type.String(),
      key_id: Nullable(Type.String({ description: 'The key that sent it; null once that key is gone' })),
      from: Type.String(),
      to: Type.String(),
      subject: Type.String(),
      status: Type.String({ description: '`queued`, `sending`, `sent` or `failed`' }),
      attempts: Type.Integer(),
      error: Type.String({ description: 'The last delivery error; empty when none' }),
      created_at: DateTime(),
      sent_at: Nullable(DateTime()),
    },
    { additionalProperties: false },
  ),
);

export const CreatedOrganizationKey = component(
  'CreatedOrganizationKey',
  Type.Object(
    {
      id: Type.String(),
      key: Type.String({ description: 'The key, `svc_live_` and 43 characters: returned this once, stored only as its hash' }),
      prefix: Type.String(),
      name: Type.String(),
    },
    { additionalProperties: false },
  ),
);
