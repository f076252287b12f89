// Executions as the API shows them: every required field of the spec's
// Execution and TaskRun objects, with their types.
import type { Queryable } from '@svc/db';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);
const num = (v: string | number | null | undefined) => (v === null || v === undefined ? null : Number(v));

// One statement: the executions, each with its task runs and children as JSON
// arrays (the timestamps inside them come back as text and are normalized to
// ISO strings here). A trigger answers with this, so it is on the hot path.
const LOAD_SQL = `
SELECT e.id, e.state, e.reason, e.error, e.namespace, e.flow_id, e.flow_revision_id, e.git_sha, e.snapshot_id, e.snapshot_version, e.inputs, e.labels,
  e.outputs, e.parent_execution_id, e.restart_of_id, e.chain_depth, e.created_at, e.created_by, e.started_at, e.ended_at, e.duration_ms,
  e.secret_keys_used, e.trigger_type, e.trigger_id, e.trigger_payload,
  COALESCE((SELECT json_agg(json_build_object('id', t.id, 'task_key', t.task_key, 'task_type', t.task_type, 'executor_type', t.executor_type, 'pool', t.pool,
      'state', t.state, 'reason', t.reason, 'error', t.error, 'attempt', t.attempt, 'child_execution_id', t.child_execution_id, 'reused_from_id', t.reused_from_id,
      'exit_code', t.exit_code, 'duration_ms', t.duration_ms, 'queued_at', t.queued_at, 'started_at', t.started_at, 'ended_at', t.ended_at, 'outputs', t.outputs)
    ORDER BY t.created_at, t.attempt, t.id) FROM task_runs t WHERE t.execution_id = e.id), '[]') AS task_runs,
  COALESCE((SELECT json_agg(json_build_object('id', c.id, 'state', c.state, 'created_at', c.created_at, 'namespace', c.namespace, 'flow_id', c.flow_id)
    ORDER BY c.created_at) FROM executions c WHERE c.parent_execution_id = e.id), '[]') AS children
FROM executions e WHERE e.id = ANY($1)`;

/** A timestamp from json_build_object (text with an offset), as the API writes it. */
const isoText = (s: string | null | undefined) => (s ? new Date(s).toISOString() : null);

export async function loadExecutions(db: Queryable, ids: string[]): Promise<Record<string, unknown>[]> {
  if (!ids.length) return [];
  const ex = await db.query({ name: 'svc-load-executions', text: LOAD_SQL, values: [ids] });
  const byId = new Map<string, Record<string, unknown>>();
  for (const e of ex.rows) {
    byId.set(e.id, {
      id: e.id,
      state: e.state,
      reason: e.reason,
      error: e.error,
      namespace: e.namespace,
      flow_id: e.flow_id,
      flow_revision_id: e.flow_revision_id,
      ...(e.git_sha ? { git_sha: e.git_sha } : {}),
      snapshot_id: e.snapshot_id,
      snapshot_version: e.snapshot_version,
      inputs: e.inputs,
      labels: e.labels,
      outputs: e.outputs,
      parent_execution_id: e.parent_execution_id,
      restart_of_id: e.restart_of_id,
      chain_depth: e.chain_depth,
      children: (e.children as Record<string, unknown>[]).map((c) => ({ id: c.id, state: c.state, created_at: isoText(c.created_at as string), namespace: c.namespace, flow_id: c.flow_id })),
      created_at: iso(e.created_at),
      created_by: e.created_by,
      started_at: iso(e.started_at),
      ended_at: iso(e.ended_at),
      duration_ms: num(e.duration_ms),
      secret_keys_used: e.secret_keys_used,
      trigger_type: e.trigger_type,
      ...(e.trigger_id ? { trigger_id: e.trigger_id } : {}),
      trigger_payload: e.trigger_payload,
      task_runs: (e.task_runs as Record<string, unknown>[]).map((r) => ({
        id: r.id,
        task_key: r.task_key,
        task_type: r.task_type,
        executor_type: r.executor_type,
        pool: r.pool,
        state: r.state,
        reason: r.reason,
        error: r.error,
        attempt: r.attempt,
        child_execution_id: r.child_execution_id,
        reused_from_id: r.reused_from_id,
        exit_code: r.exit_code,
        duration_ms: num(r.duration_ms as number | null),
        queued_at: isoText(r.queued_at as string),
        started_at: isoText(r.started_at as string),
        ended_at: isoText(r.ended_at as string),
        outputs: r.outputs,
      })),
    });
  }
  return ids.map((id) => byId.get(id)).filter((x): x is Record<string, unknown> => x !== undefined);
}
