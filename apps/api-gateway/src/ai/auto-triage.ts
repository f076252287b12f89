// Automatic triage on failure: while the provider's `auto_triage` is on, each
// gateway looks every SVC_AI_TRIAGE_POLL_MS for executions that ended FAILED
// or TIMED_OUT in the last hour and have no insight yet, and triages them,
// at most SVC_AI_TRIAGE_PER_HOUR started per hour across all gateways. The
// claim (count of the last hour's automatic insights, then the inserts) runs
// under a transaction-scoped advisory lock, so two gateways never both claim
// one execution nor together pass the budget.
import type pg from 'pg';
import { inTransaction, newId } from '@svc/db';
import { runTriage, type TriageDeps } from './triage.js';
import { AIUsageLimitError, AUTO_USER } from './usage.js';

/** Marks an insight started by the loop (requested_by), and counts toward the budget. */
export const AUTO_REQUESTER = 'auto';
const LOCK_KEY = 0x5376_6354; // any constant shared by every gateway

/** Claims up to the rest of the hour's budget; returns the new pending insights. */
export async function claimAutoTriages(pool: pg.Pool, perHour: number): Promise<{ id: string; execution_id: string }[]> {
  return inTransaction(pool, async (c) => {
    // Another gateway is claiming: nothing was written, so the (empty) transaction just ends.
    const locked = (await c.query<{ ok: boolean }>(`SELECT pg_try_advisory_xact_lock($1) AS ok`, [LOCK_KEY])).rows[0].ok;
    if (!locked) return [];
    const candidates = await c.query<{ id: string }>(
      `SELECT e.id FROM executions e
       WHERE e.state IN ('FAILED', 'TIMED_OUT') AND e.ended_at > now() - interval '1 hour'
         AND NOT EXISTS (SELECT 1 FROM ai_insights i WHERE i.execution_id = e.id)
       ORDER BY e.ended_at DESC
       LIMIT GREATEST(0, $1 - (SELECT count(*) FROM ai_insights WHERE requested_by = $2 AND created_at > now() - interval '1 hour'))`,
      [perHour, AUTO_REQUESTER],
    );
    const out: { id: string; execution_id: string }[] = [];
    for (const e of candidates.rows) {
      const id = newId();
      await c.query(`INSERT INTO ai_insights (id, execution_id, kind, status, requested_by) VALUES ($1, $2, 'triage', 'pending', $3)`, [id, e.id, AUTO_REQUESTER]);
      out.push({ id, execution_id: e.id });
    }
    return out;
  });
}

export interface AutoTriageOptions {
  deps: TriageDeps;
  perHour: number;
  pollMs: number;
  background: Set<Promise<unknown>>;
}

/** Starts the loop; the returned function stops it. A failed look is logged and the next one tries again. */
export function startAutoTriage(o: AutoTriageOptions): () => void {
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      const p = await o.deps.providers.get();
      if (!p?.autoTriage) return;
      // The deployment's daily AI limits hold for automatic triage too: past them, nothing is claimed.
      if (o.deps.usage && (await o.deps.usage.totalsReached())) return;
      for (const claim of await claimAutoTriages(o.deps.pool, o.perHour)) {
        try {
          await o.deps.usage?.take(AUTO_USER);
        } catch (err) {
          if (!(err instanceof AIUsageLimitError)) throw err;
          await o.deps.pool.query(`UPDATE ai_insights SET status = 'failed', error = $2, completed_at = now() WHERE id = $1`, [claim.id, err.message]);
          continue;
        }
        const run = runTriage(o.deps, claim.id, claim.execution_id, AUTO_USER).finally(() => o.background.delete(run));
        o.background.add(run);
        await run;
      }
    } catch (err) {
      o.deps.log.warn('automatic triage look failed', { err });
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void tick(), o.pollMs);
  timer.unref();
  return () => clearInterval(timer);
}
