// A flow's concurrency limit: its starts and its queue are serialized by a
// transaction-level advisory lock on the flow's key, under which the count of
// running executions and the oldest QUEUED one are read.
import { EXECUTION_COLUMNS } from './fragments.js';

/** Takes the advisory lock of concurrency key $1 until the transaction ends. */
export const CONCURRENCY_LOCK_SQL = `SELECT pg_advisory_xact_lock(hashtextextended('svc-concurrency:' || $1, 0))`;

/** Executions of key $1 running (`n`) and waiting (`queued`). */
export const CONCURRENCY_COUNTS_SQL = `SELECT count(*) FILTER (WHERE state IN ('RUNNING', 'CANCELLING'))::int AS n, count(*) FILTER (WHERE state = 'QUEUED')::int AS queued
       FROM executions WHERE concurrency_key = $1 AND state IN ('RUNNING', 'CANCELLING', 'QUEUED')`;

/** The oldest QUEUED execution of key $1, locked, with its flow's limit. */
export const NEXT_QUEUED_SQL = `SELECT ${EXECUTION_COLUMNS}, (definition->'concurrency'->>'limit')::int AS limit FROM executions
         WHERE concurrency_key = $1 AND state = 'QUEUED' ORDER BY created_at, id LIMIT 1 FOR UPDATE`;

/** Executions of key $1 running now. */
export const CONCURRENCY_RUNNING_SQL = `SELECT count(*)::int AS n FROM executions WHERE concurrency_key = $1 AND state IN ('RUNNING', 'CANCELLING')`;
