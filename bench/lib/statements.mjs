// Database round trips, counted by pg_stat_statements (the cluster is started
// with shared_preload_libraries=pg_stat_statements, track=top). Every
// statement a client sends is one round trip (node-postgres sends one
// Parse/Bind/Execute/Sync group per query), BEGIN and COMMIT included, so the
// sum of `calls` in a database is its number of round trips. The benchmark's
// own observer connects as a role of its own and is left out.
import pg from 'pg';

export const OBSERVER = 'bench_observer';

/**
 * Installs pg_stat_statements in the database of `svcUrl` (its view shows
 * every database of the cluster) and creates the observer role, whose URL it
 * returns for `database`.
 */
export async function prepareStatementCounting(svcUrl) {
  const c = new pg.Client({ connectionString: svcUrl });
  await c.connect();
  try {
    await c.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await c.query(`CREATE ROLE ${OBSERVER} LOGIN PASSWORD 'observer' IN ROLE pg_read_all_data, pg_read_all_stats`);
    await c.query(`GRANT EXECUTE ON FUNCTION pg_stat_statements_reset(oid, oid, bigint, boolean) TO ${OBSERVER}`);
  } finally {
    await c.end();
  }
  const u = new URL(svcUrl);
  u.username = OBSERVER;
  u.password = 'observer';
  return u.toString();
}

/** Counting over one observer pool (pg.Pool on the svc database). */
export function statementCounter(observer) {
  return {
    async reset() {
      await observer.query('SELECT pg_stat_statements_reset()');
    },
    /** Statements run in `database` since the last reset by everyone but the observer (count, server execution ms), with the `top` most called. */
    async count(database, top = 0) {
      const r = await observer.query(
        `SELECT s.query, s.calls::int AS calls, s.total_exec_time AS ms FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
         WHERE d.datname = $1 AND s.userid <> (SELECT oid FROM pg_roles WHERE rolname = current_user)
         ORDER BY s.calls DESC`,
        [database],
      );
      const total = r.rows.reduce((n, x) => n + x.calls, 0);
      const execMs = r.rows.reduce((n, x) => n + x.ms, 0);
      const most = r.rows.slice(0, top).map((x) => ({ calls: x.calls, mean_ms: +(x.ms / x.calls).toFixed(3), query: x.query.replace(/\s+/g, ' ').slice(0, 140) }));
      return { total, exec_ms: +execMs.toFixed(1), top: most };
    },
  };
}
