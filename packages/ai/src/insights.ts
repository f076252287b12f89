// AI insights (ai_insights): a triage of a failed execution, from its pending
// claim to done or failed. The gateway's triage (ai/triage.ts) and automatic
// triage (ai/auto-triage.ts) collect the evidence and ask the model; the rows
// are written here. An execution's insights go with it (foreign key cascade)
// when the engine's retention deletes it.
import type pg from 'pg';
import { exactTimeText, inTransaction, newId, prismaOf, type Prisma } from '@svc/db';
import { EXECUTIONS } from '@svc/engine/read-models';

/**
 * The states an insight is written with (ai_insights.status), in the order it
 * goes through them: the API's `InsightState` enum lists exactly these (the
 * gateway's insightBody does not compile against another set).
 */
export const INSIGHT_STATES = ['pending', 'running', 'done', 'failed'] as const;
export type InsightState = (typeof INSIGHT_STATES)[number];

/** An ai_insights row; its status is one of {@link INSIGHT_STATES} (every write below takes an InsightState). */
export type InsightRow = Omit<Prisma.AiInsightGetPayload<object>, 'status'> & { status: InsightState };

const isInsightState = (s: string): s is InsightState => (INSIGHT_STATES as readonly string[]).includes(s);

/** A row as read: a status no writer here stores is an error, not a value passed on to the API. */
function narrow(r: Prisma.AiInsightGetPayload<object>): InsightRow {
  const { status } = r;
  if (!isInsightState(status)) throw new Error(`ai_insights ${r.id} has status ${JSON.stringify(status)}, not one of ${INSIGHT_STATES.join(', ')}`);
  return { ...r, status };
}

/** Every update of an insight: its new state (an InsightState, so another value does not compile) and the fields that go with it. */
async function setState(pool: pg.Pool, id: string, state: InsightState, fields: Omit<Prisma.AiInsightUncheckedUpdateInput, 'status'> = {}): Promise<void> {
  await prismaOf(pool).aiInsight.update({ where: { id }, data: { ...fields, status: state } });
}

/**
 * An execution's insights, newest first, `limit + 1` of them after the cursor
 * (the last created_at and id shown), each with its created_at to the
 * microsecond (`createdKey`) for the next cursor. The page is chosen by
 * hand-written SQL: automatic triage writes its rows with the database's
 * now(), microseconds that a Prisma `where` (a Date) cannot compare, so a
 * Date cursor would skip the rows of the same millisecond.
 */
export async function insightsOf(pool: pg.Pool, executionId: string, limit: number, before?: { created_at: string; id: string }): Promise<(InsightRow & { createdKey: string })[]> {
  const keys = await pool.query<{ id: string; created_key: string }>(
    `SELECT id, ${exactTimeText('created_at')} AS created_key FROM ai_insights
      WHERE execution_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) < ($2::timestamptz, $3::text))
      ORDER BY created_at DESC, id DESC LIMIT $4`,
    [executionId, before?.created_at ?? null, before?.id ?? '', limit + 1],
  );
  const rows = new Map((await prismaOf(pool).aiInsight.findMany({ where: { id: { in: keys.rows.map((k) => k.id) } } })).map((r) => [r.id, r]));
  // A row deleted between the two reads (its execution's retention) is left out.
  return keys.rows.flatMap((k) => {
    const r = rows.get(k.id);
    return r ? [{ ...narrow(r), createdKey: k.created_key }] : [];
  });
}

/** A new pending triage insight of `executionId`. */
export async function createInsight(pool: pg.Pool, executionId: string, requestedBy: string): Promise<InsightRow> {
  return narrow(await prismaOf(pool).aiInsight.create({ data: { id: newId(), executionId, kind: 'triage', status: 'pending' satisfies InsightState, requestedBy } }));
}

export async function markInsightRunning(pool: pg.Pool, id: string): Promise<void> {
  await setState(pool, id, 'running');
}

/** The model's answer: the insight is done. */
export async function completeInsight(
  pool: pg.Pool,
  id: string,
  a: { summary: string; probableCause: string; suggestedFix: string; details: string; evidence: Prisma.InputJsonValue; model: string },
): Promise<void> {
  await setState(pool, id, 'done', { ...a, completedAt: new Date() });
}

/** The insight failed with `error` (the caller keeps it short). */
export async function failInsight(pool: pg.Pool, id: string, error: string): Promise<void> {
  await setState(pool, id, 'failed', { error, completedAt: new Date() });
}

const AUTO_TRIAGE_LOCK_KEY = 0x5376_6354; // any constant shared by every gateway

/**
 * Automatic triage's claim: executions that ended FAILED or TIMED_OUT in the
 * last hour and have no insight yet, up to the rest of the hour's budget
 * (`perHour` less the insights `requester` started in the last hour), each
 * given a pending insight requested by `requester`; the new insights. Under a
 * transaction-scoped advisory lock: while another gateway claims, nothing.
 */
export async function claimAutoTriages(pool: pg.Pool, perHour: number, requester: string): Promise<{ id: string; execution_id: string }[]> {
  return inTransaction(pool, async (c) => {
    // Another gateway is claiming: nothing was written, so the (empty) transaction just ends.
    const locked = (await c.query<{ ok: boolean }>(`SELECT pg_try_advisory_xact_lock($1) AS ok`, [AUTO_TRIAGE_LOCK_KEY])).rows[0].ok;
    if (!locked) return [];
    const candidates = await c.query<{ id: string }>(
      `SELECT e.id FROM ${EXECUTIONS} e
       WHERE e.state IN ('FAILED', 'TIMED_OUT') AND e.ended_at > now() - interval '1 hour'
         AND NOT EXISTS (SELECT 1 FROM ai_insights i WHERE i.execution_id = e.id)
       ORDER BY e.ended_at DESC
       LIMIT GREATEST(0, $1 - (SELECT count(*) FROM ai_insights WHERE requested_by = $2 AND created_at > now() - interval '1 hour'))`,
      [perHour, requester],
    );
    const out: { id: string; execution_id: string }[] = [];
    for (const e of candidates.rows) {
      const id = newId();
      await c.query(`INSERT INTO ai_insights (id, execution_id, kind, status, requested_by) VALUES ($1, $2, 'triage', $3, $4)`, [
        id,
        e.id,
        'pending' satisfies InsightState,
        requester,
      ]);
      out.push({ id, execution_id: e.id });
    }
    return out;
  });
}

/** A claimed insight that will not run (a daily limit was reached): failed with `error`, now. */
export async function failClaimedInsight(pool: pg.Pool, id: string, error: string): Promise<void> {
  await pool.query(`UPDATE ai_insights SET status = $3, error = $2, completed_at = now() WHERE id = $1`, [id, error, 'failed' satisfies InsightState]);
}
