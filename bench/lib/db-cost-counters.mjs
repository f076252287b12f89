// The database's counters that make up the cost of a workload, read from the
// statistics views of one database of a PostgreSQL 18 cluster, and the
// difference between two readings less the idle background. Used by
// bench/db-cost.bench.mjs.
//
//   round trips      sum of pg_stat_statements `calls` in the database by
//                    every role but the observer (see statements.mjs: BEGIN
//                    and COMMIT are statements, node-postgres sends one
//                    round trip per statement)
//   commits          pg_stat_database.xact_commit (read-only transactions
//                    included), less the observer's own transactions, which
//                    are counted here because that view has no role column
//   write commits    Transaction/COMMIT records in the WAL (pg_walinspect):
//                    only a transaction that wrote something (a row, a
//                    NOTIFY) writes one and waits for its flush; the
//                    transaction ids assigned (the next xid's advance) are
//                    kept beside it as a cross-check
//   WAL              bytes from pg_current_wal_lsn() (exact); records, their
//                    bytes and full-page images per record type from
//                    pg_walinspect's pg_get_wal_stats; flushes (fsyncs of
//                    WAL) from pg_stat_io, object 'wal'
//   rows             pg_stat_user_tables n_tup_ins / upd / hot_upd / del
//   index entries    measured: B-tree leaf insertions in the WAL (INSERT_LEAF,
//                    INSERT_POST into a posting list, and the one new entry a
//                    SPLIT_L / SPLIT_R record carries). Also derived from the
//                    row counts for comparison: every row version written by
//                    an insert or a non-HOT update adds one entry to each full
//                    index of its table, and to a partial index only when the
//                    version matches its predicate, so the partial indexes
//                    give an upper bound (DELETE writes no index entry)
//
// The cumulative statistics (all but pg_stat_statements and the WAL) reach
// the shared views when a backend goes idle, but a backend that flushed less
// than 1 s before waits 10 s (PGSTAT_IDLE_INTERVAL) for the next flush: read
// them after every process has been idle for more than 10 s.
const r2 = (x) => +x.toFixed(2);
const r3 = (x) => +x.toFixed(3);

/**
 * A counted observer on one pg.Client connected to the measured database as
 * the observer role: `query` counts each call, since each is one transaction
 * that pg_stat_database counts as a commit.
 */
export async function observer(client) {
  await client.query(`SET stats_fetch_consistency = 'none'`);
  const walIo = (await client.query(`SELECT count(*)::int AS n FROM pg_stat_io WHERE object = 'wal'`).catch(() => ({ rows: [{ n: 0 }] }))).rows[0].n > 0;
  let queries = 2;
  return {
    walIo,
    get queries() {
      return queries;
    },
    query(text, values) {
      queries++;
      return client.query(text, values);
    },
  };
}

/** Index counts of each table of the public schema: all, and full (no predicate). */
export async function indexCounts(obs) {
  const r = await obs.query(
    `SELECT c.relname AS table, count(*)::int AS all, count(*) FILTER (WHERE i.indpred IS NULL)::int AS full
     FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' GROUP BY c.relname`,
  );
  return Object.fromEntries(r.rows.map((x) => [x.table, { all: x.all, full: x.full, partial: x.all - x.full }]));
}

/** One reading of every counter (one query, so one observer transaction), and the CPU clock's. */
export async function snapshot(obs, cpu) {
  const before = obs.queries; // the observer's transactions before this one
  const r = await obs.query(
    `SELECT
       (SELECT coalesce(sum(s.calls), 0)::bigint FROM pg_stat_statements s
          WHERE s.dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
            AND s.userid <> (SELECT oid FROM pg_roles WHERE rolname = current_user)) AS statements,
       (SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()) AS xact_commit,
       (SELECT xact_rollback FROM pg_stat_database WHERE datname = current_database()) AS xact_rollback,
       pg_snapshot_xmax(pg_current_snapshot())::text AS next_xid,
       pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text AS wal_lsn,
       pg_current_wal_lsn()::text AS lsn,
       (SELECT wal_records FROM pg_stat_wal) AS wal_records,
       (SELECT wal_fpi FROM pg_stat_wal) AS wal_fpi,
       ${obs.walIo ? `(SELECT coalesce(sum(fsyncs), 0) FROM pg_stat_io WHERE object = 'wal')` : 'NULL'} AS wal_fsyncs,
       (SELECT json_object_agg(relname, json_build_array(n_tup_ins, n_tup_upd, n_tup_hot_upd, n_tup_del)) FROM pg_stat_user_tables) AS tables`,
  );
  const x = r.rows[0];
  const tables = {};
  for (const [t, [ins, upd, hot, del]] of Object.entries(x.tables ?? {})) tables[t] = { ins: Number(ins), upd: Number(upd), hot: Number(hot), del: Number(del) };
  return {
    at: performance.now(),
    observer_queries: before,
    statements: Number(x.statements),
    commits: Number(x.xact_commit),
    rollbacks: Number(x.xact_rollback),
    xids: Number(x.next_xid),
    wal_bytes: Number(x.wal_lsn),
    lsn: x.lsn,
    wal_records: Number(x.wal_records),
    wal_fpi: Number(x.wal_fpi),
    wal_fsyncs: x.wal_fsyncs === null ? null : Number(x.wal_fsyncs),
    tables,
    cpu: cpu ? cpu.take() : null,
  };
}

