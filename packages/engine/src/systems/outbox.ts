// Durable follow-ups. A change that causes work outside the rows it locked
// (an ended execution's waiting parent, its flow's concurrency queue, its
// flow triggers; a cancelled execution's children) writes that work as
// `engine_outbox` rows in its own transaction, so a crash after the commit
// cannot lose it. Whoever committed drains its rows at once (the fast path,
// as fast as the in-memory follow-ups were); any instance's backstop drains
// what is left. Each row is taken with FOR UPDATE SKIP LOCKED and deleted in
// the transaction that holds it while its work is done: two instances never
// do one row at once, and a crash mid-way leaves the row for the next
// drainer. Every follow-up's work is idempotent (it acts only while its
// target is in the state it expects), so doing one again after a crash
// between its work and the delete changes nothing.
//
//   producer:  BEGIN; change; INSERT engine_outbox ...; COMMIT; runFollowUps(ids)
//   drainer:   BEGIN; SELECT ... FOR UPDATE SKIP LOCKED; work; DELETE; COMMIT
import type pg from 'pg';
import { inTransaction, newId } from '@svc/db';
import type { Client } from '../db.js';
import { followUpDone, pendingFollowUps, recordFollowUps as insertFollowUps, takeFollowUp } from '../sql/outbox.js';
import type { FollowUp } from '../types.js';

export type { FollowUp } from '../types.js';

/** Writes follow-ups in the caller's transaction; returns them with their row ids. */
export async function recordFollowUps(c: Client, follow: FollowUp[]): Promise<FollowUp[]> {
  if (!follow.length) return [];
  const rows = follow.map((f) => {
    // eslint-disable-next-line @typescript-eslint/no-unused-vars -- the rest is the payload: the old row id is left out by name
    const { id: _old, kind, ...payload } = f;
    return { id: newId(), kind, payload };
  });
  await insertFollowUps(c, { rows });
  return follow.map((f, i) => ({ ...f, id: rows[i].id }));
}

/** The outbox rows of one pool: taken one at a time, and the backstop's pick. */
export class Outbox {
  constructor(private readonly pool: pg.Pool) {}

  /**
   * Runs `work` for the outbox row `id` in the transaction that holds the row
   * (the work's own transactions become savepoints of it), and deletes the row
   * in that transaction. Returns false, doing nothing, when another instance
   * holds the row or it is gone (done already). The work runs on the one
   * connection that holds the row: a drain never waits for a second connection
   * while it holds one, so drains cannot exhaust a pool between them.
   */
  async withRow(id: string, work: (c: Client) => Promise<void>): Promise<boolean> {
    // inTransaction: what the work hands afterCommit (the ends a parent's completion tells its listeners of) runs once
    // this commits. A row not taken leaves a transaction that only tried a lock: committed like any other.
    return inTransaction(this.pool, async (c) => {
      if (!(await takeFollowUp(c, { id }))) return false;
      await work(c);
      await followUpDone(c, { id });
      return true;
    });
  }

  /** Outbox rows older than `olderThanMs` that no instance holds, oldest first (the backstop's pick). */
  async pending(olderThanMs: number, limit: number): Promise<FollowUp[]> {
    const rows = await pendingFollowUps(this.pool, { olderThanMs, limit });
    return rows.map((row) => ({ ...row.payload, kind: row.kind, id: row.id }) as FollowUp);
  }
}
