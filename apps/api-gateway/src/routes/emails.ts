// The organization email interface: POST /api/v1/emails with a bearer
// `svc_live_` key, and GET /api/v1/emails/status for the key's organization.
// The key is checked on every request (a revoked key fails at once, on every
// instance). A send takes one token from its organization's bucket in
// Postgres (shared by all its keys and every gateway; 429
// `rate_limit_exceeded` with Retry-After past it); the status read takes
// none. A send's `from` must be a verified sender of the organization (422
// `validation_failed`, field `from`), and the email counts against the
// organization's daily quota in the transaction that queues it (429
// `rate_limit_exceeded`, Retry-After until the next UTC midnight). An
// accepted email is a `queued` row; the mail sender (apps/maintenance)
// delivers it through SVC_SMTP_URL.
import type { Request } from 'express';
import type { Operation, SendEmailBody } from '@svc/api-spec';
import { newId, type Db } from '@svc/db';
import {
  authenticateOrganizationKey,
  organizationEmailStatus,
  parseMailbox,
  senderAllowed,
  senderRefusal,
  sendersOfOrganization,
  queueEmail,
  takeOrganizationToken,
  type OrganizationPrincipal,
} from '@svc/identity';
import { RateLimitedError, reply, unauthorized, ValidationFailedError, type HandlerContext, type UntypedHandlers } from '@svc/http';

/** The operations that draw from the organization's rate pool: sending, not reading the status. */
const RATED = new Set(['sendEmail']);

export function orgKeyAuthenticator(db: Db, defaultRate: number) {
  return async (req: Request, op: Operation): Promise<OrganizationPrincipal> => {
    const m = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
    const principal = m ? await authenticateOrganizationKey(db.pool, m[1]) : null;
    if (!principal) throw unauthorized('a valid organization key (Authorization: Bearer svc_live_...) is required');
    if (!RATED.has(op.operationId)) return principal;
    const wait = await takeOrganizationToken(db.pool, principal.organizationId, principal.rateLimit ?? defaultRate);
    if (wait > 0) throw new RateLimitedError(wait, 'rate_limit_exceeded', "the organization's request rate is used up; retry later");
    return principal;
  };
}

/**
 * The context of the organization email interface, outside the OpenAPI
 * document: its principal is the organization key's, which the mount
 * requires before a handler runs.
 */
type OrgCtx = HandlerContext<OrganizationPrincipal> & { principal: OrganizationPrincipal };
/** sendEmail's context: its body is the SendEmailRequest schema the validator checked. */
type EmailCtx = OrgCtx & { body: SendEmailBody };

export interface EmailDeps {
  db: Db;
  now: () => Date;
  /** SVC_ORG_DAILY_QUOTA: emails per UTC day of an organization without its own quota. */
  dailyQuota: number;
  /** SVC_ORG_RATE_LIMIT, shown in the status of an organization without its own rate. */
  rateLimit: number;
}

export function emailHandlers(deps: EmailDeps): UntypedHandlers<OrganizationPrincipal> {
  return {
    async sendEmail({ body: b, principal: who }: EmailCtx) {
      const from = parseMailbox(b.from);
      if (!from) throw new ValidationFailedError([{ field: 'from', message: 'must be an address, or a display name and an address in angle brackets (Name <app@example.com>)' }]);
      if (!senderAllowed(from, await sendersOfOrganization(deps.db.pool, who.organizationId))) {
        throw new ValidationFailedError([{ field: 'from', message: senderRefusal(from) }], 'from is not a verified sender of this organization');
      }
      const quota = who.dailyQuota ?? deps.dailyQuota;
      const id = newId();
      const take = await queueEmail(
        deps.db.pool,
        { id, organizationId: who.organizationId, keyId: who.keyId, from: b.from.trim(), to: b.to, subject: b.subject, text: b.text },
        quota,
      );
      if (!take.taken) {
        throw new RateLimitedError(
          take.retryAfterSeconds,
          'rate_limit_exceeded',
          `the organization's daily quota of ${quota} emails is used up; it resets at the next UTC midnight`,
        );
      }
      return reply(202, { id, status: 'queued' });
    },

    async getEmailStatus({ principal: who }: OrgCtx) {
      return organizationEmailStatus(deps.db.pool, who.organizationId, { dailyQuota: deps.dailyQuota, rateLimit: deps.rateLimit }, deps.now());
    },
  };
}
