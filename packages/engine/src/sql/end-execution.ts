// The end of an execution outside the planner (cancel of a queued execution,
// a flow timeout), returning what its follow-ups need.
import { HAS_FLOW_TRIGGERS } from './fragments.js';

export const END_EXECUTION_SQL = `UPDATE executions ex SET state = $2, reason = $3, error = $4, outputs = $5, ended_at = $6, duration_ms = $7, concurrency_slot = NULL, updated_at = $6, version = version + 1
     WHERE id = $1
     RETURNING ex.id, ex.parent_task_run_id, ex.concurrency_key, ${HAS_FLOW_TRIGGERS}`;
