// The queue's statements, one pure function each: a table and arguments in,
// SQL text and values out (pg-boss's plans.ts). Names come from a checked
// JobTable, values always go as parameters. The queue (queue.ts) runs them.
import { checked, type JobTable } from './table.js';

/** A statement: its text and its values. */
export interface Statement {
  text: string;
  values: unknown[];
}

/** `now()` as a value of `set`: the column is set to the database's clock, not to a value of this process. */
export const NOW: unique symbol = Symbol('now()');

/** `SET` items of the owner's own columns (`sent_at = now()`), their values appended to `values`. */
function assignments(set: Record<string, unknown>, values: unknown[]): string[] {
  return Object.entries(set).map(([c, v]) => {
    if (v === NOW) return `${checked(c, 'column')} = now()`;
    values.push(v);
    return `${checked(c, 'column')} = $${values.length}`;
  });
}

/**
 * Writes a job (the owner's `row`, its key among the columns) unless the
 * same job (by the table's `unique` columns) exists, and notifies the
 * table's channel with the key when it was written: one statement, so the
 * notification goes with the commit of the caller's transaction. Answers one
 * row when written, none when the job existed (the notification is a
 * function in FROM, so no `void` column is answered, which Prisma's raw
 * queries cannot read).
 */
export function enqueueStatement(t: JobTable, row: Record<string, unknown>): Statement {
  const cols = Object.keys(row).map((c) => checked(c, 'column'));
  if (!Object.hasOwn(row, t.key)) throw new TypeError(`job table ${t.table}: the row has no key (${t.key})`);
  const values = Object.values(row);
  values.push(t.channel);
  return {
    text: `WITH written AS (
             INSERT INTO ${t.table} (${cols.join(', ')}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(', ')})
             ON CONFLICT (${t.unique.join(', ')}) DO NOTHING RETURNING ${t.key}::text AS key)
           SELECT w.key FROM written w CROSS JOIN LATERAL pg_notify($${values.length}, w.key) AS n`,
    values,
  };
}

/**
 * Claims up to `limit` due jobs for `worker` (waiting and due, or claimed
 * with a lapsed claim) for `leaseMs`, counting an attempt each: rows locked
 * with FOR UPDATE SKIP LOCKED in the statement that marks them, so any
 * number of workers claim each job once. Oldest due first.
 */
export function claimStatement(t: JobTable, worker: string, leaseMs: number, limit: number, where: Record<string, unknown> = {}): Statement {
  const values: unknown[] = [t.states.running, worker, leaseMs, t.states.queued, limit];
  // Only jobs whose owner's columns equal `where` (one git source's sync requests).
  const only = Object.entries(where).map(([c, v]) => {
    values.push(v);
    return ` AND ${checked(c, 'column')} = $${values.length}`;
  });
  return {
    text: `UPDATE ${t.table} SET ${t.status} = $1, ${t.lockedBy} = $2, ${t.lockedUntil} = now() + $3 * interval '1 millisecond', ${t.attempts} = ${t.attempts} + 1
             WHERE ${t.key} IN (
               SELECT ${t.key} FROM ${t.table}
                WHERE ((${t.status} = $4 AND ${t.runAt} <= now()) OR (${t.status} = $1 AND ${t.lockedUntil} < now()))${only.join('')}
                ORDER BY ${t.runAt} LIMIT $5 FOR UPDATE SKIP LOCKED)
           RETURNING ${t.key}::text AS job_key, ${t.attempts} AS job_attempts${t.returning.map((c) => `, ${c}`).join('')}`,
    values,
  };
}

/** Moves the claim of a job `worker` holds to `leaseMs` from now (a long job renews it while it runs). */
export function extendStatement(t: JobTable, key: string, worker: string, leaseMs: number): Statement {
  return {
    text: `UPDATE ${t.table} SET ${t.lockedUntil} = now() + $3 * interval '1 millisecond' WHERE ${t.key} = $1 AND ${t.lockedBy} = $2 AND ${t.status} = $4`,
    values: [key, worker, leaseMs, t.states.running],
  };
}

/**
 * Marks a claimed job done, with `status` (the table's succeeded status, or
 * one of its `alsoSucceeded`), and sets the owner's `set` columns, if
 * `worker` still holds its claim.
 */
export function succeedStatement(t: JobTable, key: string, worker: string, set: Record<string, unknown>, status = t.states.succeeded): Statement {
  if (status !== t.states.succeeded && !(t.states.alsoSucceeded ?? []).includes(status)) {
    throw new TypeError(`job table ${t.table}: ${JSON.stringify(status)} is not a status a job succeeds with`);
  }
  const values: unknown[] = [key, worker, status];
  const extra = assignments(set, values);
  return {
    text: `UPDATE ${t.table} SET ${[`${t.status} = $3`, `${t.error} = ''`, `${t.lockedBy} = NULL`, `${t.lockedUntil} = NULL`, ...extra].join(', ')}
            WHERE ${t.key} = $1 AND ${t.lockedBy} = $2`,
    values,
  };
}

/**
 * Records a failed attempt of a claimed job, if `worker` still holds its
 * claim: failed for good (`final`), or waiting again, due in `retryMs`.
 */
export function failStatement(t: JobTable, key: string, worker: string, o: { final: boolean; error: string; retryMs: number; set: Record<string, unknown> }): Statement {
  const values: unknown[] = [key, worker, o.final ? t.states.failed : t.states.queued, o.error, o.retryMs];
  const extra = assignments(o.set, values);
  return {
    text: `UPDATE ${t.table} SET ${[
      `${t.status} = $3`,
      `${t.error} = $4`,
      `${t.runAt} = now() + $5 * interval '1 millisecond'`,
      `${t.lockedBy} = NULL`,
      `${t.lockedUntil} = NULL`,
      ...extra,
    ].join(', ')}
            WHERE ${t.key} = $1 AND ${t.lockedBy} = $2`,
    values,
  };
}
