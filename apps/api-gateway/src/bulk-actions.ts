// Bulk actions on executions (bulkExecutions): which of the executions a
// filter selects an action may take, and the action run over them. Each
// execution goes through the engine's own cancel, rerun or restart (its own
// transaction, its follow-ups), a few at a time, in batches whose audit events
// are written in one statement as each batch ends; so a thousand executions
// never make one long transaction, and the database sees at most
// BULK_CONCURRENCY of these calls from one request at once.
import { assertNever } from '@svc/assert';
import type { Schemas } from '@svc/api-spec';
import { EngineError, type Engine, type ExecutionFilter, type MatchedExecution } from '@svc/engine';
import type { HttpLogger } from '@svc/http';
import { canRerun, canRestart, EXECUTION_STATES, nextExecutionState, type ExecutionState } from '@svc/state-machine';

export type BulkAction = Schemas['BulkAction'];
export type BulkOutcome = Schemas['BulkExecutionOutcome'];

/** Executions whose action runs at once, at most (each is one engine call: a transaction and its follow-ups). */
export const BULK_CONCURRENCY = 4;
/** Executions per batch: their audit events are written together when the batch ends. */
export const BULK_BATCH = 50;

/** The error code the single operation answers when the state refuses the action; undefined when it allows it. */
export function refusal(action: BulkAction, state: ExecutionState): { code: 'execution_ended' | 'not_restartable'; message: string } | undefined {
  switch (action) {
    case 'cancel':
      // CANCELLING is allowed (and changes nothing), as cancelExecution answers it.
      return nextExecutionState(state, 'cancel').ok ? undefined : { code: 'execution_ended', message: `the execution has ended (${state})` };
    case 'rerun':
      return canRerun(state) ? undefined : { code: 'not_restartable', message: `the execution is ${state}: rerun needs FAILED, TIMED_OUT, CANCELLED or SUCCESS` };
    case 'restart':
      return canRestart(state) ? undefined : { code: 'not_restartable', message: `the execution is ${state}: restart needs FAILED, TIMED_OUT or CANCELLED` };
    default:
      return assertNever(action);
  }
}

/** The states an action takes (the filter's count of eligible executions reads them). */
export const actionStates = (action: BulkAction): ExecutionState[] => EXECUTION_STATES.filter((s) => refusal(action, s) === undefined);

/** What the filter selects for an action: how many match, how many the action takes, the newest `limit` rows. */
export interface BulkSelection {
  matched: number;
  eligible: number;
  rows: MatchedExecution[];
}

export async function selectForBulk(engine: Engine, action: BulkAction, filter: ExecutionFilter, limit: number): Promise<BulkSelection> {
  const m = await engine.executions.match(filter, { limit, states: actionStates(action) });
  return { matched: m.total, eligible: m.inStates, rows: m.rows };
}

/** One execution changed: what its audit event records. */
export interface BulkDone {
  row: MatchedExecution;
  outcome: BulkOutcome;
}

/**
 * Runs `action` over `rows` (each refused by its state is reported, not
 * tried) and returns one outcome per row, in their order. `audit` gets the
 * executions each batch changed, once the batch has ended.
 */
export async function runBulk(
  engine: Engine,
  p: { action: BulkAction; rows: MatchedExecution[]; actor: string; log: HttpLogger; audit: (done: BulkDone[]) => Promise<void> },
): Promise<BulkOutcome[]> {
  const out: BulkOutcome[] = [];
  for (let i = 0; i < p.rows.length; i += BULK_BATCH) {
    const batch = p.rows.slice(i, i + BULK_BATCH);
    const outcomes = await mapLimit(batch, BULK_CONCURRENCY, (row) => actOn(engine, p.action, row, p.actor, p.log));
    out.push(...outcomes);
    await p.audit(batch.flatMap((row, j) => (outcomes[j].ok ? [{ row, outcome: outcomes[j] }] : [])));
  }
  return out;
}

async function actOn(engine: Engine, action: BulkAction, row: MatchedExecution, actor: string, log: HttpLogger): Promise<BulkOutcome> {
  const execution_id = row.id;
  const refused = refusal(action, row.state);
  if (refused) return { execution_id, ok: false, error: refused };
  try {
    switch (action) {
      case 'cancel':
        return { execution_id, ok: true, state: (await engine.executions.cancel(row.id, actor)).state };
      case 'rerun':
        return { execution_id, ok: true, new_execution_id: (await engine.executions.rerun(row.id, actor)).id };
      case 'restart':
        return { execution_id, ok: true, new_execution_id: (await engine.executions.restart(row.id, actor)).id };
      default:
        return assertNever(action);
    }
  } catch (err) {
    // The state changed since it was read (it ended, or a retention pass removed it): the engine's refusal, as the single action answers it.
    if (err instanceof EngineError) return { execution_id, ok: false, error: { code: err.code, message: err.message } };
    // Anything else fails this execution only; the others still get their action.
    log.error('bulk action failed on one execution', { action, execution_id, error: err instanceof Error ? err.message : String(err) });
    return { execution_id, ok: false, error: { code: 'internal', message: 'the action failed on this execution; see the gateway log' } };
  }
}

/** `fn` over `items`, at most `n` at once; results in the order of `items`. */
async function mapLimit<T, R>(items: T[], n: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
  return out;
}