/**
 * WAL records between two positions, per record type ('Heap/INSERT',
 * 'Btree/INSERT_LEAF', 'Transaction/COMMIT', ...): count, bytes of the
 * records and of their full-page images. `admin` is a superuser connection
 * to a database with the pg_walinspect extension (WAL is the cluster's).
 */
export async function walRecords(admin, fromLsn, toLsn) {
  const r = await admin.query(`SELECT "resource_manager/record_type" AS type, count, record_size, fpi_size FROM pg_get_wal_stats($1::pg_lsn, $2::pg_lsn, true) WHERE count > 0`, [
    fromLsn,
    toLsn,
  ]);
  return Object.fromEntries(r.rows.map((x) => [x.type, { count: Number(x.count), record_bytes: Number(x.record_size), fpi_bytes: Number(x.fpi_size) }]));
}

const SCALARS = ['statements', 'commits', 'rollbacks', 'xids', 'wal_bytes', 'wal_records', 'wal_fpi', 'wal_fsyncs'];

/**
 * What happened between readings `a` and `b`: counter differences (the
 * observer's own transactions taken out of commits), each table's row
 * changes, and the CPU clock's difference (ms) per process.
 */
export function delta(a, b, walByRecord = {}) {
  const d = { seconds: (b.at - a.at) / 1000, wal_by_record: walByRecord };
  for (const k of SCALARS) d[k] = a[k] === null || b[k] === null ? null : b[k] - a[k];
  d.commits -= b.observer_queries - a.observer_queries;
  d.tables = {};
  for (const [t, y] of Object.entries(b.tables)) {
    const x = a.tables[t] ?? { ins: 0, upd: 0, hot: 0, del: 0 };
    d.tables[t] = { ins: y.ins - x.ins, upd: y.upd - x.upd, hot: y.hot - x.hot, del: y.del - x.del };
  }
  d.cpu = {};
  if (a.cpu && b.cpu) for (const k of Object.keys(b.cpu)) d.cpu[k] = b.cpu[k] - a.cpu[k];
  return d;
}

/** Rates per second of an idle window's delta (the background every window is charged for). */
export function rates(idle) {
  const per = (v) => (v === null ? null : v / idle.seconds);
  const out = { seconds: idle.seconds, tables: {}, cpu: {}, wal_by_record: {} };
  for (const k of SCALARS) out[k] = per(idle[k]);
  for (const [t, x] of Object.entries(idle.wal_by_record)) out.wal_by_record[t] = { count: per(x.count), record_bytes: per(x.record_bytes), fpi_bytes: per(x.fpi_bytes) };
  for (const [t, x] of Object.entries(idle.tables)) out.tables[t] = { ins: per(x.ins), upd: per(x.upd), hot: per(x.hot), del: per(x.del) };
  for (const [k, v] of Object.entries(idle.cpu)) out.cpu[k] = per(v);
  return out;
}

/** `d` less `idle` (rates) over `d`'s duration. Counters never go below zero. */
export function lessIdle(d, idle) {
  const net = { seconds: d.seconds, tables: {}, cpu: {}, wal_by_record: {} };
  const sub = (v, rate) => (v === null ? null : Math.max(0, v - (rate ?? 0) * d.seconds));
  for (const k of SCALARS) net[k] = sub(d[k], idle[k]);
  for (const [t, x] of Object.entries(d.wal_by_record)) {
    const i = idle.wal_by_record[t] ?? {};
    net.wal_by_record[t] = { count: sub(x.count, i.count), record_bytes: sub(x.record_bytes, i.record_bytes), fpi_bytes: sub(x.fpi_bytes, i.fpi_bytes) };
  }
  for (const [t, x] of Object.entries(d.tables)) {
    const i = idle.tables[t] ?? {};
    net.tables[t] = { ins: sub(x.ins, i.ins), upd: sub(x.upd, i.upd), hot: sub(x.hot, i.hot), del: sub(x.del, i.del) };
  }
  for (const [k, v] of Object.entries(d.cpu)) net.cpu[k] = sub(v, idle.cpu[k]);
  return net;
}

