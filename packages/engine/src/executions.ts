// Creating and starting executions: a manual trigger (and later schedules,
// webhooks, flow triggers, subflows, reruns) all go through createExecution.
import type pg from 'pg';
import { newId } from '@svc/db';
import type { FlowDefinition, FlowTask } from '@svc/flow-schema';
import { parseNamespaceFile } from '@svc/namespaces';
import { parseDuration } from '@svc/timing';
import { advance, endExecution, EXECUTION_COLUMNS, type ExecutionRow, type FollowUp } from './advance.js';
import { CHANNELS, history, inTx, notify, type Client } from './db.js';
import { resolveInputs } from './inputs.js';
import { DEFAULT_TASK_TIMEOUT_MS } from './constants.js';

export class FlowNotFoundError extends Error {
  override readonly name = 'FlowNotFoundError';
}
export class FlowDisabledError extends Error {
  override readonly name = 'FlowDisabledError';
}

export interface EngineConfig {
  /** Executor type of tasks that name none anywhere (SVC_DEFAULT_EXECUTOR). */
  defaultExecutor: string;
  now: () => Date;
}

export interface NewExecution {
  namespace: string;
  flowId: string | null;
  flowRevisionId: string | null;
  definition: FlowDefinition;
  snapshotId: string;
  snapshotVersion: number | null;
  inputs: Record<string, unknown>;
  labels: Record<string, string>;
  triggerType: string;
  triggerId?: string | null;
  triggerPayload?: Record<string, unknown>;
  createdBy: string;
  parentExecutionId?: string | null;
  parentTaskRunId?: string | null;
  restartOfId?: string | null;
  chainDepth?: number;
  /** Ignore the flow's concurrency limit (restart and rerun keep it; subflows too). Default false. */
  gitSha?: string | null;
}

/** Task executor type and pool: task, flow, namespace.yaml, instance default; http and subflow run inline. */
export function resolveExecutor(task: FlowTask, def: FlowDefinition, nsFile: { executor?: { type?: string; pool?: string } } | null, fallback: string) {
  if (task.type === 'http' || task.type === 'subflow') return { type: 'inline', pool: 'default' };
  const taskEx = (task as { executor?: { type?: string; pool?: string } }).executor;
  const type = taskEx?.type ?? def.executor?.type ?? nsFile?.executor?.type ?? fallback;
  const pool = taskEx?.pool ?? def.executor?.pool ?? nsFile?.executor?.pool ?? 'default';
  return { type, pool };
}

async function namespaceFileOf(c: Client, snapshotId: string, storage: { getBuffer(k: string): Promise<Buffer> } | undefined) {
  if (!storage) return null;
  const r = await c.query<{ file_hash: string }>(`SELECT file_hash FROM snapshot_files WHERE snapshot_id = $1 AND path = 'namespace.yaml'`, [snapshotId]);
  if (!r.rows[0]) return null;
  const { fileObjectKey } = await import('@svc/namespaces');
  try {
    return parseNamespaceFile((await storage.getBuffer(fileObjectKey(r.rows[0].file_hash))).toString('utf8')) as { executor?: { type?: string; pool?: string } };
  } catch {
    return null;
  }
}

/** A task's timeout in milliseconds (default 24h), kept on its task runs for the claim. */
export function taskTimeoutMs(t: FlowTask): number {
  return t.timeout ? parseDuration(t.timeout) : DEFAULT_TASK_TIMEOUT_MS;
}

export interface ReusedRun {
  id: string;
  outputs: Record<string, unknown> | null;
  exit_code: number | null;
}

export interface StartDeps {
  config: EngineConfig;
  storage?: { getBuffer(k: string): Promise<Buffer> };
}

/** The SUCCESS latest attempts of an execution, by task key (what a restart copies). */
async function reusableRuns(c: Client, executionId: string): Promise<Map<string, ReusedRun>> {
  const r = await c.query<ReusedRun & { task_key: string; state: string }>(
    `SELECT DISTINCT ON (task_key) id, task_key, state, outputs, exit_code FROM task_runs WHERE execution_id = $1 ORDER BY task_key, attempt DESC`,
    [executionId],
  );
  return new Map(r.rows.filter((x) => x.state === 'SUCCESS').map((x) => [x.task_key, x]));
}

