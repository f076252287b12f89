// Named leases held through one row each (`leases`). A lease is held by one
// holder until it expires; the holder renews it well before. Whoever finds it
// expired takes it over in one statement, so two contenders never both win.
// Times are the database's clock unless a test passes its own: holders on
// different hosts judge expiry against one clock, so skew cannot hand a live
// lease to a second holder.
import type { Queryable } from './queryable.js';

export interface LeaseState {
  name: string;
  holderId: string;
  acquiredAt: Date;
  expiresAt: Date;
}

/**
 * Takes the lease when it is free, expired, or already ours; renews it when
 * ours. Returns true when `holderId` holds the lease afterwards.
 */
export async function acquireLease(db: Queryable, name: string, holderId: string, ttlMs: number, now?: Date): Promise<boolean> {
  const r = await db.query(
    `INSERT INTO leases (name, holder_id, acquired_at, renewed_at, expires_at)
     SELECT $1, $2, at, at, at + $4 * interval '1 millisecond' FROM (SELECT COALESCE($3::timestamptz, clock_timestamp()) AS at) n
     ON CONFLICT (name) DO UPDATE
       SET holder_id = EXCLUDED.holder_id,
           acquired_at = CASE WHEN leases.holder_id = EXCLUDED.holder_id THEN leases.acquired_at ELSE EXCLUDED.acquired_at END,
           renewed_at = EXCLUDED.renewed_at,
           expires_at = EXCLUDED.expires_at
       WHERE leases.holder_id = EXCLUDED.holder_id OR leases.expires_at <= EXCLUDED.renewed_at
     RETURNING holder_id`,
    [name, holderId, now ?? null, ttlMs],
  );
  return r.rowCount === 1;
}

/** Extends a lease we hold and that has not expired. False when it was lost. */
export async function renewLease(db: Queryable, name: string, holderId: string, ttlMs: number, now?: Date): Promise<boolean> {
  const r = await db.query(
    `UPDATE leases SET renewed_at = n.at, expires_at = n.at + $4 * interval '1 millisecond'
     FROM (SELECT COALESCE($3::timestamptz, clock_timestamp()) AS at) n
     WHERE name = $1 AND holder_id = $2 AND expires_at > n.at`,
    [name, holderId, now ?? null, ttlMs],
  );
  return r.rowCount === 1;
}

/** Gives the lease up at once (clean shutdown) so another instance takes it without waiting. */
export async function releaseLease(db: Queryable, name: string, holderId: string): Promise<void> {
  await db.query(`DELETE FROM leases WHERE name = $1 AND holder_id = $2`, [name, holderId]);
}

export async function readLease(db: Queryable, name: string): Promise<LeaseState | null> {
  const r = await db.query<{ name: string; holder_id: string; acquired_at: Date; expires_at: Date }>(
    `SELECT name, holder_id, acquired_at, expires_at FROM leases WHERE name = $1`,
    [name],
  );
  const row = r.rows[0];
  return row ? { name: row.name, holderId: row.holder_id, acquiredAt: row.acquired_at, expiresAt: row.expires_at } : null;
}
