// Transactions as the engine's systems run them: their own on a pool, or a
// savepoint of a transaction the caller holds.
import type pg from 'pg';
import { afterCommitMark, dropAfterCommitSince, inTransaction } from '@svc/db';

export { CHANNELS, LOG_CHANNEL } from './channels.js';

export type Client = pg.PoolClient;

/**
 * Where engine work runs: the pool (each unit of work in a transaction of its
 * own), or a client already in a transaction (its units become savepoints of
 * it: a follow-up's work commits with the removal of its outbox row).
 */
export type Conn = pg.Pool | pg.PoolClient;

const isPool = (db: Conn): db is pg.Pool => 'totalCount' in db;

let savepoints = 0;

/** Runs `fn` in a transaction: its own on a pool, a savepoint of the caller's on a client. */
export async function inTx<T>(db: Conn, fn: (c: Client) => Promise<T>): Promise<T> {
  if (isPool(db)) return inTransaction(db, fn);
  const sp = `svc_sp_${++savepoints}`;
  await db.query(`SAVEPOINT ${sp}`);
  const mark = afterCommitMark(db);
  try {
    const out = await fn(db);
    await db.query(`RELEASE SAVEPOINT ${sp}`);
    return out;
  } catch (err) {
    await db.query(`ROLLBACK TO SAVEPOINT ${sp}`).catch(() => undefined);
    dropAfterCommitSince(db, mark);
    throw err;
  }
}
