// The organization email interface: POST /api/v1/emails with a bearer
// `svc_live_` key. The key is checked on every request (a revoked key fails
// at once, on every instance) and takes one token from its organization's
// bucket in Postgres (shared by all its keys and every gateway; 429
// `rate_limit_exceeded` with Retry-After past it). An accepted email is a
// `queued` row; the mail sender (apps/maintenance) delivers it through
// SVC_SMTP_URL.
import type { Request } from 'express';
import { newId, prismaOf, type Db } from '@svc/db';
import { authenticateOrganizationKey, takeOrganizationToken, type OrganizationPrincipal } from '@svc/identity';
import { RateLimitedError, reply, unauthorized, type HandlerContext, type OperationHandlers } from '@svc/http';

/** Wakes the mail senders (a hint; they poll too). */
export const EMAIL_QUEUED_CHANNEL = 'svc_email_queued';

export function orgKeyAuthenticator(db: Db, defaultRate: number) {
  return async (req: Request): Promise<OrganizationPrincipal> => {
    const m = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
    const principal = m ? await authenticateOrganizationKey(db.pool, m[1]!) : null;
    if (!principal) throw unauthorized('a valid organization key (Authorization: Bearer svc_live_...) is required');
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

export function emailHandlers(deps: { db: Db }): OperationHandlers {
  return {
    async sendEmail({ body, principal }: HandlerContext) {
      const b = body as SendEmailBody;
      const who = principal as OrganizationPrincipal;
      const id = newId();
      await prismaOf(deps.db.pool).$transaction(async (tx) => {
        await tx.email.create({ data: { id, organizationId: who.organizationId, keyId: who.keyId, fromAddress: b.from, toAddress: b.to, subject: b.subject, text: b.text } });
        await tx.$executeRaw`SELECT pg_notify(${EMAIL_QUEUED_CHANNEL}, ${id})`;
      });
      return reply(202, { id, status: 'queued' });
    },
  };
}
