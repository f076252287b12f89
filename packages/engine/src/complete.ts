// A task run ends: its runner completes it (SUCCESS, FAILED, TIMED_OUT,
// CANCELLED), or the engine ends it (lost, instance_shutdown, timeout). Ending
// is one statement: the run's row (only while it is RUNNING, so a late or
// repeated report changes nothing), its history row, its metrics, the NOTIFY
// hint and a planning request (a `plan_requests` row). What follows (a retry, the next tasks, the
// end of the execution) is decided by the next planning pass (planner.ts).
//
// A completion reported by a task (runner, executor) is masked against the
// secrets its run resolved before it is stored (secret-masking.ts). The
// statement ends a run that recorded secrets only when told the completion is
// masked, so a run without secrets (nearly all) still ends in one statement.
import type pg from 'pg';
import type { MasterKey } from '@svc/config';
import type { AdvanceOptions, FollowUp } from './advance.js';
import type { Client, Conn } from './db.js';
import { END_TASK_RUN_SQL } from './sql/end-task-run.js';
import { planExecutions } from './planner.js';
import { recordedValues, SecretMasker, withheld, type RecordedSecrets } from './secret-masking.js';

export interface TaskCompletion {
  state: 'SUCCESS' | 'FAILED' | 'TIMED_OUT' | 'CANCELLED';
  reason: string;
  error: string;
  exitCode: number | null;
  outputs?: Record<string, unknown>;
  metrics?: { name: string; value: number; tags?: Record<string, string> }[];
}


/**
 * How a completion reported by a task is masked: the master keys that open
 * the secret values recorded on its run. Every completion whose text comes
 * from a task (a runner, an executor) must pass it; completions whose text the
 * engine wrote itself (timeouts, lost runs, shutdown) need not.
 */
export interface Masking {
  masterKeys: readonly MasterKey[];
}


/**
 * Ends a RUNNING task run in one statement (on a pool, or in the caller's
 * transaction). Returns its execution's id, or null when the run was not
 * RUNNING. The caller plans the execution afterwards (completeTaskRun, or a
 * Planner kick). With `masking` (a completion reported by a task), a run that
 * resolved secrets is ended with the completion masked against them.
 */
export async function endTaskRun(c: Client | pg.Pool, taskRunId: string, done: TaskCompletion, clock?: Date | (() => Date), masking?: Masking): Promise<string | null> {
  const now = (typeof clock === 'function' ? clock() : clock) ?? null;
  const ended = await endStatement(c, taskRunId, done, now, !masking);
  if (ended || !masking) return ended;
  // Not ended: the run is not RUNNING, or it recorded secrets (one more read tells which).
  const rec = (await c.query<{ secrets: RecordedSecrets | null }>(`SELECT spec->'secrets' AS secrets FROM task_runs WHERE id = $1 AND state = 'RUNNING'`, [taskRunId])).rows[0]?.secrets;
  if (!rec) return null;
  const values = await recordedValues(c, taskRunId, rec, masking.masterKeys);
  return endStatement(c, taskRunId, values ? new SecretMasker(values).completion(done) : withheld(done), now, true);
}

async function endStatement(c: Client | pg.Pool, taskRunId: string, done: TaskCompletion, now: Date | null, masked: boolean): Promise<string | null> {
  const metrics = done.metrics ?? [];
  const r = await c.query<{ execution_id: string }>({
    name: 'svc-end-task-run',
    text: END_TASK_RUN_SQL,
    values: [
      taskRunId, done.state, done.reason, done.error.slice(0, 4000), done.exitCode, done.outputs ? JSON.stringify(done.outputs) : null, now,
      metrics.map((m) => m.name), metrics.map((m) => m.value), metrics.map((m) => JSON.stringify(m.tags ?? {})), masked,
    ],
  });
  return r.rows[0]?.execution_id ?? null;
}

/**
 * Ends a RUNNING task run and plans its execution at once (waiting for a pass
 * that holds it). Returns the follow-ups for the caller to run.
 */
export async function completeTaskRun(
  pool: Conn,
  taskRunId: string,
  done: TaskCompletion,
  now: () => Date,
  opts: AdvanceOptions & { masking?: Masking } = {},
): Promise<{ ended: boolean; followUps: FollowUp[] }> {
  const executionId = await endTaskRun(pool, taskRunId, done, now, opts.masking);
  if (!executionId) return { ended: false, followUps: [] };
  return { ended: true, followUps: (await planExecutions(pool, now, [executionId], opts)).followUps };
}

/** Task runs ended by endTaskRuns, and their executions (each once). */
export interface EndedRuns {
  ended: string[];
  executions: string[];
}

/** Ends many RUNNING task runs with the same completion (on a pool, or in the caller's transaction); plan them with planEnded. */
export async function endTaskRuns(c: Client | pg.Pool, taskRunIds: string[], done: TaskCompletion, now?: Date | (() => Date)): Promise<EndedRuns> {
  const ended: string[] = [];
  const executions = new Set<string>();
  for (const id of taskRunIds) {
    const ex = await endTaskRun(c, id, done, now);
    if (ex) {
      ended.push(id);
      executions.add(ex);
    }
  }
  return { ended, executions: [...executions] };
}

/** Plans the executions of task runs endTaskRuns ended, in one pass. */
export async function planEnded(pool: Conn, now: () => Date, r: EndedRuns): Promise<{ ended: string[]; followUps: FollowUp[] }> {
  if (!r.executions.length) return { ended: r.ended, followUps: [] };
  return { ended: r.ended, followUps: (await planExecutions(pool, now, r.executions)).followUps };
}

/** Ends many RUNNING task runs with the same completion, then plans their executions in one pass. */
export async function completeTaskRuns(pool: pg.Pool, taskRunIds: string[], done: TaskCompletion, now: () => Date): Promise<{ ended: string[]; followUps: FollowUp[] }> {
  return planEnded(pool, now, await endTaskRuns(pool, taskRunIds, done, now));
}
