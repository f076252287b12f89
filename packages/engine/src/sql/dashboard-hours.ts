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

/** SQL: namespace column `col` is one of the namespaces of array `$w` or a child of one (a caller's readable namespaces); none when empty. */
export const inNamespaces = (col: string, w: string) => `EXISTS (SELECT 1 FROM unnest(${w}::text[]) w WHERE ${col} = w OR left(${col}, length(w) + 1) = w || '.')`;

/**
 * SQL: figures per hour and namespace of the executions ended in the hours of
 * relation `hours` (column `hour`) whose namespace passes `where` (SQL over
 * `e.namespace`) when given: counts per end state and every duration of
 * SUCCESS, FAILED and TIMED_OUT, ascending, 8 bytes each (a null duration
 * adds nothing to a percentile, as in percentile_cont).
 */
const FIGURES_OF = (hours: string, where?: string) => `
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
  WHERE e.state IN ('SUCCESS', 'FAILED', 'TIMED_OUT', 'CANCELLED', 'SKIPPED')${where ? ` AND ${where}` : ''}
  GROUP BY h.hour, e.namespace`;

/** The closed hours in [from, until) without a mark, oldest first. */
export async function unrolledHours(q: pg.Pool | pg.PoolClient, p: { from: Date; until: Date }): Promise<Date[]> {
  const { from, until } = p;
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
export async function rollUpHours(c: pg.PoolClient, p: { hours: Date[]; now: Date; forgetBefore: Date }): Promise<Date[]> {
  const { hours, now, forgetBefore } = p;
  for (const h of hours) if (h.getTime() % HOUR_MS !== 0) throw new RangeError(`not a UTC hour: ${h.toISOString()}`);
  await c.query('BEGIN');
  try {
    const locked = await c.query<{ hour: Date }>(`SELECT h AS hour FROM unnest($1::timestamptz[]) h WHERE pg_try_advisory_xact_lock(dashboard_hour_lock_key(h))`, [hours]);
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

export interface Figures {
  success: number;
  failed: number;
  timed_out: number;
  cancelled: number;
  skipped: number;
  /** Durations of the SUCCESS, FAILED and TIMED_OUT executions, ascending. */
  durations: Float64Array;
}

export interface HourFigures {
  hour: Date;
  /** The version of the hour's mark; null for an hour read from `executions`. */
  version: string | null;
  /** Null for a marked hour whose version the caller knows (it holds the figures). */
  figures: Figures | null;
}

/**
 * Per UTC hour of [from, to) (whole hours), the figures of the executions
 * ended in it, in namespace `namespace` and its children (all when null), or
 * when `within` is given, in those namespaces and their children only:
 * every marked hour with its version, and its figures from the rollup unless
 * `known` (hour in ms → version) holds that very version; every other hour
 * from `executions` (left out when it has none). One statement, one
 * snapshot: an hour is counted once, from one side.
 */
export async function hourFigures(
  q: pg.Pool | pg.PoolClient,
  o: { from: Date; to: Date; namespace: string | null; within?: readonly string[]; known: ReadonlyMap<number, string> },
): Promise<HourFigures[]> {
  type Row = { hour: Date; version: string | null; known: boolean; durations: Buffer | null } & { [K in keyof Omit<Figures, 'durations'>]: number | null };
  const [sql, filter] = o.within ? [HOUR_FIGURES_WITHIN_SQL, o.within] : [HOUR_FIGURES_SQL, o.namespace];
  const r = await q.query<Row>(sql, [o.from, o.to, filter, [...o.known.keys()].map((h) => new Date(h)), [...o.known.values()]]);
  return r.rows.map((x) => ({
    hour: x.hour,
    version: x.version,
    figures: x.known
      ? null
      : {
          success: x.success ?? 0,
          failed: x.failed ?? 0,
          timed_out: x.timed_out ?? 0,
          cancelled: x.cancelled ?? 0,
          skipped: x.skipped ?? 0,
          // One sorted run per namespace, back to back: sorted once here, kept sorted by the caller.
          durations: x.durations ? readDurations(x.durations).sort() : new Float64Array(0),
        },
  }));
}

/** hourFigures' statement, its namespaces passing `where` (SQL over a namespace column). */
const hourFiguresSql = (where: (col: string) => string) =>
  // Figures rows exist only with their hour's mark (written in one transaction, deleted by ON DELETE CASCADE).
  `WITH marks AS MATERIALIZED (
     SELECT d.hour, d.version, k.hour IS NOT NULL AS known
     FROM dashboard_hours d
     LEFT JOIN unnest($4::timestamptz[], $5::int8[]) k(hour, version) ON k.hour = d.hour AND k.version = d.version
     WHERE d.hour >= $1 AND d.hour < $2)
   SELECT m.hour, m.version::text AS version, m.known, f.*
   FROM marks m
   -- An aggregate without GROUP BY: one row per mark, all null when known (the scan is skipped) or empty.
   CROSS JOIN LATERAL (
     SELECT ${SUMS}, string_agg(f.durations_ms, ''::bytea) AS durations
     FROM dashboard_hour_figures f
     WHERE NOT m.known AND f.hour = m.hour AND ${where('f.namespace')}) f
   UNION ALL
   -- Each hour without a mark on its own (LATERAL): an index range scan of its end times, whatever the namespace.
   SELECT u.hour, NULL, false, ${SUMS}, string_agg(f.durations_ms, ''::bytea) AS durations
   FROM generate_series($1::timestamptz, $2::timestamptz - interval '1 hour', interval '1 hour') u(hour)
   CROSS JOIN LATERAL (${FIGURES_OF('(SELECT u.hour)', where('e.namespace'))}) f
   WHERE NOT EXISTS (SELECT 1 FROM dashboard_hours d WHERE d.hour = u.hour)
   GROUP BY u.hour`;

/** hourFigures' statement ($1 from, $2 to, $3 namespace or null, $4 and $5 the known hours and versions); exported for the benchmark's EXPLAIN. */
export const HOUR_FIGURES_SQL = hourFiguresSql((col) => inNamespace(col, '$3'));

/** The same with $3 the namespaces a caller may read (`within`). */
export const HOUR_FIGURES_WITHIN_SQL = hourFiguresSql((col) => inNamespaces(col, '$3'));

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
