// The end of an execution outside the planner (cancel of a queued execution,
// a flow timeout), returning what its follow-ups need.
import type { Queryable } from '@svc/db';
import type { EndedRow } from '../rows.js';
import { HAS_FLOW_TRIGGERS } from './fragments.js';

/** Ends execution `id` at `at`; its row as follow-ups need it (undefined when there is none). */
export async function endExecution(
  db: Queryable,
  p: { id: string; state: string; reason: string; error: string; outputs: Record<string, unknown> | null; at: Date; durationMs: number },
): Promise<EndedRow | undefined> {
  const r = await db.query<EndedRow>(
    `UPDATE executions ex SET state = $2, reason = $3, error = $4, outputs = $5, ended_at = $6, duration_ms = $7, concurrency_slot = NULL, updated_at = $6, version = version + 1
     WHERE id = $1
     RETURNING ex.id, ex.parent_task_run_id, ex.concurrency_key, ${HAS_FLOW_TRIGGERS}`,
    [p.id, p.state, p.reason, p.error, p.outputs === null ? null : JSON.stringify(p.outputs), p.at, p.durationMs],
  );
  return r.rows[0];
}
