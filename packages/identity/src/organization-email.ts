// The rules of an organization's email, stored: its verified senders
// (email-senders.ts matches them), its daily quota and the per-day counter,
// and what its status report shows. Senders and quotas are set by the
// `svc org` CLI on the database; the api-gateway reads them on every email.
//
// The daily quota counts emails accepted per UTC day (the database's clock),
// one row per organization and day, taken with one conditional upsert in the
// transaction that queues the email: concurrent requests on any gateway
// serialize on the row, so the quota is never overshot, and a request refused
// for another reason (a sender outside the rules) uses none of it.
import { exactTimeText, newId, Prisma, prismaOf, type PrismaDb } from '@svc/db';
import { enqueueEmail } from './email-queue.js';
import { parseSenderRule, type SenderRule } from './email-senders.js';
import { OrganizationError } from './organization-error.js';
import type { IdentityDb } from './users.js';

/** A mail sender not seen for this long no longer counts as "sending configured". */
export const MAIL_SENDER_STALE_SECONDS = 60;

async function orgId(db: IdentityDb, orgName: string): Promise<string> {
  const org = await prismaOf(db).organization.findUnique({ where: { name: orgName }, select: { id: true } });
  if (!org) throw new OrganizationError('not_found', `no organization ${orgName}`);
  return org.id;
}

function rule(text: string): SenderRule {
  const r = parseSenderRule(text);
  if (!r) throw new OrganizationError('invalid_sender', `sender ${JSON.stringify(text)}: a domain (acme.example) or an address (billing@acme.example)`);
  return r;
}

/** Adds a verified sender (a domain or an address); adding one twice is a no-op. */
export async function addOrganizationSender(db: IdentityDb, orgName: string, text: string, now = new Date()): Promise<SenderRule> {
  const r = rule(text);
  const organizationId = await orgId(db, orgName);
  await prismaOf(db).organizationSender.upsert({
    where: { organizationId_value: { organizationId, value: r.value } },
    create: { id: newId(), organizationId, kind: r.kind, value: r.value, createdAt: now },
    update: {},
  });
  return r;
}

/** Removes a verified sender; false when the organization had no such sender. */
export async function removeOrganizationSender(db: IdentityDb, orgName: string, text: string): Promise<boolean> {
  const r = rule(text);
  const organizationId = await orgId(db, orgName);
  const { count } = await prismaOf(db).organizationSender.deleteMany({ where: { organizationId, value: r.value } });
  return count > 0;
}

/** The verified senders of an organization (by id), domains first. */
export async function sendersOfOrganization(db: IdentityDb, organizationId: string): Promise<SenderRule[]> {
  const rows = await prismaOf(db).organizationSender.findMany({ where: { organizationId }, orderBy: [{ kind: 'asc' }, { value: 'asc' }], select: { kind: true, value: true } });
  return rows.map((s) => ({ kind: s.kind as SenderRule['kind'], value: s.value }));
}

export async function listOrganizationSenders(db: IdentityDb, orgName: string): Promise<SenderRule[]> {
  return sendersOfOrganization(db, await orgId(db, orgName));
}

/** Sets the organization's daily quota (emails per UTC day, 0 stops its email), or null for SVC_ORG_DAILY_QUOTA. */
export async function setOrganizationDailyQuota(db: IdentityDb, orgName: string, quota: number | null): Promise<void> {
  if (quota !== null && !(Number.isSafeInteger(quota) && quota >= 0 && quota <= 2_147_483_647)) {
    throw new OrganizationError('invalid_quota', `quota ${quota}: a whole number of emails per day, 0 or more`);
  }
  await prismaOf(db).organization.update({ where: { id: await orgId(db, orgName) }, data: { dailyQuota: quota } });
}

/** `already`: an email with this id was queued before (a retry of the caller), so none was written and no quota was used. */
export type QuotaTake = { taken: true; used: number; already?: true } | { taken: false; used: number; retryAfterSeconds: number };

/**
 * Counts one email against today's quota (UTC, the database's clock), unless
 * `quota` are already counted. Run it in the transaction that queues the
 * email, so a rollback gives the unit back. When refused, `retryAfterSeconds`
 * runs to the next UTC midnight.
 */
