// What one planning step writes, gathered for one statement (sql/apply-plan.ts).
import type { ApprovalRecord } from './approval.js';

/** Everything one planning step writes, for any number of executions, gathered for one statement. */
export class Writes {
  readonly queue: string[] = [];
  readonly retry: { id: string; prev: string; delay: number }[] = [];
  /** Unstarted runs that end (skipped, cancelled, a condition that failed); `error` '' keeps the run's. */
  readonly end: { id: string; from_state: string; state: string; reason: string; error: string }[] = [];
  readonly execEnd: { id: string; from_state: string; state: string; reason: string; error: string; outputs: Record<string, unknown> | null; duration: number }[] = [];
  /** Fan-out parents (RUNNING) that end now their items ended, with the list of the items' outputs on SUCCESS. */
  readonly fanEnd: { id: string; state: string; reason: string; error: string; outputs: unknown[] | null }[] = [];
  /** PENDING runs of gated tasks that start waiting for approval: reason awaiting_approval and their `approval` record (planning/approval.ts). */
  readonly await: { id: string; approval: ApprovalRecord }[] = [];
  readonly clear: string[] = [];
  readonly changed = new Set<string>();
}
