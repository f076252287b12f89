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
import type { Operation } from '@svc/api-spec';
import { newId, prismaOf, type Db } from '@svc/db';
import {
  authenticateOrganizationKey,
  organizationEmailStatus,
  parseMailbox,
  senderAllowed,
  senderRefusal,
  sendersOfOrganization,
  takeDailyQuota,
  takeOrganizationToken,
  type OrganizationPrincipal,
} from '@svc/identity';
import { RateLimitedError, reply, unauthorized, ValidationFailedError, type HandlerContext, type OperationHandlers } from '@svc/http';

/** Wakes the mail senders (a hint; they poll too). */
export const EMAIL_QUEUED_CHANNEL = 'svc_email_queued';

/** The operations that draw from the organization's rate pool: sending, not reading the status. */
const RATED = new Set(['sendEmail']);

export function orgKeyAuthenticator(db: Db, defaultRate: number) {
  return async (req: Request, op: Operation): Promise<OrganizationPrincipal> => {
    const m = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
    const principal = m ? await authenticateOrganizationKey(db.pool, m[1]!) : null;
    if (!principal) throw unauthorized('a valid organization key (Authorization: Bearer svc_live_...) is required');
    if (!RATED.has(op.operationId)) return principal;
    const wait = await takeOrganizationToken(db.pool, principal.organizationId, principal.rateLimit ?? defaultRate);
    if (wait > 0) throw new RateLimitedError(wait, 'rate_limit_exceeded', "the organization's request rate is used up; retry later");
    return principal;
  };
}

interface SendEmailBody {
  from: string;
  to: string;
  subject: string;
  text: string;
}

export interface EmailDeps {
  db: Db;
  now: () => Date;
  /** SVC_ORG_DAILY_QUOTA: emails per UTC day of an organization without its own quota. */
  dailyQuota: number;
  /** SVC_ORG_RATE_LIMIT, shown in the status of an organization without its own rate. */
  rateLimit: number;
}

/** Thrown inside the queueing transaction so that it rolls back; becomes the 429. */
class QuotaExceeded extends Error {
  constructor(
    readonly retryAfterSeconds: number,
    readonly limit: number,
  ) {
    super('daily quota used up');
  }
}

export function emailHandlers(deps: EmailDeps): OperationHandlers {
  return {
    async sendEmail({ body, principal }: HandlerContext) {
      const b = body as SendEmailBody;
      const who = principal as OrganizationPrincipal;
      const from = parseMailbox(b.from);
      if (!from) throw new ValidationFailedError([{ field: 'from', message: 'must be an address, or a display name and an address in angle brackets (Name <app@example.com>)' }]);
      if (!senderAllowed(from, await sendersOfOrganization(deps.db.pool, who.organizationId))) {
        throw new ValidationFailedError([{ field: 'from', message: senderRefusal(from) }], 'from is not a verified sender of this organization');
      }
      const quota = who.dailyQuota ?? deps.dailyQuota;
      const id = newId();
      try {
        await prismaOf(deps.db.pool).$transaction(async (tx) => {
          const take = await takeDailyQuota(tx, who.organizationId, quota);
          if (!take.taken) throw new QuotaExceeded(take.retryAfterSeconds, quota);
          await tx.email.create({ data: { id, organizationId: who.organizationId, keyId: who.keyId, fromAddress: b.from.trim(), toAddress: b.to, subject: b.subject, text: b.text } });
          await tx.$executeRaw`SELECT pg_notify(${EMAIL_QUEUED_CHANNEL}, ${id})`;
        });
      } catch (err) {
        if (!(err instanceof QuotaExceeded)) throw err;
        throw new RateLimitedError(
          err.retryAfterSeconds,
          'rate_limit_exceeded',
          `the organization's daily quota of ${err.limit} emails is used up; it resets at the next UTC midnight`,
        );
      }
      return reply(202, { id, status: 'queued' });
    },

    async getEmailStatus({ principal }: HandlerContext) {
      const who = principal as OrganizationPrincipal;
      return organizationEmailStatus(deps.db.pool, who.organizationId, { dailyQuota: deps.dailyQuota, rateLimit: deps.rateLimit }, deps.now());
    },
  };
}
