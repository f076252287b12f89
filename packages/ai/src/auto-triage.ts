// Automatic triage on failure: while the provider's `auto_triage` is on, each
// gateway looks every SVC_AI_TRIAGE_POLL_MS for executions that ended FAILED
// or TIMED_OUT in the last hour and have no insight yet, and triages them,
// at most SVC_AI_TRIAGE_PER_HOUR started per hour across all gateways. The
// claim (count of the last hour's automatic insights, then the inserts) runs
// under a transaction-scoped advisory lock, so two gateways never both claim
// one execution nor together pass the budget.
import { claimAutoTriages, failClaimedInsight } from './insights.js';
import { runTriage, type TriageDeps } from './triage.js';
import { AIUsageLimitError, AUTO_USER } from './limits.js';

/** Marks an insight started by the loop (requested_by), and counts toward the budget. */
export const AUTO_REQUESTER = 'auto';

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
      for (const claim of await claimAutoTriages(o.deps.pool, o.perHour, AUTO_REQUESTER)) {
        try {
          await o.deps.usage?.take(AUTO_USER);
        } catch (err) {
          if (!(err instanceof AIUsageLimitError)) throw err;
          await failClaimedInsight(o.deps.pool, claim.id, err.message);
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
