// The dashboard's statements over its rollup of closed UTC hours
// (dashboard_hours, dashboard_hour_figures: migration
// 20261125200000_dashboard_hours explains the marks, the advisory locks and
// the triggers that keep them true).
//
// One fragment (FIGURES_OF) turns executions into figures per hour and
// namespace; the rollup stores its rows and the read runs it over the hours
// without a mark, so a rolled-up hour and a live one are the same numbers by
// construction.
import type pg from 'pg';

const HOUR_MS = 3_600_000;

/** SQL: namespace column `col` is the namespace `$n` or one of its children (`a.b`: `a.b`, `a.b.c`, never `a.bc`); any when `$n` is null. */
export const inNamespace = (col: string, n: string) => `(${n}::text IS NULL OR ${col} = ${n} OR ${col} LIKE ${n} || '.%')`;

/**
 * SQL: figures per hour and namespace of the executions ended in the hours of
 * relation `hours` (column `hour`), in namespace `$ns` and its children when
 * given: counts per end state and every duration of SUCCESS, FAILED and
 * TIMED_OUT, ascending, 8 bytes each (a null duration adds nothing to a
 * percentile, as in percentile_cont).
 */
const FIGURES_OF = (hours: string, ns?: string) => `
  SELECT h.hour, e.namespace,
    (count(*) FILTER (WHERE e.state = 'SUCCESS'))::int AS success,
    (count(*) FILTER (WHERE e.state = 'FAILED'))::int AS failed,
    (count(*) FILTER (WHERE e.state = 'TIMED_OUT'))::int AS timed_out,
    (count(*) FILTER (WHERE e.state = 'CANCELLED'))::int AS cancelled,
    (count(*) FILTER (WHERE e.state = 'SKIPPED'))::int AS skipped,
    COALESCE(string_agg(int8send(e.duration_ms), ''::bytea ORDER BY e.duration_ms)
               FILTER (WHERE e.state IN ('SUCCESS', 'FAILED', 'TIMED_OUT') AND e.duration_ms IS NOT NULL), ''::bytea) AS durations_ms
  FROM ${hours} h
  JOIN executions e ON e.ended_at >= h.hour AND e.ended_at < h.hour + interval '1 hour'
  WHERE e.state IN ('SUCCESS', 'FAILED', 'TIMED_OUT', 'CANCELLED', 'SKIPPED')${ns ? ` AND ${inNamespace('e.namespace', ns)}` : ''}
  GROUP BY h.hour, e.namespace`;

/** The closed hours in [from, until) without a mark, oldest first. */
export async function unrolledHours(q: pg.Pool | pg.PoolClient, from: Date, until: Date): Promise<Date[]> {
  if (until.getTime() <= from.getTime()) return [];
  const r = await q.query<{ hour: Date }>(
    `SELECT h AS hour FROM generate_series($1::timestamptz, $2::timestamptz - interval '1 hour', interval '1 hour') h
     WHERE NOT EXISTS (SELECT 1 FROM dashboard_hours d WHERE d.hour = h)
     ORDER BY h`,
    [from, until],
  );
  return r.rows.map((x) => x.hour);
}

/**
 * Rolls up these hours, in one transaction on `c`. Each must be closed (ended
 * by the caller's clock): a marked hour is not read live again until a change
 * to its executions deletes the mark. An hour whose lock another transaction
 * holds (a roll-up elsewhere, or an uncommitted change to an execution ended
 * in it) is left for a later request, which reads it live meanwhile: this
 * never waits for a lock, so it cannot deadlock with the writers.
 * Marks older than `forgetBefore` are deleted (no window reaches them).
 * Returns the hours it marked.
 */
