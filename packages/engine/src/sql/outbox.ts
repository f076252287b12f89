// The engine's outbox (systems/outbox.ts): follow-ups written in the
// transaction that caused them, taken with SKIP LOCKED, deleted when done.

/** Follow-up rows ($1: a JSON array of {id, kind, payload}). */
export const RECORD_FOLLOW_UPS_SQL = `INSERT INTO engine_outbox (id, kind, payload) SELECT x.id, x.kind, x.payload FROM jsonb_to_recordset($1::jsonb) AS x(id text, kind text, payload jsonb)`;

/** Takes follow-up row $1 unless another instance holds it. */
export const TAKE_FOLLOW_UP_SQL = `SELECT 1 FROM engine_outbox WHERE id = $1 FOR UPDATE SKIP LOCKED`;

/** Deletes follow-up row $1 (its work is done). */
export const FOLLOW_UP_DONE_SQL = `DELETE FROM engine_outbox WHERE id = $1`;

/** Follow-up rows older than $1 ms, oldest first, at most $2 (the backstop's pick). */
export const PENDING_FOLLOW_UPS_SQL = `SELECT id, kind, payload FROM engine_outbox WHERE created_at < now() - $1 * interval '1 millisecond' ORDER BY id LIMIT $2`;
