// The `lost` rule for docker and kubernetes task runs: their container keeps
// running when the dispatcher that started it goes away, and its runner keeps
// reporting to the gateway. Such a run is lost only when its instance is
// offline AND its own task heartbeat is older than SVC_HEARTBEAT_TIMEOUT.
import type { Queryable } from '@svc/db';

export const CONTAINER_EXECUTORS = ['docker', 'kubernetes'] as const;

/**
 * RUNNING docker/kubernetes task runs whose claiming instance is offline
 * (stopped, silent since `offlineBefore`, or its row gone) and whose last task
 * heartbeat (or start, when none came yet) is before `silentBefore`.
 */
export async function selectLostContainerRuns(db: Queryable, offlineBefore: Date, silentBefore: Date, limit = 500): Promise<string[]> {
  const r = await db.query<{ id: string }>(
    `SELECT t.id FROM task_runs t LEFT JOIN instances i ON i.id = t.claimed_by
     WHERE t.state = 'RUNNING' AND t.executor_type = ANY($1)
       AND (i.id IS NULL OR i.stopped_at IS NOT NULL OR i.last_heartbeat_at < $2)
       AND COALESCE(t.last_heartbeat_at, t.started_at, t.claimed_at, t.created_at) < $3
     LIMIT $4`,
    [CONTAINER_EXECUTORS, offlineBefore, silentBefore, limit],
  );
  return r.rows.map((x) => x.id);
}