/** Moves a new or QUEUED execution to RUNNING: its task runs (PENDING) are created and the first step planned. */
export async function startExecution(c: Client, deps: StartDeps, ex: ExecutionRow, now: Date): Promise<FollowUp[]> {
  const def = ex.definition;
  const timeoutAt = def.timeout ? new Date(now.getTime() + parseDuration(def.timeout)) : null;
  await c.query(`UPDATE executions SET state = 'RUNNING', started_at = $2, timeout_at = $3, updated_at = $2, version = version + 1 WHERE id = $1`, [ex.id, now, timeoutAt]);
  await history(c, [{ executionId: ex.id, from: ex.state === 'NEW' ? null : ex.state, to: 'RUNNING' }], now);
  const row = (await c.query<{ snapshot_id: string; restart_of_id: string | null }>(`SELECT snapshot_id, restart_of_id FROM executions WHERE id = $1`, [ex.id])).rows[0]!;
  const snap = row.snapshot_id;
  // Restart from failed: the original's SUCCESS task runs are copied, whenever this execution starts.
  const reuse = row.restart_of_id ? await reusableRuns(c, row.restart_of_id) : new Map<string, ReusedRun>();
  const nsFile = await namespaceFileOf(c, snap, deps.storage);
  const ids: string[] = [];
  for (const t of def.tasks) {
    const { type, pool } = resolveExecutor(t, def, nsFile, deps.config.defaultExecutor);
    const id = newId();
    ids.push(id);
    const reused = reuse.get(t.id);
    if (reused) {
      await c.query(
        `INSERT INTO task_runs (id, execution_id, task_key, task_type, executor_type, pool, state, reason, attempt, reused_from_id, outputs, exit_code,
           created_at, queued_at, started_at, ended_at, duration_ms, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, 'SUCCESS', 'reused', 1, $7, $8, $9, $10, $10, $10, $10, 0, $10)`,
        [id, ex.id, t.id, t.type, type, pool, reused.id, reused.outputs ? JSON.stringify(reused.outputs) : null, reused.exit_code, now],
      );
      continue;
    }
    await c.query(
      `INSERT INTO task_runs (id, execution_id, task_key, task_type, executor_type, pool, state, attempt, spec, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, 'PENDING', 1, $7, $8, $8)`,
      [id, ex.id, t.id, t.type, type, pool, JSON.stringify({ timeout_ms: taskTimeoutMs(t) }), now],
    );
  }
  await history(c, def.tasks.map((t, i) => ({ executionId: ex.id, taskRunId: ids[i]!, from: null, to: reuse.has(t.id) ? 'SUCCESS' : 'PENDING', reason: reuse.has(t.id) ? 'reused' : '' })), now);
  return advance(c, { ...ex, state: 'RUNNING', started_at: now }, now);
}

/**
 * Creates an execution. With a concurrency limit that is full, it is QUEUED
 * (behavior `queue`, no task runs yet) or SKIPPED (`skip`). The count and the
 * insert happen under a transaction-level advisory lock on the flow, so
 * parallel triggers on any number of gateways never exceed the limit.
 */
export async function createExecution(pool: pg.Pool, deps: StartDeps, n: NewExecution): Promise<{ id: string; followUps: FollowUp[] }> {
  return inTx(pool, (c) => createExecutionWith(c, deps, n));
}

/**
 * createExecution inside the caller's transaction: a trigger that must fire
 * exactly once writes its own marker row (a schedule fire, a flow trigger
 * firing) in the same transaction as the execution.
 */
