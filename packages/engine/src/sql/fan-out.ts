// A fan-out's items (for_each, an extension of the flow format): when a
// dispatcher has claimed a task's parent run and rendered its list, one
// statement creates an item run per element (PENDING, attempt 1, its index and
// value), releases the parent from its claim (it runs nowhere: no instance,
// no timeout of its own; the watchdog leaves it alone, sql/watchdog.ts), and
// asks for a planning pass, which queues the items (planning/fan-out.ts).
// Guarded on the parent being RUNNING and not yet fanned out, so a second attempt (a retried claim, a repeated call) creates
// nothing; a crash before the commit leaves the parent claimed, and the
// watchdog fails it `lost` as any run of a vanished instance.
import type { Queryable } from '@svc/db';
import { CHANNELS } from '../channels.js';

const FAN_OUT_SQL = `
WITH p AS (
  UPDATE task_runs SET fan_out = $2, claimed_by = NULL, lease_until = NULL, timeout_at = NULL, run_token_hash = NULL, updated_at = now()
  WHERE id = $1 AND state = 'RUNNING' AND fan_out IS NULL AND item_index IS NULL
  RETURNING id, execution_id, task_key, task_type, executor_type, pool, spec),
i AS (
  INSERT INTO task_runs (id, execution_id, task_key, task_type, executor_type, pool, state, attempt, item_index, item, spec, created_at, updated_at)
  SELECT x.id, p.execution_id, p.task_key, p.task_type, p.executor_type, p.pool, 'PENDING', 1, x.i, x.item, p.spec, now(), now()
  FROM p, jsonb_to_recordset($3::jsonb) AS x(id text, i int, item jsonb)
  RETURNING id, execution_id),
h AS (
  INSERT INTO execution_history (execution_id, task_run_id, from_state, to_state, reason, actor, at)
  SELECT execution_id, id, NULL, 'PENDING', 'fan_out', '', now() FROM i),
r AS (
  INSERT INTO plan_requests (task_run_id, execution_id, created_at) SELECT id, execution_id, now() FROM p
  ON CONFLICT (task_run_id) DO NOTHING)
SELECT p.execution_id, pg_notify('${CHANNELS.changed}', p.execution_id)::text AS notified FROM p`;

/**
 * Creates the items (`items`: their ids and values, in order) of fan-out
 * parent `taskRunId`. Returns the execution's id, or null when the parent
 * was not a running run still to fan out.
 */
export async function fanOut(db: Queryable, p: { taskRunId: string; items: { id: string; item: unknown }[] }): Promise<string | null> {
  const r = await db.query<{ execution_id: string }>({
    name: 'svc-fan-out',
    text: FAN_OUT_SQL,
    values: [p.taskRunId, p.items.length, JSON.stringify(p.items.map((x, i) => ({ id: x.id, i, item: x.item ?? null })))],
  });
  return r.rows[0]?.execution_id ?? null;
}
