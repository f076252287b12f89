// The organization email interface (spec: "Organization email endpoint";
// decisions.md "Organization email interface"). Not a row of the operation
// index, so it is kept out of `operations` and of the OpenAPI document; the
// gateway mounts it with the same machinery (auth, 415, validation).
import { Type } from '@sinclair/typebox';
import type { Operation } from '../operation.js';
import { accepted, err } from './shared.js';

/** An address as `local@domain.tld`: no spaces, angle brackets, commas or quotes (one recipient). */
const Address = (description: string) =>
  Type.String({ minLength: 3, maxLength: 320, pattern: '^[^\\s@<>()",;:\\\\]+@[^\\s@<>()",;:\\\\]+\\.[^\\s@<>()",;:\\\\]+$', description });

export const SendEmailRequest = Type.Object(
  {
    from: Address('Sender address'),
    to: Address('Recipient address (one)'),
    subject: Type.String({ minLength: 1, maxLength: 998, pattern: '^[^\\r\\n]*$', description: 'One line (RFC 5322 line limit)' }),
    text: Type.String({ maxLength: 262_144, description: 'Plain-text body, at most 256 KiB' }),
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
      ...err(422, 'A field is missing or malformed (one detail per field)'),
      429: { description: "The organization's shared rate (SVC_ORG_RATE_LIMIT) is used up (code `rate_limit_exceeded`)", headers: { 'Retry-After': 'Seconds to wait' } },
    },
  },
];
