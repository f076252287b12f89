// The organization email interface (spec: "Organization email endpoint";
// docs/using/emails.md). Not a row of the operation
// index, so it is kept out of `operations` and of the OpenAPI document; the
// gateway mounts it with the same machinery (auth, 415, validation).
import { Type, type Static } from '@sinclair/typebox';
import type { Operation } from '../operation.js';
import { accepted, err, ok } from './shared.js';

/** An address as `local@domain.tld`: no spaces, angle brackets, commas or quotes (one recipient). */
const ADDRESS = '[^\\s@<>()",;:\\\\]+@[^\\s@<>()",;:\\\\]+\\.[^\\s@<>()",;:\\\\]+';
const Address = (description: string) => Type.String({ minLength: 3, maxLength: 320, pattern: `^${ADDRESS}$`, description });

export const SendEmailRequest = Type.Object(
  {
    // The gateway parses it further (@svc/identity parseMailbox) and checks it against the organization's verified senders.
    from: Type.String({
      minLength: 3,
      maxLength: 400,
      pattern: `^(?:${ADDRESS}|[^<>\\r\\n]*<${ADDRESS}>)$`,
      description:
        'Sender: an address, or a display name and an address (`Acme Billing <billing@acme.example>`); it must be a verified sender of the organization (an address, or an address at a verified domain, not a subdomain)',
    }),
    to: Address('Recipient address (one)'),
    subject: Type.String({ minLength: 1, maxLength: 998, pattern: '^[^\\r\\n]*$', description: 'One line (RFC 5322 line limit)' }),
    text: Type.String({ maxLength: 262_144, description: 'Plain-text body, at most 256 KiB' }),
  },
  { additionalProperties: false },
);

/** The body of sendEmail, as validated: the handler's `ctx.body` (the interface is outside the OpenAPI document and its generated types). */
export type SendEmailBody = Static<typeof SendEmailRequest>;

const EmailStatus = Type.Object(
  {
    organization: Type.Object({ id: Type.String(), name: Type.String() }),
    senders: Type.Array(Type.Object({ kind: Type.Union([Type.Literal('domain'), Type.Literal('address')]), value: Type.String() }), {
      description: 'Verified senders: a domain covers addresses at that domain only (not its subdomains); an address matches exactly',
    }),
    daily_quota: Type.Object({
      limit: Type.Integer({ description: 'Emails per UTC day' }),
      used_today: Type.Integer(),
      remaining: Type.Integer(),
      resets_at: Type.String({ description: 'The next UTC midnight (ISO 8601)' }),
    }),
    rate_limit: Type.Object({ per_second: Type.Number({ description: 'Requests per second shared by all keys of the organization' }) }),
    sending: Type.Object({
      configured: Type.Boolean({ description: 'A maintenance instance with SVC_SMTP_URL is running' }),
      waiting: Type.Integer({ description: 'Emails of the organization queued or being sent' }),
      detail: Type.Optional(Type.String()),
    }),
  },
  { additionalProperties: false },
);

export const organizationOperations: Operation[] = [
  {
    operationId: 'sendEmail',
    method: 'post',
    path: '/api/v1/emails',
    tag: 'emails',
    summary: 'Queue an email for delivery through SVC_SMTP_URL',
    auth: { kind: 'org_key' },
    request: { body: SendEmailRequest, bodyLimit: 300 * 1024 },
    responses: {
      ...accepted(Type.Object({ id: Type.String(), status: Type.Literal('queued') }), 'Queued'),
      ...err(401, 'Missing, unknown or revoked organization key'),
      ...err(415, 'The body is not JSON'),
      ...err(422, 'A field is missing or malformed (one detail per field), or `from` is not a verified sender of the organization (field `from`)'),
      429: {
        description:
          "The organization's shared rate (SVC_ORG_RATE_LIMIT) or its daily quota (SVC_ORG_DAILY_QUOTA, or its own) is used up (code `rate_limit_exceeded`); for the quota Retry-After runs to the next UTC midnight",
        headers: { 'Retry-After': 'Seconds to wait' },
      },
    },
  },
  {
    operationId: 'getEmailStatus',
    method: 'get',
    path: '/api/v1/emails/status',
    tag: 'emails',
    summary: "The key's organization: its verified senders, daily quota and today's use, rate limit, and whether email sending is configured (takes no rate-limit token)",
    auth: { kind: 'org_key' },
    request: {},
    responses: {
      ...ok(EmailStatus, 'Status of the organization'),
      ...err(401, 'Missing, unknown or revoked organization key'),
    },
  },
];