/**
 * The cost model per unit (execution or task) of a net delta: round trips,
 * commits, write commits, WAL, rows per table, index entries per table
 * (derived from `indexes`, see the top of this file) and PostgreSQL's CPU.
 */
export function perUnit(net, units, indexes) {
  const per = (v) => (v === null ? null : r3(v / units));
  const tables = {};
  let ins = 0,
    upd = 0,
    hot = 0,
    del = 0,
    idxFull = 0,
    idxPartialMax = 0;
  for (const [t, x] of Object.entries(net.tables)) {
    // Below a hundredth of a row per unit is background noise left after the idle subtraction.
    if (Math.max(x.ins, x.upd, x.del) / units < 0.01) continue;
    const versions = x.ins + x.upd - x.hot;
    const ix = indexes[t] ?? { full: 0, partial: 0 };
    tables[t] = {
      inserted: per(x.ins),
      updated: per(x.upd),
      hot_updated: per(x.hot),
      deleted: per(x.del),
      indexes_full: ix.full,
      indexes_partial: ix.partial,
      index_entries_derived_full: per(versions * ix.full),
      index_entries_derived_partial_at_most: per(versions * ix.partial),
    };
    ins += x.ins;
    upd += x.upd;
    hot += x.hot;
    del += x.del;
    idxFull += versions * ix.full;
    idxPartialMax += versions * ix.partial;
  }
  const pgCpuMs = net.cpu.postgres;
  const wal = net.wal_by_record;
  const walCount = (...types) => types.reduce((n, t) => n + (wal[t]?.count ?? 0), 0);
  const hasWal = Object.keys(wal).length > 0;
  const walByRmgr = {};
  const walRecordsPer = {};
  let fpiBytes = 0;
  for (const [t, x] of Object.entries(wal)) {
    const rmgr = t.split('/')[0];
    walByRmgr[rmgr] = (walByRmgr[rmgr] ?? 0) + x.record_bytes + x.fpi_bytes;
    fpiBytes += x.fpi_bytes;
    if (x.count / units >= 0.01) walRecordsPer[t] = per(x.count);
  }
  return {
    round_trips: per(net.statements),
    commits: per(net.commits),
    write_commits: hasWal ? per(walCount('Transaction/COMMIT')) : per(net.xids),
    xids_assigned: per(net.xids),
    wal_flushes: per(net.wal_fsyncs),
    rows_inserted: per(ins),
    rows_updated: per(upd),
    rows_hot_updated: per(hot),
    rows_deleted: per(del),
    row_writes: per(ins + upd + del),
    index_entries: hasWal ? per(walCount('Btree/INSERT_LEAF', 'Btree/INSERT_POST', 'Btree/SPLIT_L', 'Btree/SPLIT_R')) : null,
    index_entries_derived_full: per(idxFull),
    index_entries_derived_partial_at_most: per(idxPartialMax),
    index_entries_derived_range: [per(idxFull), per(idxFull + idxPartialMax)],
    wal_bytes: r2(net.wal_bytes / units),
    wal_records: per(net.wal_records),
    wal_fpi: per(net.wal_fpi),
    wal_fpi_bytes: hasWal ? r2(fpiBytes / units) : null,
    wal_bytes_by_resource_manager: Object.fromEntries(
      Object.entries(walByRmgr)
        .filter(([, v]) => v / units >= 1)
        .sort((x, y) => y[1] - x[1])
        .map(([k, v]) => [k, r2(v / units)]),
    ),
    wal_records_by_type: Object.fromEntries(Object.entries(walRecordsPer).sort((x, y) => y[1] - x[1])),
    pg_cpu_ms: pgCpuMs === undefined ? null : per(pgCpuMs),
    projected_per_pg_core_per_second: pgCpuMs > 0 ? Math.round(1000 / (pgCpuMs / units)) : null,
    tables,
  };
}
