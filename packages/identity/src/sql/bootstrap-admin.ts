// The first admin, created at start-up before the gateway listens. Hand-written
// on one pooled connection: it runs under an advisory lock, and Prisma's first
// queries in a fresh process compile their plans (about a second each on a
// loaded machine), which would hold the gateway's start back.
import type pg from 'pg';
import { inTransaction, newId } from '@svc/db';
import type { Role } from '@svc/vocabulary';
import type { UserRow } from '../user-row.js';

/** Inserts `user` when no user exists, under a transaction-level lock, so instances starting at once make one. Null when one existed. */
export async function insertFirstUser(pool: pg.Pool, u: { email: string; name: string; passwordHash: string; role: Role; now: Date }): Promise<UserRow | null> {
  return inTransaction(pool, async (c) => {
    await c.query(`SELECT pg_advisory_xact_lock(hashtextextended('svc-bootstrap-admin', 0))`);
    if ((await c.query(`SELECT 1 FROM users LIMIT 1`)).rowCount) return null;
    const r = await c.query<UserRow>(
      `INSERT INTO users (id, email, display_name, password_hash, role, must_change_password, created_at, updated_at, password_changed_at)
       VALUES ($1, $2, $3, $4, $5, false, $6, $6, $6)
       RETURNING id, email, display_name, password_hash, role, disabled, must_change_password, created_at, last_login_at`,
      [newId(), u.email, u.name, u.passwordHash, u.role, u.now],
    );
    return r.rows[0];
  });
}
