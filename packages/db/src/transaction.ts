import type pg from 'pg';

/**
 * What runs once the transaction of a client commits (afterCommit): one list
 * per client while inTransaction holds it. A client with no list here is in
 * no transaction of inTransaction's.
 */
const onCommit = new WeakMap<pg.ClientBase, (() => void)[]>();

/**
 * Runs `fn` once what `db` has written is committed: at once on a pool (each
 * statement commits on its own) or a client in no transaction of
 * inTransaction's; after the COMMIT of the transaction inTransaction holds
 * `db` in; never when that transaction rolls back. For what must not happen
 * twice when a transaction is retried (a metric's count). `fn` must not
 * throw; if it does, the error is dropped (the transaction is committed).
 */
export function afterCommit(db: pg.Pool | pg.ClientBase, fn: () => void): void {
  const list = onCommit.get(db as pg.ClientBase);
  if (list) list.push(fn);
  else run([fn]);
}

/** Where a savepoint of `c` begins, for dropAfterCommitSince when it is rolled back. */
export const afterCommitMark = (c: pg.ClientBase): number => onCommit.get(c)?.length ?? 0;

/** A savepoint of `c` was rolled back: what it asked to run after the commit (since `mark`) is dropped. */
export function dropAfterCommitSince(c: pg.ClientBase, mark: number): void {
  const list = onCommit.get(c);
  if (list && list.length > mark) list.length = mark;
}

function run(fns: (() => void)[]): void {
  for (const fn of fns) {
    try {
      fn();
    } catch {
      // Committed all the same.
    }
  }
}

/** Runs `fn` in a transaction (READ ONLY with `readOnly`) on one pooled connection: COMMIT on success, ROLLBACK on any error. What `fn` hands afterCommit runs after the COMMIT. */
export async function inTransaction<T>(
  pool: pg.Pool,
  fn: (c: pg.PoolClient) => Promise<T>,
  /** `fnBegins`: `fn` sends BEGIN itself (in a pipeline with its first statements); it is committed or rolled back here all the same. */
  opts: { readOnly?: boolean; fnBegins?: boolean } = {},
): Promise<T> {
  const c = await pool.connect();
  const committed: (() => void)[] = [];
  onCommit.set(c, committed);
  try {
    if (!opts.fnBegins) await c.query(opts.readOnly ? 'BEGIN READ ONLY' : 'BEGIN');
    const out = await fn(c);
    const end = await c.query('COMMIT');
    onCommit.delete(c);
    // PostgreSQL answers COMMIT of a transaction a failed statement aborted with ROLLBACK, not an error.
    if (end.command !== 'ROLLBACK') run(committed);
    return out;
  } catch (err) {
    await c.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    onCommit.delete(c);
    c.release();
  }
}
