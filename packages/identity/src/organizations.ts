// Organizations and their `svc_live_` API keys (the organization email
// interface), and the token bucket all keys of one organization share.
// Organizations and keys are made by the `svc org` CLI on the database; the
// api-gateway authenticates keys and takes tokens. A key is stored only as its
// SHA-256 hash; a revoked key fails on the next request on every instance
// (each request reads the row). The bucket is one row per organization,
// refilled by elapsed time and taken from in one statement, so every gateway
// instance draws from the same pool.
import { newId, prismaOf } from '@svc/db';
import type { SenderRule } from './email-senders.js';
import { emailsUsedToday } from './organization-email.js';
import { OrganizationError } from './organization-error.js';
import { randomBase62, sha256 } from './secrets.js';
import type { IdentityDb } from './users.js';

export { OrganizationError };

export const ORG_KEY_PREFIX = 'svc_live_';
export const ORG_KEY_PATTERN = /^svc_live_[0-9A-Za-z]{43}$/;
/** Organization names: what `svc org create` accepts. */
export const ORG_NAME_PATTERN = /^[a-z0-9][a-z0-9._-]{0,62}$/;

export interface OrganizationRow {
  id: string;
  name: string;
  rate_limit: number | null;
  /** Emails per UTC day; null = SVC_ORG_DAILY_QUOTA. */
  daily_quota: number | null;
  /** Emails counted today (UTC). */
  used_today: number;
  senders: SenderRule[];
  /** Namespaces whose alert rules may send as the organization, each with its children; empty: none. */
  namespaces: string[];
  created_at: Date;
  keys: { id: string; prefix: string; name: string; created_at: Date; last_used_at: Date | null; revoked_at: Date | null }[];
}

export async function createOrganization(db: IdentityDb, name: string, now = new Date()): Promise<{ id: string; name: string }> {
  if (!ORG_NAME_PATTERN.test(name))
    throw new OrganizationError(
      'invalid_name',
      `organization name ${JSON.stringify(name)}: 1 to 63 lower-case letters, digits, dots, hyphens or underscores, starting with a letter or digit`,
    );
  const prisma = prismaOf(db);
  if (await prisma.organization.findUnique({ where: { name } })) throw new OrganizationError('exists', `organization ${name} already exists`);
  const id = newId();
  await prisma.organization.create({ data: { id, name, createdAt: now } });
  return { id, name };
}

export async function listOrganizations(db: IdentityDb): Promise<OrganizationRow[]> {
  const rows = await prismaOf(db).organization.findMany({
    include: { keys: { orderBy: { createdAt: 'asc' } }, senders: { orderBy: [{ kind: 'asc' }, { value: 'asc' }] } },
    orderBy: { name: 'asc' },
  });
  const used = await emailsUsedToday(
    db,
    rows.map((o) => o.id),
  );
  return rows.map((o) => ({
    id: o.id,
    name: o.name,
    rate_limit: o.rateLimit,
    daily_quota: o.dailyQuota,
    used_today: used.get(o.id) ?? 0,
    senders: o.senders.map((x) => ({ kind: x.kind as SenderRule['kind'], value: x.value })),
    namespaces: o.namespaces,
    created_at: o.createdAt,
    keys: o.keys.map((k) => ({ id: k.id, prefix: k.prefix, name: k.name, created_at: k.createdAt, last_used_at: k.lastUsedAt, revoked_at: k.revokedAt })),
  }));
}

/** A new key of organization `orgName`: the key itself is returned once and stored only as its hash. */
export async function createOrganizationKey(
  db: IdentityDb,
  orgName: string,
  keyName = '',
  now = new Date(),
): Promise<{ id: string; key: string; prefix: string; organization_id: string }> {
  const prisma = prismaOf(db);
  const org = await prisma.organization.findUnique({ where: { name: orgName } });
  if (!org) throw new OrganizationError('not_found', `no organization ${orgName}`);
  const key = ORG_KEY_PREFIX + randomBase62(43);
  const id = newId();
  const prefix = key.slice(0, ORG_KEY_PREFIX.length + 6);
  await prisma.organizationKey.create({ data: { id, organizationId: org.id, keyHash: sha256(key), prefix, name: keyName, createdAt: now } });
  return { id, key, prefix, organization_id: org.id };
}

