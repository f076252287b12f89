// Instance rows: one per running service process. Dispatchers' rows (pools and
// executors) decide whether a queued task run has anyone to run it.
//
// Times are the database's clock (`now()`) unless a test passes its own: the
// hosts' clocks may disagree by minutes, and a heartbeat written by one host's
// clock and judged by another's would make a live instance look dead.
import type { Queryable } from './queryable.js';

/** Online means a heartbeat at most this old (spec: 60 seconds). */
export const INSTANCE_ONLINE_WINDOW_MS = 60_000;
/** Heartbeat period (spec: every 10 seconds). */
export const INSTANCE_HEARTBEAT_INTERVAL_MS = 10_000;

export type InstanceKind = 'api-gateway' | 'scheduler' | 'dispatcher' | 'maintenance';

export interface InstanceRegistration {
  id: string;
  kind: InstanceKind;
  hostname: string;
  version: string;
  pools: string[];
  executors: string[];
  metadata?: Record<string, unknown>;
}

export interface InstanceRow extends InstanceRegistration {
  startedAt: Date;
  lastHeartbeatAt: Date;
  stoppedAt: Date | null;
  online: boolean;
}

/** @param now a test's clock; default the database's. */
export async function registerInstance(db: Queryable, inst: InstanceRegistration, now?: Date): Promise<void> {
  await db.query(
    `INSERT INTO instances (id, kind, hostname, version, pools, executors, started_at, last_heartbeat_at, stopped_at, metadata)
     VALUES ($1, $2, $3, $4, $5, $6, COALESCE($7::timestamptz, now()), COALESCE($7::timestamptz, now()), NULL, $8)
     ON CONFLICT (id) DO UPDATE SET last_heartbeat_at = EXCLUDED.last_heartbeat_at, stopped_at = NULL`,
    [inst.id, inst.kind, inst.hostname, inst.version, inst.pools, inst.executors, now ?? null, JSON.stringify(inst.metadata ?? {})],
  );
}

/**
 * Writes a heartbeat. Returns false when the row is gone (removed by
 * retention after a long pause), so the caller registers again.
 */
export async function heartbeatInstance(db: Queryable, id: string, now?: Date): Promise<boolean> {
  const r = await db.query(`UPDATE instances SET last_heartbeat_at = COALESCE($2::timestamptz, now()), stopped_at = NULL WHERE id = $1`, [id, now ?? null]);
  return r.rowCount === 1;
}

/** Replaces the executor types an instance advertises (a dispatcher whose Docker engine stopped answering withdraws docker). */
export async function setInstanceExecutors(db: Queryable, id: string, executors: string[]): Promise<void> {
  await db.query(`UPDATE instances SET executors = $2 WHERE id = $1`, [id, executors]);
}

/** Marks a clean stop: the row stays (Offline) until retention removes it. */
export async function markInstanceStopped(db: Queryable, id: string, now?: Date): Promise<void> {
  await db.query(
    `UPDATE instances SET stopped_at = COALESCE($2::timestamptz, now()), last_heartbeat_at = LEAST(last_heartbeat_at, COALESCE($2::timestamptz, now())) WHERE id = $1`,
    [id, now ?? null],
  );
}

/** @param now a test's clock; default the database's (Online is judged against the clock that wrote the heartbeats). */
export async function listInstances(db: Queryable, now?: Date): Promise<InstanceRow[]> {
  const r = await db.query<{
    id: string;
    kind: InstanceKind;
    hostname: string;
    version: string;
    pools: string[];
    executors: string[];
    metadata: Record<string, unknown>;
    started_at: Date;
    last_heartbeat_at: Date;
    stopped_at: Date | null;
    at: Date;
  }>(
    `SELECT id, kind, hostname, version, pools, executors, metadata, started_at, last_heartbeat_at, stopped_at, COALESCE($1::timestamptz, now()) AS at
      FROM instances ORDER BY kind, started_at`,
    [now ?? null],
  );
  return r.rows.map((row) => ({
    id: row.id,
    kind: row.kind,
    hostname: row.hostname,
    version: row.version,
    pools: row.pools,
    executors: row.executors,
    metadata: row.metadata,
    startedAt: row.started_at,
    lastHeartbeatAt: row.last_heartbeat_at,
    stoppedAt: row.stopped_at,
    online: row.stopped_at === null && row.at.getTime() - row.last_heartbeat_at.getTime() <= INSTANCE_ONLINE_WINDOW_MS,
  }));
}

/** Instance rows whose last heartbeat is older than `cutoff` (at most `limit`). */
export async function deleteSilentInstances(db: Queryable, cutoff: Date, limit: number): Promise<number> {
  const r = await db.query(`DELETE FROM instances WHERE id IN (SELECT id FROM instances WHERE last_heartbeat_at < $1 LIMIT $2)`, [cutoff, limit]);
  return r.rowCount ?? 0;
}