export async function takeDailyQuota(db: IdentityDb, organizationId: string, quota: number): Promise<QuotaTake> {
  const prisma = prismaOf(db);
  const taken = await prisma.$queryRaw<{ count: number }[]>`
    INSERT INTO org_email_usage AS u (organization_id, day, count)
    SELECT ${organizationId}, (now() AT TIME ZONE 'UTC')::date, 1 WHERE ${quota}::int >= 1
    ON CONFLICT (organization_id, day) DO UPDATE SET count = u.count + 1 WHERE u.count < ${quota}::int
    RETURNING u.count`;
  if (taken.length) return { taken: true, used: Number(taken[0].count) };
  const r = await prisma.$queryRaw<{ used: number; wait: number }[]>`
    SELECT COALESCE((SELECT count FROM org_email_usage WHERE organization_id = ${organizationId} AND day = (now() AT TIME ZONE 'UTC')::date), 0)::int AS used,
           extract(epoch FROM date_trunc('day', now() AT TIME ZONE 'UTC') + interval '1 day' - (now() AT TIME ZONE 'UTC'))::float8 AS wait`;
  return { taken: false, used: Number(r[0].used), retryAfterSeconds: Number(r[0].wait) };
}

/** Statements of the email queue run on a Prisma transaction (its raw queries, parameters bound). */
function rawQueryable(tx: Pick<PrismaDb, '$queryRawUnsafe'>) {
  return {
    async query(text: string, values: unknown[]) {
      const rows = await tx.$queryRawUnsafe<unknown[]>(text, ...values);
      return { rows, rowCount: rows.length };
    },
  };
}

/** An email to queue for an organization (the sendEmail body, checked). */
export interface QueuedEmail {
  id: string;
  organizationId: string;
  /** The key that sent it; null for the service's own emails (alerts). */
  keyId: string | null;
  from: string;
  to: string;
  subject: string;
  text: string;
}

/** Thrown inside queueEmail's transaction to roll it back: the daily quota is used up, or the email was queued before. */
class QuotaRefused extends Error {
  constructor() {
    super('the daily quota is used up');
  }
}
class AlreadyQueued extends Error {
  constructor() {
    super('an email with this id is queued already');
  }
}

/**
 * Queues an email: in one transaction, one unit of the organization's daily
 * quota (`quota` emails per UTC day), and the email enqueued (email-queue.ts)
 * with its id as the key, which wakes a mail sender. Refused (nothing
 * written) when the quota is used up; nothing written, and no quota used,
 * when an email with its id was queued before (`already`).
 */
export async function queueEmail(db: IdentityDb, e: QueuedEmail, quota: number): Promise<QuotaTake> {
  let take: QuotaTake = { taken: false, used: 0, retryAfterSeconds: 0 };
  try {
    await prismaOf(db).$transaction(async (tx) => {
      take = await takeDailyQuota(tx, e.organizationId, quota);
      if (!take.taken) throw new QuotaRefused();
      if (!(await enqueueEmail(rawQueryable(tx), e))) throw new AlreadyQueued();
    });
  } catch (err) {
    // The refusals are thrown to roll the transaction back.
    if (err instanceof AlreadyQueued) return { taken: true, used: take.used - 1, already: true };
    if (!(err instanceof QuotaRefused)) throw err;
  }
  return take;
}

/** Emails counted today (UTC) per organization id; absent ids counted none. */
export async function emailsUsedToday(db: IdentityDb, organizationIds: string[]): Promise<Map<string, number>> {
  const rows = await prismaOf(db).$queryRaw<{ organization_id: string; count: number }[]>`
    SELECT organization_id, count FROM org_email_usage WHERE organization_id = ANY(${organizationIds}) AND day = (now() AT TIME ZONE 'UTC')::date`;
  return new Map(rows.map((r) => [r.organization_id, Number(r.count)]));
}

