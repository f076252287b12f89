// A subflow task run and the child execution it starts: the link between
// them, and finding a child a lost answer or an earlier attempt left behind.
import type { Queryable } from '@svc/db';

/** Links subflow task run `taskRunId` to its child execution `childId`. */
export async function linkChild(db: Queryable, p: { taskRunId: string; childId: string }): Promise<void> {
  await db.query(`UPDATE task_runs SET child_execution_id = $2 WHERE id = $1`, [p.taskRunId, p.childId]);
}

/** The first child execution another attempt (`taskRunId` is this one) of task `taskKey` of execution `executionId` started. */
export async function childOfEarlierAttempt(db: Queryable, p: { executionId: string; taskKey: string; taskRunId: string }): Promise<{ id: string } | undefined> {
  const r = await db.query<{ id: string }>(
    `SELECT e.id FROM executions e JOIN task_runs t ON t.id = e.trigger_payload->>'parent_task_run_id'
       WHERE e.parent_execution_id = $1 AND e.trigger_type = 'subflow' AND t.execution_id = $1 AND t.task_key = $2 AND t.id <> $3
       ORDER BY e.created_at, e.id LIMIT 1`,
    [p.executionId, p.taskKey, p.taskRunId],
  );
  return r.rows[0];
}

/** The child execution subflow task run `taskRunId` of execution `parentId` started. */
export async function childOf(db: Queryable, p: { parentId: string; taskRunId: string }): Promise<{ id: string } | undefined> {
  const r = await db.query<{ id: string }>(
    `SELECT id FROM executions WHERE parent_execution_id = $1 AND trigger_type = 'subflow' AND trigger_payload->>'parent_task_run_id' = $2 LIMIT 1`,
    [p.parentId, p.taskRunId],
  );
  return r.rows[0];
}

/** The end of a child execution and the state of its parent (a `child_ended` follow-up). */
export interface ChildEndRow {
  state: string;
  outputs: Record<string, unknown> | null;
  error: string;
  parent_state: string;
}

/** The end of child execution `childId` and the state of its parent. */
export async function childEnd(db: Queryable, p: { childId: string }): Promise<ChildEndRow | undefined> {
  const r = await db.query<ChildEndRow>(
    `SELECT e.state, e.outputs, e.error, p.state AS parent_state FROM executions e JOIN executions p ON p.id = e.parent_execution_id WHERE e.id = $1`,
    [p.childId],
  );
  return r.rows[0];
}
