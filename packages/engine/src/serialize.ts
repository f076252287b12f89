// Executions as the API shows them: every required field of the spec's
// Execution and TaskRun objects, with their types.
import type { Queryable } from '@svc/db';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);
const num = (v: string | number | null | undefined) => (v === null || v === undefined ? null : Number(v));

export async function loadExecutions(db: Queryable, ids: string[]): Promise<Record<string, unknown>[]> {
  if (!ids.length) return [];
  // Named (prepared once per connection): every trigger and execution read runs these three.
  const ex = await db.query({
    name: 'svc-load-executions',
    text: `SELECT id, state, reason, error, namespace, flow_id, flow_revision_id, git_sha, snapshot_id, snapshot_version, inputs, labels, outputs,
            parent_execution_id, restart_of_id, chain_depth, created_at, created_by, started_at, ended_at, duration_ms, secret_keys_used,
            trigger_type, trigger_id, trigger_payload
     FROM executions WHERE id = ANY($1)`,
    values: [ids],
  });
  const runs = await db.query({
    name: 'svc-load-task-runs',
    text: `SELECT id, execution_id, task_key, task_type, executor_type, pool, state, reason, error, attempt, child_execution_id, reused_from_id,
            exit_code, duration_ms, queued_at, started_at, ended_at, outputs
     FROM task_runs WHERE execution_id = ANY($1) ORDER BY execution_id, created_at, attempt, id`,
    values: [ids],
  });
  const children = await db.query({
    name: 'svc-load-children',
    text: `SELECT id, parent_execution_id, state, created_at, flow_id, namespace FROM executions WHERE parent_execution_id = ANY($1) ORDER BY created_at`,
    values: [ids],
  });
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
      children: [] as unknown[],
      created_at: iso(e.created_at),
      created_by: e.created_by,
      started_at: iso(e.started_at),
      ended_at: iso(e.ended_at),
      duration_ms: num(e.duration_ms),
      secret_keys_used: e.secret_keys_used,
      trigger_type: e.trigger_type,
      ...(e.trigger_id ? { trigger_id: e.trigger_id } : {}),
      trigger_payload: e.trigger_payload,
      task_runs: [] as unknown[],
    });
  }
  for (const r of runs.rows) {
    (byId.get(r.execution_id)!.task_runs as unknown[]).push({
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
      duration_ms: num(r.duration_ms),
      queued_at: iso(r.queued_at),
      started_at: iso(r.started_at),
      ended_at: iso(r.ended_at),
      outputs: r.outputs,
    });
  }
  for (const c of children.rows) {
    (byId.get(c.parent_execution_id)!.children as unknown[]).push({ id: c.id, state: c.state, created_at: iso(c.created_at), namespace: c.namespace, flow_id: c.flow_id });
  }
  return ids.map((id) => byId.get(id)).filter((x): x is Record<string, unknown> => x !== undefined);
}
