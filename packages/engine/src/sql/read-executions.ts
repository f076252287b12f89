// Small reads of one execution by id.
import type { Queryable } from '@svc/db';
import type { ExecutionState } from '@svc/state-machine';
import type { ExecutionRow } from '../rows.js';
import { EXECUTION_COLUMNS } from './fragments.js';

/** The state of execution `id` (undefined when there is none). */
export async function executionState(db: Queryable, p: { id: string }): Promise<ExecutionState | undefined> {
  return (await db.query<{ state: ExecutionState }>(`SELECT state FROM executions WHERE id = $1`, [p.id])).rows[0]?.state;
}

/** The snapshot of execution `id`. */
export async function executionSnapshot(db: Queryable, p: { id: string }): Promise<string> {
  return (await db.query<{ snapshot_id: string }>(`SELECT snapshot_id FROM executions WHERE id = $1`, [p.id])).rows[0].snapshot_id;
}

/** An execution as a rerun or restart copies it. */
export interface OriginalRow extends ExecutionRow {
  flow_revision_id: string | null;
  snapshot_id: string;
  snapshot_version: number | null;
  git_sha: string | null;
  trigger_type: string;
}

/** Execution `id` as a rerun or restart copies it. */
export async function original(db: Queryable, p: { id: string }): Promise<OriginalRow | undefined> {
  const r = await db.query<OriginalRow>(`SELECT ${EXECUTION_COLUMNS}, flow_revision_id, snapshot_id, snapshot_version, git_sha, trigger_type FROM executions WHERE id = $1`, [
    p.id,
  ]);
  return r.rows[0];
}

/** The snapshot and restart origin of execution `id`. */
export async function executionPins(db: Queryable, p: { id: string }): Promise<{ snapshot_id: string; restart_of_id: string | null }> {
  return (await db.query<{ snapshot_id: string; restart_of_id: string | null }>(`SELECT snapshot_id, restart_of_id FROM executions WHERE id = $1`, [p.id])).rows[0];
}

/** The namespace of execution `id` (a subflow's parent: what its child may be). */
export async function executionNamespace(db: Queryable, p: { id: string }): Promise<string | undefined> {
  return (await db.query<{ namespace: string }>(`SELECT namespace FROM executions WHERE id = $1`, [p.id])).rows[0]?.namespace;
}