/** Revokes a key (the first revocation time is kept). False when there is no such key. */
export async function revokeOrganizationKey(db: IdentityDb, keyId: string, now = new Date()): Promise<boolean> {
  const prisma = prismaOf(db);
  if (!(await prisma.organizationKey.findUnique({ where: { id: keyId }, select: { id: true } }))) return false;
  await prisma.organizationKey.updateMany({ where: { id: keyId, revokedAt: null }, data: { revokedAt: now } });
  return true;
}

export interface OrganizationPrincipal {
  keyId: string;
  organizationId: string;
  /** The organization's own refill rate, when it has one. */
  rateLimit: number | null;
  /** The organization's own daily quota, when it has one. */
  dailyQuota: number | null;
}

/** The organization of a live key, or null (malformed, unknown or revoked). Marks the key used. */
export async function authenticateOrganizationKey(db: IdentityDb, key: string): Promise<OrganizationPrincipal | null> {
  if (!ORG_KEY_PATTERN.test(key)) return null;
  const rows = await prismaOf(db).$queryRaw<{ id: string; organization_id: string; rate_limit: number | null; daily_quota: number | null }[]>`
    UPDATE organization_keys k SET last_used_at = now() FROM organizations o
    WHERE k.key_hash = ${sha256(key)} AND k.revoked_at IS NULL AND o.id = k.organization_id
    RETURNING k.id, k.organization_id, o.rate_limit, o.daily_quota`;
  const r = rows[0];
  return r ? { keyId: r.id, organizationId: r.organization_id, rateLimit: r.rate_limit, dailyQuota: r.daily_quota } : null;
}

/**
 * Takes one token from the organization's bucket (capacity: one second's
 * refill, at least 1), refilled at `perSecond` by the database's clock.
 * Returns 0 when taken, else the seconds until a token is there.
 */
export async function takeOrganizationToken(db: IdentityDb, organizationId: string, perSecond: number): Promise<number> {
  const capacity = Math.max(1, perSecond);
  // One statement takes the token: concurrent requests on any instance serialize on the row.
  const prisma = prismaOf(db);
  const taken = await prisma.$queryRaw<{ tokens: number }[]>`
    INSERT INTO org_rate_limit_buckets AS b (organization_id, tokens, updated_at) VALUES (${organizationId}, ${capacity - 1}::float8, now())
    ON CONFLICT (organization_id) DO UPDATE
      SET tokens = LEAST(${capacity}::float8, b.tokens + GREATEST(0, extract(epoch FROM now() - b.updated_at)) * ${perSecond}::float8) - 1, updated_at = now()
      WHERE LEAST(${capacity}::float8, b.tokens + GREATEST(0, extract(epoch FROM now() - b.updated_at)) * ${perSecond}::float8) >= 1
    RETURNING b.tokens`;
  if (taken.length) return 0;
  // Empty: how long until one token is there (a read; it only sets Retry-After).
  const level = await prisma.$queryRaw<{ tokens: number }[]>`
    SELECT LEAST(${capacity}::float8, tokens + GREATEST(0, extract(epoch FROM now() - updated_at)) * ${perSecond}::float8) AS tokens
    FROM org_rate_limit_buckets WHERE organization_id = ${organizationId}`;
  const r = { tokens: level[0]?.tokens ?? 0 };
  return (1 - Number(r.tokens)) / perSecond;
}

/** Sets an organization's token-bucket refill per second (the CLI's `svc org create --rate-limit`). */
export async function setOrganizationRateLimit(db: IdentityDb, id: string, perSecond: number): Promise<void> {
  await prismaOf(db).organization.update({ where: { id }, data: { rateLimit: perSecond } });
}
