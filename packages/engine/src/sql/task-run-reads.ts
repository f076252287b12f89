// Reads of task runs that dispatchers and the gateway ask the engine for:
// what a runner needs, whether a run should stop, whether its task started.
import type { Queryable } from '@svc/db';

/** The snapshot of task run `taskRunId`'s execution (the bundle a runner fetches); undefined when there is no such run. */
export async function taskRunSnapshot(db: Queryable, p: { taskRunId: string }): Promise<string | undefined> {
  const r = await db.query<{ snapshot_id: string }>(`SELECT e.snapshot_id FROM task_runs t JOIN executions e ON e.id = t.execution_id WHERE t.id = $1`, [p.taskRunId]);
  return r.rows[0]?.snapshot_id;
}

/** The latest runner event of task run `taskRunId`. */
export async function taskRunProgress(db: Queryable, p: { taskRunId: string }): Promise<{ type?: string; percent?: number } | null | undefined> {
  return (await db.query<{ p: { type?: string; percent?: number } | null }>(`SELECT progress AS p FROM task_runs WHERE id = $1`, [p.taskRunId])).rows[0]?.p;
}

/**
 * Whether the runner of RUNNING task run `taskRunId` has called in since the
 * claim: a runner event, or a heartbeat after the claim (the claim sets
 * `last_heartbeat_at` no later than `claimed_at`; the runner heartbeats every
 * 10 s from its start). Undefined when the run is not RUNNING.
 */
export async function runnerCalledIn(db: Queryable, p: { taskRunId: string }): Promise<boolean | undefined> {
  const r = await db.query<{ called_in: boolean }>(
    `SELECT (progress IS NOT NULL OR last_heartbeat_at > claimed_at) AS called_in FROM task_runs WHERE id = $1 AND state = 'RUNNING'`,
    [p.taskRunId],
  );
  return r.rows[0]?.called_in;
}

/** Whether task run `taskRunId`'s execution is being cancelled. */
export async function beingCancelled(db: Queryable, p: { taskRunId: string }): Promise<boolean> {
  const r = await db.query(`SELECT 1 FROM task_runs t JOIN executions e ON e.id = t.execution_id WHERE t.id = $1 AND e.state = 'CANCELLING'`, [p.taskRunId]);
  return r.rowCount === 1;
}

/** Of the task runs `ids`, those RUNNING. */
export async function stillRunning(db: Queryable, p: { ids: string[] }): Promise<string[]> {
  const r = await db.query<{ id: string }>(`SELECT id FROM task_runs WHERE id = ANY($1) AND state = 'RUNNING'`, [p.ids]);
  return r.rows.map((x) => x.id);
}

/** Of the task runs `ids`, those to stop: ended, or of an execution no longer RUNNING. */
export async function runsToStop(db: Queryable, p: { ids: string[] }): Promise<string[]> {
  const r = await db.query<{ id: string }>(
    `SELECT t.id FROM task_runs t JOIN executions e ON e.id = t.execution_id WHERE t.id = ANY($1) AND (t.state <> 'RUNNING' OR e.state <> 'RUNNING')`,
    [p.ids],
  );
  return r.rows.map((x) => x.id);
}
