// A task run ends: its runner completes it (SUCCESS, FAILED, TIMED_OUT,
// CANCELLED), or the engine ends it (lost, instance_shutdown, timeout). A
// retry is scheduled when the policy allows, then the execution advances, all
// in one transaction with the execution row locked.
import type pg from 'pg';
import { newId } from '@svc/db';
import type { FlowDefinition, RetryPolicy } from '@svc/flow-schema';
import { retryDelayMs, shouldRetry } from '@svc/state-machine';
import { parseDuration } from '@svc/timing';
import { advance, lockExecution, queueRuns, type FollowUp } from './advance.js';
import { RETRY_DEFAULTS } from './constants.js';
import { CHANNELS, history, inTx, notify, type Client } from './db.js';

export interface TaskCompletion {
  state: 'SUCCESS' | 'FAILED' | 'TIMED_OUT' | 'CANCELLED';
  reason: string;
  error: string;
  exitCode: number | null;
  outputs?: Record<string, unknown>;
  metrics?: { name: string; value: number; tags?: Record<string, string> }[];
}

function retryPolicy(def: FlowDefinition, taskKey: string) {
  const task = def.tasks.find((t) => t.id === taskKey);
  const p: RetryPolicy = { ...(def.retry ?? {}), ...(task?.retry ?? {}) };
  return {
    maxAttempts: p.max_attempts ?? RETRY_DEFAULTS.maxAttempts,
    backoff: p.backoff ?? RETRY_DEFAULTS.backoff,
    initialMs: p.initial ? parseDuration(p.initial) : RETRY_DEFAULTS.initialMs,
    maxMs: p.max ? parseDuration(p.max) : RETRY_DEFAULTS.maxMs,
  };
}

/**
 * Ends a RUNNING task run (in a transaction the caller holds, the execution
 * locked). Returns false when the task run was not RUNNING (a late or repeated
 * report changes nothing).
 */
export async function endTaskRun(c: Client, taskRunId: string, done: TaskCompletion, clock: Date | (() => Date)): Promise<{ ended: boolean; followUps: FollowUp[] }> {
  const tr = (
    await c.query<{ id: string; execution_id: string; task_key: string; attempt: number; state: string; started_at: Date | null; pool: string; executor_type: string; task_type: string }>(
      `SELECT id, execution_id, task_key, attempt, state, started_at, pool, executor_type, task_type FROM task_runs WHERE id = $1`,
      [taskRunId],
    )
  ).rows[0];
  if (!tr) return { ended: false, followUps: [] };
  const ex = await lockExecution(c, tr.execution_id);
  const locked = (await c.query<{ state: string }>(`SELECT state FROM task_runs WHERE id = $1 FOR UPDATE`, [taskRunId])).rows[0];
  if (!ex || locked?.state !== 'RUNNING') return { ended: false, followUps: [] };
  // Read the time only once the locks are held: transactions that waited for
  // this execution must not write times earlier than the one before them.
  const now = typeof clock === 'function' ? clock() : clock;
  await c.query(
    `UPDATE task_runs SET state = $2, reason = $3, error = $4, exit_code = $5, outputs = $6, ended_at = $7, duration_ms = $8, updated_at = $7 WHERE id = $1`,
    [taskRunId, done.state, done.reason, done.error.slice(0, 4000), done.exitCode, done.outputs ? JSON.stringify(done.outputs) : null, now, tr.started_at ? now.getTime() - tr.started_at.getTime() : null],
  );
  await history(c, [{ executionId: tr.execution_id, taskRunId, from: 'RUNNING', to: done.state, reason: done.reason }], now);
  if (done.metrics?.length) {
    await c.query(
      `INSERT INTO task_metrics (execution_id, task_run_id, task_key, name, value, tags, at)
       SELECT $1, $2, $3, n, v, t::jsonb, $7 FROM unnest($4::text[], $5::float8[], $6::text[]) AS m(n, v, t)`,
      [tr.execution_id, taskRunId, tr.task_key, done.metrics.map((m) => m.name), done.metrics.map((m) => m.value), done.metrics.map((m) => JSON.stringify(m.tags ?? {})), now],
    );
  }
  // Retry FAILED and TIMED_OUT attempts (lost, instance_shutdown and timeout included) while the execution runs on.
  if ((done.state === 'FAILED' || done.state === 'TIMED_OUT') && ex.state === 'RUNNING') {
    const policy = retryPolicy(ex.definition, tr.task_key);
    if (shouldRetry(policy, tr.attempt)) {
      const id = newId();
      await c.query(
        `INSERT INTO task_runs (id, execution_id, task_key, task_type, executor_type, pool, state, attempt, spec, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, 'PENDING', $7, (SELECT spec FROM task_runs WHERE id = $9), $8, $8)`,
        [id, tr.execution_id, tr.task_key, tr.task_type, tr.executor_type, tr.pool, tr.attempt + 1, now, taskRunId],
      );
      await history(c, [{ executionId: tr.execution_id, taskRunId: id, from: null, to: 'PENDING', reason: 'retry' }], now);
      await queueRuns(c, [{ id, execution_id: tr.execution_id, state: 'PENDING', pool: tr.pool, executor_type: tr.executor_type }], now, new Date(now.getTime() + retryDelayMs(policy, tr.attempt)));
    }
  }
  await notify(c, CHANNELS.changed, tr.execution_id);
  return { ended: true, followUps: await advance(c, ex, now) };
}

export async function completeTaskRun(pool: pg.Pool, taskRunId: string, done: TaskCompletion, now: () => Date): Promise<{ ended: boolean; followUps: FollowUp[] }> {
  return inTx(pool, (c) => endTaskRun(c, taskRunId, done, now));
}