export async function rollUpHours(c: pg.PoolClient, hours: Date[], now: Date, forgetBefore: Date): Promise<Date[]> {
  for (const h of hours) if (h.getTime() % HOUR_MS !== 0) throw new RangeError(`not a UTC hour: ${h.toISOString()}`);
  await c.query('BEGIN');
  try {
    const locked = await c.query<{ hour: Date }>(
      `SELECT h AS hour FROM unnest($1::timestamptz[]) h WHERE pg_try_advisory_xact_lock(dashboard_hour_lock_key(h))`,
      [hours],
    );
    // A statement after the locks: it sees a roll-up another instance committed before we got the lock (and skips it).
    const marked = await c.query<{ hour: Date }>(
      `WITH marked AS (
         INSERT INTO dashboard_hours (hour, rolled_at)
         SELECT h, $2 FROM unnest($1::timestamptz[]) h
         ON CONFLICT (hour) DO NOTHING
         RETURNING hour),
       figures AS (
         INSERT INTO dashboard_hour_figures (hour, namespace, success, failed, timed_out, cancelled, skipped, durations_ms)
         ${FIGURES_OF('marked')})
       SELECT hour FROM marked ORDER BY hour`,
      [locked.rows.map((x) => x.hour), now],
    );
    await c.query(`DELETE FROM dashboard_hours WHERE hour < $1`, [forgetBefore]);
    await c.query('COMMIT');
    return marked.rows.map((x) => x.hour);
  } catch (err) {
    await c.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

const SUMS = ['success', 'failed', 'timed_out', 'cancelled', 'skipped'].map((k) => `sum(f.${k})::int AS ${k}`).join(', ');

export interface HourFigures {
  hour: Date;
  success: number;
  failed: number;
  timed_out: number;
  cancelled: number;
  skipped: number;
  /** Durations of the hour's SUCCESS, FAILED and TIMED_OUT executions, in no particular order. */
  durations: Float64Array;
}

/**
 * Figures per UTC hour of the executions ended in [from, to) (whole hours)
 * in namespace `namespace` and its children (all when null): marked hours
 * from the rollup, every other hour from `executions`, in one statement (one
 * snapshot, so an hour is counted once, from one side). Hours without
 * executions are left out.
 */
export async function hourFigures(q: pg.Pool | pg.PoolClient, o: { from: Date; to: Date; namespace: string | null }): Promise<HourFigures[]> {
  const r = await q.query<Omit<HourFigures, 'durations'> & { durations: Buffer }>(HOUR_FIGURES_SQL, [o.from, o.to, o.namespace]);
  return r.rows.map((x) => ({ ...x, durations: readDurations(x.durations) }));
}

/** hourFigures' statement ($1 from, $2 to, $3 namespace or null); exported for the benchmark's EXPLAIN. */
export const HOUR_FIGURES_SQL =
  // Figures rows exist only with their hour's mark (written in one transaction, deleted by ON DELETE CASCADE).
  // Grouped per hour, not per bucket: no sort of the durations for the grouping; the caller sums the buckets.
  `SELECT f.hour, ${SUMS}, string_agg(f.durations_ms, ''::bytea) AS durations
   FROM dashboard_hour_figures f
   WHERE f.hour >= $1 AND f.hour < $2 AND ${inNamespace('f.namespace', '$3')}
   GROUP BY f.hour
   UNION ALL
   -- Each hour without a mark on its own (LATERAL): an index range scan of its end times, whatever the namespace.
   SELECT u.hour, ${SUMS}, string_agg(f.durations_ms, ''::bytea) AS durations
   FROM generate_series($1::timestamptz, $2::timestamptz - interval '1 hour', interval '1 hour') u(hour)
   CROSS JOIN LATERAL (${FIGURES_OF('(SELECT u.hour)', '$3')}) f
   WHERE NOT EXISTS (SELECT 1 FROM dashboard_hours d WHERE d.hour = u.hour)
   GROUP BY u.hour`;

/**
 * Durations stored as 8-byte big-endian integers (int8send), back to back.
 * Durations stay far below 2^53, so doubles hold them exactly.
 */
export function readDurations(b: Buffer): Float64Array {
  if (b.length % 8 !== 0) throw new RangeError(`durations: ${b.length} bytes, not a multiple of 8`);
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const out = new Float64Array(b.length / 8);
  for (let i = 0; i < out.length; i++) out[i] = view.getInt32(8 * i) * 4294967296 + view.getUint32(8 * i + 4);
  return out;
}
