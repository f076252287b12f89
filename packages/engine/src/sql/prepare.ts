// Preparing a task run for its runner: the read of the run with its
// execution (when the claim did not return it), and the record of the
// secrets it resolved (sealed, so its completion can be masked).
import { EXECUTION_COLUMNS } from './fragments.js';

/** Task run $1 with its execution's row and snapshot. */
export const PREPARE_READ_SQL = `SELECT ${EXECUTION_COLUMNS.split(',')
  .map((c) => `e.${c.trim()}`)
  .join(', ')}, e.snapshot_id, t.id AS tr_id, t.task_key, t.attempt
       FROM task_runs t JOIN executions e ON e.id = t.execution_id WHERE t.id = $1`;

/** Records the secrets ($3, sealed) task run $4 resolved, and their keys ($2) on its execution $1. */
export const RECORD_RUN_SECRETS_SQL = `WITH t AS (UPDATE task_runs SET spec = COALESCE(spec, '{}'::jsonb) || jsonb_build_object('secrets', $3::jsonb) WHERE id = $4)
       UPDATE executions SET secret_keys_used = ARRAY(SELECT DISTINCT unnest(secret_keys_used || $2::text[]) ORDER BY 1) WHERE id = $1`;
