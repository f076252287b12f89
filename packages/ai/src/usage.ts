// The daily AI usage counters (ai_usage: one row per user and UTC day, the
// requests and provider tokens counted against the daily limits). The
// gateway's AIUsage (ai/usage.ts) decides the limits; it reads and counts
// through these. A request is taken under a transaction-scoped advisory lock
// shared by every gateway, so two gateways cannot both take the last one.
// Maintenance's retention deletes the rows of old days (deleteAiUsageBefore).
import { Prisma, type PrismaClient, type Queryable } from '@svc/db';

const LOCK_KEY = 0x5376_6155; // shared by every gateway

type Tx = Prisma.TransactionClient | PrismaClient;

/** A user's counters of one day (none yet: null), and the day's sums over every user (no row: null). */
export interface DayCounts {
  mine: { requests: number; tokens: number } | null;
  total: { requests: number | null; tokens: number | null };
}

export type UsageRow = Prisma.AiUsageGetPayload<object>;

export class AiUsageCounters {
  constructor(private readonly prisma: PrismaClient) {}

  /** `userId`'s counters of `day` and the day's totals. */
  async counts(userId: string, day: Date, tx: Tx = this.prisma): Promise<DayCounts> {
    const [mine, total] = await Promise.all([
      tx.aiUsage.findUnique({ where: { userId_day: { userId, day } }, select: { requests: true, tokens: true } }),
      tx.aiUsage.aggregate({ where: { day }, _sum: { requests: true, tokens: true } }),
    ]);
    return { mine, total: total._sum };
  }

  /**
   * Counts one request of `userId` on `day` unless `refuse` names a reason
   * (then nothing is counted and the reason is returned). The counts and the
   * count's write are under one advisory lock.
   */
  async takeRequest<T>(userId: string, day: Date, now: Date, refuse: (counts: DayCounts) => T | undefined): Promise<T | undefined> {
    return this.prisma.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT 1 AS locked FROM pg_advisory_xact_lock(${LOCK_KEY}::bigint)`;
      const hit = refuse(await this.counts(userId, day, tx));
      if (hit !== undefined) return hit;
      await tx.aiUsage.upsert({ where: { userId_day: { userId, day } }, create: { userId, day, requests: 1 }, update: { requests: { increment: 1 }, updatedAt: now } });
      return undefined;
    });
  }

  /** Adds `tokens` (a whole number) to `userId`'s `day`. */
  async addTokens(userId: string, day: Date, tokens: number, now: Date): Promise<void> {
    await this.prisma.aiUsage.upsert({ where: { userId_day: { userId, day } }, create: { userId, day, tokens }, update: { tokens: { increment: tokens }, updatedAt: now } });
  }

  /** Every user's row of `day`, the most tokens first. */
  day(day: Date): Promise<UsageRow[]> {
    return this.prisma.aiUsage.findMany({ where: { day }, orderBy: [{ tokens: 'desc' }, { userId: 'asc' }] });
  }
}

/**
 * Daily AI usage counters of days that ended before `cutoff` (at most
 * `limit`); maintenance's retention. Only today's row is ever read for the
 * limits; older ones serve the admins' look back (getAIUsage).
 */
export async function deleteAiUsageBefore(db: Queryable, cutoff: Date, limit: number): Promise<number> {
  const r = await db.query(
    `DELETE FROM ai_usage WHERE (user_id, day) IN (
       SELECT user_id, day FROM ai_usage WHERE day + 1 <= ($1::timestamptz AT TIME ZONE 'UTC')::date ORDER BY day LIMIT $2)`,
    [cutoff, limit],
  );
  return r.rowCount ?? 0;
}