/** Mail senders (maintenance instances with SVC_SMTP_URL) seen within MAIL_SENDER_STALE_SECONDS. */
export async function mailSendersRunning(db: IdentityDb): Promise<number> {
  const r = await prismaOf(db).$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n FROM mail_sender_instances WHERE seen_at > now() - ${MAIL_SENDER_STALE_SECONDS} * interval '1 second'`;
  return r[0]?.n ?? 0;
}

/** Whether a mail sender runs (mailSendersRunning above 0). */
export async function mailSendingConfigured(db: IdentityDb): Promise<boolean> {
  return (await mailSendersRunning(db)) > 0;
}

/** Emails waiting to be sent (queued or being sent), of one organization or of all. */
export async function emailsWaiting(db: IdentityDb, organizationId?: string): Promise<number> {
  return prismaOf(db).email.count({ where: { status: { in: ['queued', 'sending'] }, ...(organizationId ? { organizationId } : {}) } });
}

/** The readiness detail when no mail sender runs: null when one does (or nothing waits for one). */
export async function mailReadinessDetail(db: IdentityDb): Promise<string | null> {
  if (await mailSendingConfigured(db)) return null;
  const waiting = await emailsWaiting(db);
  return `not configured: no maintenance instance with SVC_SMTP_URL is running; ${waiting} email(s) queued and waiting`;
}

export interface OrganizationEmailStatus {
  organization: { id: string; name: string };
  senders: SenderRule[];
  daily_quota: { limit: number; used_today: number; remaining: number; resets_at: string };
  rate_limit: { per_second: number };
  sending: { configured: boolean; waiting: number; detail?: string };
}

/** What an organization key sees of its organization (GET /api/v1/emails/status). No key, no SMTP URL. */
export async function organizationEmailStatus(
  db: IdentityDb,
  organizationId: string,
  defaults: { dailyQuota: number; rateLimit: number },
  now: Date,
): Promise<OrganizationEmailStatus> {
  const prisma = prismaOf(db);
  const org = await prisma.organization.findUniqueOrThrow({ where: { id: organizationId }, select: { id: true, name: true, dailyQuota: true, rateLimit: true } });
  const [senders, used, configured, waiting] = await Promise.all([
    sendersOfOrganization(db, organizationId),
    emailsUsedToday(db, [organizationId]),
    mailSendingConfigured(db),
    emailsWaiting(db, organizationId),
  ]);
  const limit = org.dailyQuota ?? defaults.dailyQuota;
  const usedToday = used.get(organizationId) ?? 0;
  const midnight = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
  return {
    organization: { id: org.id, name: org.name },
    senders,
    daily_quota: { limit, used_today: usedToday, remaining: Math.max(0, limit - usedToday), resets_at: midnight.toISOString() },
    rate_limit: { per_second: org.rateLimit ?? defaults.rateLimit },
    sending: configured
      ? { configured, waiting }
      : { configured, waiting, detail: 'email sending is not configured (no maintenance instance with SVC_SMTP_URL is running): accepted emails wait in the queue' },
  };
}

/** An email of an organization as its admins see it: addresses, subject and delivery, not the text. */
export interface OrganizationEmailRow {
  id: string;
  key_id: string | null;
  from: string;
  to: string;
  subject: string;
  status: string;
  attempts: number;
  error: string;
  created_at: Date;
  sent_at: Date | null;
  /** created_at to the microsecond, for the cursor: an email's is the database's now() when it was queued, which a Date would cut to the millisecond. */
  created_key: string;
}

/** The organization's emails, newest first; `before` is the last (created_at, id) of the previous page (created_at as text, to the microsecond). Reads limit + 1 rows. */
export async function listOrganizationEmails(
  db: IdentityDb,
  organizationId: string,
  opts: { limit: number; before?: { at: string; id: string } },
): Promise<OrganizationEmailRow[]> {
  const b = opts.before;
  const rows = await prismaOf(db).$queryRaw<OrganizationEmailRow[]>`
    SELECT id, key_id, from_address AS "from", to_address AS "to", subject, status, attempts, error, created_at, sent_at, ${Prisma.raw(exactTimeText('created_at'))} AS created_key
    FROM emails
    WHERE organization_id = ${organizationId}
      AND (${b?.at ?? null}::timestamptz IS NULL OR (created_at, id) < (${b?.at ?? null}::timestamptz, ${b?.id ?? ''}))
    ORDER BY created_at DESC, id DESC
    LIMIT ${opts.limit + 1}`;
  return rows.map((r) => ({ ...r, attempts: Number(r.attempts) }));
}
