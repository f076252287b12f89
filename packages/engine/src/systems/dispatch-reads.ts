// What dispatchers ask of task runs they hold: whether each should stop,
// whether its task started, and the deployment's identity their containers
// are labelled with.
import type pg from 'pg';
import { DEPLOYMENT_ID_SQL } from '../sql/database.js';
import { RUNS_TO_STOP_SQL, STILL_RUNNING_SQL, TASK_RUN_PROGRESS_SQL } from '../sql/task-run-reads.js';

/** Whether the runner of this task run reported that the task started (its `started` event, or a progress of the task's). */
export async function taskStarted(pool: pg.Pool, taskRunId: string): Promise<boolean> {
  const r = await pool.query<{ p: { type?: string; percent?: number } | null }>(TASK_RUN_PROGRESS_SQL, [taskRunId]);
  const p = r.rows[0]?.p;
  return !!p && (p.type === 'started' || p.percent !== undefined);
}

/** Of these task runs, those RUNNING now (a run unknown here, or ended, is not). */
export async function stillRunning(pool: pg.Pool, taskRunIds: string[]): Promise<string[]> {
  if (!taskRunIds.length) return [];
  const r = await pool.query<{ id: string }>(STILL_RUNNING_SQL, [taskRunIds]);
  return r.rows.map((x) => x.id);
}

/** Of these task runs, those to stop: ended, or of an execution no longer RUNNING. */
export async function runsToStop(pool: pg.Pool, taskRunIds: string[]): Promise<string[]> {
  if (!taskRunIds.length) return [];
  const r = await pool.query<{ id: string }>(RUNS_TO_STOP_SQL, [taskRunIds]);
  return r.rows.map((x) => x.id);
}

/** The deployment's identity (sql/database.ts DEPLOYMENT_ID_SQL). */
export function deploymentIdOf(pool: pg.Pool): Promise<string> {
  return pool.query<{ id: string }>(DEPLOYMENT_ID_SQL).then((r) => r.rows[0].id);
}

/** `load` called once, its promise kept; called again after it failed. */
export function onceUntilFailed<T>(load: () => Promise<T>): () => Promise<T> {
  let kept: Promise<T> | undefined;
  return () =>
    (kept ??= load().catch((err: unknown) => {
      kept = undefined;
      throw err;
    }));
}
