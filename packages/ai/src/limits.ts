// Daily AI usage limits: requests (an assistant turn, a triage, requested or
// automatic) and provider tokens, per user and for the whole deployment (the
// AI module has no organizations: the deployment is the one pool), per UTC
// day, counted in `ai_usage` (one row per user and day). A request is taken
// (checked and counted) before it starts, under a transaction-scoped advisory
// lock so two gateways cannot both take the last one; tokens are added after
// each model call, so a turn passes a token limit by at most one call, and the
// next model call of that turn is refused. Automatic triage counts under
// AUTO_USER: only the totals apply to it. The counters are read and written
// by usage.ts (AiUsageCounters).
import { AiUsageCounters, type DayCounts } from './usage.js';
import type { PrismaClient } from '@svc/db';
import { RateLimitedError } from '@svc/http';

/** The usage row of automatic triage. */
export const AUTO_USER = 'auto';

/** Each limit per UTC day (SVC_AI_*_PER_DAY). */
export interface AIUsageLimits {
  userRequests: number;
  userTokens: number;
  totalRequests: number;
  totalTokens: number;
}

export type LimitName = 'user_requests' | 'user_tokens' | 'total_requests' | 'total_tokens';

const SETTING: Record<LimitName, string> = {
  user_requests: 'SVC_AI_USER_REQUESTS_PER_DAY',
  user_tokens: 'SVC_AI_USER_TOKENS_PER_DAY',
  total_requests: 'SVC_AI_TOTAL_REQUESTS_PER_DAY',
  total_tokens: 'SVC_AI_TOTAL_TOKENS_PER_DAY',
};

/** 429 `rate_limited`: which limit, its value, and when it resets (Retry-After). */
export class AIUsageLimitError extends RateLimitedError {
  constructor(
    readonly limit: LimitName,
    readonly value: number,
    readonly resetsAt: Date,
    now: Date,
  ) {
    const who = limit.startsWith('user_') ? 'your' : "the deployment's";
    const what = limit.endsWith('_requests') ? `${value} AI requests` : `${value} AI tokens`;
    super(
      (resetsAt.getTime() - now.getTime()) / 1000,
      'rate_limited',
      `AI usage limit reached: ${who} daily limit of ${what} (${SETTING[limit]}); it resets at ${resetsAt.toISOString()}`,
    );
    this.name = 'AIUsageLimitError';
  }
}

/** About 4 characters a token: what a provider that reports no usage is counted with. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** The UTC day of `t` (midnight), and the next midnight. */
export function utcDay(t: Date): { day: Date; next: Date } {
  const day = new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth(), t.getUTCDate()));
  return { day, next: new Date(day.getTime() + 86_400_000) };
}

export class AIUsage {
  private readonly counters: AiUsageCounters;

  constructor(private readonly deps: { prisma: PrismaClient; limits: AIUsageLimits; now: () => Date }) {
    this.counters = new AiUsageCounters(deps.prisma);
  }

  /** The first limit that `userId` (AUTO_USER: the totals only) has reached with the day's `counts`, if any. */
  private reached(userId: string, { mine, total }: DayCounts): LimitName | undefined {
    const l = this.deps.limits;
    if (userId !== AUTO_USER) {
      if ((mine?.requests ?? 0) >= l.userRequests) return 'user_requests';
      if ((mine?.tokens ?? 0) >= l.userTokens) return 'user_tokens';
    }
    if ((total.requests ?? 0) >= l.totalRequests) return 'total_requests';
    if ((total.tokens ?? 0) >= l.totalTokens) return 'total_tokens';
    return undefined;
  }

  private error(limit: LimitName, now: Date): AIUsageLimitError {
    const value = {
      user_requests: this.deps.limits.userRequests,
      user_tokens: this.deps.limits.userTokens,
      total_requests: this.deps.limits.totalRequests,
      total_tokens: this.deps.limits.totalTokens,
    }[limit];
    return new AIUsageLimitError(limit, value, utcDay(now).next, now);
  }

  /**
   * Takes one request for `userId` today.
   * @throws AIUsageLimitError when a limit is reached (nothing is counted then).
   */
  async take(userId: string): Promise<void> {
    const now = this.deps.now();
    const { day } = utcDay(now);
    const limit = await this.counters.takeRequest(userId, day, now, (counts) => this.reached(userId, counts));
    if (limit) throw this.error(limit, now);
  }

  /**
   * Whether `userId` may make another model call of a request already taken
   * (the token limits only).
   * @throws AIUsageLimitError
   */
  async checkTokens(userId: string): Promise<void> {
    const now = this.deps.now();
    const hit = this.reached(userId, await this.counters.counts(userId, utcDay(now).day));
    if (hit === 'user_tokens' || hit === 'total_tokens') throw this.error(hit, now);
  }

  /** Whether the deployment's limits of today are reached (automatic triage then claims nothing). */
  async totalsReached(): Promise<boolean> {
    return this.reached(AUTO_USER, await this.counters.counts(AUTO_USER, utcDay(this.deps.now()).day)) !== undefined;
  }

  /** Adds a model call's tokens to `userId`'s day. */
  async addTokens(userId: string, tokens: number): Promise<void> {
    if (!(tokens > 0)) return;
    const now = this.deps.now();
    const { day } = utcDay(now);
    await this.counters.addTokens(userId, day, Math.round(tokens), now);
  }

  /** The use of one UTC day (default today): each user's row with the totals and the limits. */
  async report(dayText?: string) {
    const now = this.deps.now();
    const day = dayText ? new Date(`${dayText}T00:00:00Z`) : utcDay(now).day;
    const rows = await this.counters.day(day);
    const users = await this.deps.prisma.user.findMany({ where: { id: { in: rows.map((r) => r.userId) } }, select: { id: true, email: true } });
    const email = new Map(users.map((u) => [u.id, u.email]));
    const l = this.deps.limits;
    return {
      day: day.toISOString().slice(0, 10),
      resets_at: utcDay(day).next.toISOString(),
      limits: { user_requests: l.userRequests, user_tokens: l.userTokens, total_requests: l.totalRequests, total_tokens: l.totalTokens },
      total: { requests: rows.reduce((a, r) => a + r.requests, 0), tokens: rows.reduce((a, r) => a + r.tokens, 0) },
      users: rows.map((r) => ({ user_id: r.userId, email: r.userId === AUTO_USER ? null : (email.get(r.userId) ?? null), requests: r.requests, tokens: r.tokens })),
    };
  }
}
