// Ending a task run is one statement: the run's row (only from the states
// the transition table lets a run end from, so a late or repeated report
// changes nothing), its history row, its metrics, the NOTIFY hint and a
// planning request; masked completions clear the secrets recorded on the run.
import { CHANNELS } from '../db.js';
import { ENDS_TASK_RUN } from './guards.js';

// The end time is the database's clock unless the caller passes one (tests,
// and the engine's own rules that read it once per pass): the start was
// written by the claim with the database's clock, so the duration never mixes
// two hosts' clocks.
const AT = 'COALESCE($7::timestamptz, now())';

export const END_TASK_RUN_SQL = `
WITH t AS (
  UPDATE task_runs SET state = $2, reason = $3, error = $4, exit_code = $5, outputs = $6::jsonb, ended_at = ${AT},
    duration_ms = round(extract(epoch FROM (${AT}::timestamptz - started_at)) * 1000)::bigint, updated_at = ${AT},
    spec = CASE WHEN spec ? 'secrets' THEN spec - 'secrets' ELSE spec END
  WHERE id = $1 AND state IN ${ENDS_TASK_RUN} AND ($11::boolean OR NOT COALESCE(spec ? 'secrets', false))
  RETURNING id, execution_id, task_key),
h AS (
  INSERT INTO execution_history (execution_id, task_run_id, from_state, to_state, reason, actor, at)
  SELECT execution_id, id, 'RUNNING', $2, $3, '', ${AT} FROM t),
p AS (
  INSERT INTO plan_requests (task_run_id, execution_id, created_at) SELECT id, execution_id, ${AT} FROM t),
m AS (
  INSERT INTO task_metrics (execution_id, task_run_id, task_key, name, value, tags, at)
  SELECT t.execution_id, t.id, t.task_key, x.n, x.v, x.g::jsonb, ${AT} FROM t, unnest($8::text[], $9::float8[], $10::text[]) AS x(n, v, g))
SELECT execution_id, pg_notify('${CHANNELS.changed}', execution_id)::text AS n FROM t`;
