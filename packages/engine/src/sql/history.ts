// The hints and the record every state change leaves: a NOTIFY for those
// listening, and an append-only history row in the same transaction.

/** A NOTIFY on channel $1 with payload $2 (a wake-up hint; listeners also poll). */
export const NOTIFY_SQL = `SELECT pg_notify($1, $2)`;

/** History rows, one per element of the arrays $1 execution, $2 task run, $3 from, $4 to, $5 reason, $6 actor, $7 time. */
export const INSERT_HISTORY_SQL = `INSERT INTO execution_history (execution_id, task_run_id, from_state, to_state, reason, actor, at)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[])`;