export async function createExecutionWith(c: Client, deps: StartDeps, n: NewExecution): Promise<{ id: string; followUps: FollowUp[] }> {
  {
    const now = deps.config.now();
    const id = newId();
    const limit = n.definition.concurrency?.limit;
    const key = limit && n.flowId ? `${n.namespace}/${n.flowId}` : null;
    let state: 'NEW' | 'QUEUED' | 'SKIPPED' = 'NEW';
    if (key) {
      await c.query(`SELECT pg_advisory_xact_lock(hashtextextended('svc-concurrency:' || $1, 0))`, [key]);
      const running = await c.query<{ n: number; queued: number }>(
        `SELECT count(*) FILTER (WHERE state IN ('RUNNING', 'CANCELLING'))::int AS n, count(*) FILTER (WHERE state = 'QUEUED')::int AS queued
         FROM executions WHERE concurrency_key = $1 AND state IN ('RUNNING', 'CANCELLING', 'QUEUED')`,
        [key],
      );
      // Full, or others already wait (oldest first): this one waits or is skipped.
      if (running.rows[0]!.n >= limit! || running.rows[0]!.queued > 0) state = (n.definition.concurrency?.behavior ?? 'queue') === 'skip' ? 'SKIPPED' : 'QUEUED';
    }
    const inserted = await c.query<ExecutionRow>(
      `INSERT INTO executions (id, state, namespace, flow_id, flow_revision_id, git_sha, snapshot_id, snapshot_version, definition, inputs, labels,
         parent_execution_id, parent_task_run_id, restart_of_id, chain_depth, created_by, created_at, trigger_type, trigger_id, trigger_payload, concurrency_key,
         updated_at, reason, ended_at, duration_ms)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $17, $22, $23, $24)
       RETURNING ${EXECUTION_COLUMNS}`,
      [
        id, state === 'NEW' ? 'QUEUED' : state, n.namespace, n.flowId, n.flowRevisionId, n.gitSha ?? null, n.snapshotId, n.snapshotVersion,
        JSON.stringify(n.definition), JSON.stringify(n.inputs), JSON.stringify(n.labels), n.parentExecutionId ?? null, n.parentTaskRunId ?? null,
        n.restartOfId ?? null, n.chainDepth ?? 0, n.createdBy, now, n.triggerType, n.triggerId ?? null, JSON.stringify(n.triggerPayload ?? {}), key,
        state === 'SKIPPED' ? 'concurrency_limit' : state === 'QUEUED' ? 'concurrency_limit' : '', state === 'SKIPPED' ? now : null, state === 'SKIPPED' ? 0 : null,
      ],
    );
    const ex = inserted.rows[0]!;
    if (state !== 'NEW') {
      await history(c, [{ executionId: id, from: null, to: state, reason: 'concurrency_limit' }], now);
      await notify(c, CHANNELS.changed, id);
      return { id, followUps: [] };
    }
    await c.query(`UPDATE executions SET reason = '' WHERE id = $1`, [id]);
    const followUps = await startExecution(c, deps, { ...ex, state: 'NEW' }, now);
    await notify(c, CHANNELS.changed, id);
    return { id, followUps };
  }
}

/** Starts the oldest QUEUED executions of a flow while its concurrency limit has room. */
export async function startQueued(pool: pg.Pool, deps: StartDeps, key: string): Promise<FollowUp[]> {
  return inTx(pool, async (c) => {
    await c.query(`SELECT pg_advisory_xact_lock(hashtextextended('svc-concurrency:' || $1, 0))`, [key]);
    const follow: FollowUp[] = [];
    for (;;) {
      const next = await c.query<ExecutionRow & { limit: number | null }>(
        `SELECT ${EXECUTION_COLUMNS}, (definition->'concurrency'->>'limit')::int AS limit FROM executions
         WHERE concurrency_key = $1 AND state = 'QUEUED' ORDER BY created_at, id LIMIT 1 FOR UPDATE`,
        [key],
      );
      const ex = next.rows[0];
      if (!ex) return follow;
      const running = await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM executions WHERE concurrency_key = $1 AND state IN ('RUNNING', 'CANCELLING')`, [key]);
      if (ex.limit !== null && running.rows[0]!.n >= ex.limit) return follow;
      follow.push(...(await startExecution(c, deps, ex, deps.config.now())));
    }
  });
}

/** Ends a QUEUED execution without running it (cancel of a waiting execution). */
export async function endQueued(c: Client, ex: ExecutionRow, state: 'CANCELLED', reason: string, now: Date): Promise<FollowUp[]> {
  return endExecution(c, ex, { state, reason, error: '' }, now);
}
