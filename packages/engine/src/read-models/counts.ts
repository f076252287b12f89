// Read model of the deployment-wide counts (the gateway's /metrics gauges):
// one statement each, a map from the grouping key to its count. The caller
// chooses the connection and the statement timeout.
import type { Queryable } from '@svc/db';

async function counted(db: Queryable, sql: string): Promise<Map<string, number>> {
  const r = await db.query<{ key: string; n: string }>(sql);
  return new Map(r.rows.map((x) => [x.key, Number(x.n)]));
}

/** Executions by state. */
export function executionsByState(db: Queryable): Promise<Map<string, number>> {
  return counted(db, `SELECT state AS key, count(*) AS n FROM executions GROUP BY state`);
}

/** Task runs by state. */
export function taskRunsByState(db: Queryable): Promise<Map<string, number>> {
  return counted(db, `SELECT state AS key, count(*) AS n FROM task_runs GROUP BY state`);
}

/** QUEUED task runs by pool: the queue depth. */
export function queuedTaskRunsByPool(db: Queryable): Promise<Map<string, number>> {
  return counted(db, `SELECT pool AS key, count(*) AS n FROM task_runs WHERE state = 'QUEUED' GROUP BY pool`);
}
