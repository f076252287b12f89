-- The dashboard's rollup of closed UTC hours (issue 17). A 30-day dashboard
-- reads half a million executions at every request otherwise (876 ms p95 on
-- the benchmark); with this, it reads one row per closed hour and namespace
-- and only the open hour from `executions`.
--
-- `dashboard_hours` marks an hour as rolled up: its figures per namespace are
-- in `dashboard_hour_figures` (no row for a namespace without executions that
-- hour; an hour without any has the mark and no figures). Percentiles stay
-- exact: `durations_ms` holds every duration, not a sketch: ascending, each
-- as the 8 bytes of int8send (big-endian). Bytes rather than BIGINT[]: a
-- gateway's first 30-day request concatenates and reads ~400,000 of them, in
-- 30 ms as bytes, 55 ms as arrays (array_send). To look at them:
--   SELECT ('x' || encode(substr(durations_ms, 8 * i + 1, 8), 'hex'))::bit(64)::bigint
--   FROM dashboard_hour_figures, generate_series(0, length(durations_ms) / 8 - 1) i;
--
-- Written lazily by the dashboard (getDashboard) for closed hours without a
-- mark, under pg_try_advisory_xact_lock(dashboard_hour_lock_key(hour)).
-- Any change to an ended execution (a late end, a restart, retention,
-- anything) deletes the mark of its hour through the triggers below, which
-- take the same lock in shared mode first: a roll-up leaves an hour with
-- such a change uncommitted (the dashboard reads it live meanwhile), and a
-- change arriving while a roll-up is written deletes that roll-up's mark once
-- it commits. So a mark present is a
-- rollup that agrees with `executions`, whatever instance wrote either. (This
-- needs the writers in READ COMMITTED, as every transaction of svc is: under
-- REPEATABLE READ a trigger's DELETE could miss a mark committed while it
-- waited for the lock.)
--
-- `version` is new at every roll-up of an hour: a gateway that keeps an
-- hour's figures in memory keeps them only while the version is the same.
CREATE TABLE "dashboard_hours" (
    "hour" TIMESTAMPTZ(6) NOT NULL,
    "version" BIGSERIAL NOT NULL,
    "rolled_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "dashboard_hours_pkey" PRIMARY KEY ("hour")
);

CREATE TABLE "dashboard_hour_figures" (
    "hour" TIMESTAMPTZ(6) NOT NULL,
    "namespace" TEXT NOT NULL,
    "success" INTEGER NOT NULL,
    "failed" INTEGER NOT NULL,
    "timed_out" INTEGER NOT NULL,
    "cancelled" INTEGER NOT NULL,
    "skipped" INTEGER NOT NULL,
    "durations_ms" BYTEA NOT NULL,

    CONSTRAINT "dashboard_hour_figures_pkey" PRIMARY KEY ("hour","namespace")
);

-- Deleting a mark deletes its figures.
ALTER TABLE "dashboard_hour_figures" ADD CONSTRAINT "dashboard_hour_figures_hour_fkey" FOREIGN KEY ("hour") REFERENCES "dashboard_hours"("hour") ON DELETE CASCADE ON UPDATE CASCADE;

-- The UTC hour of an instant (whatever the session's TimeZone).
CREATE FUNCTION dashboard_hour_of(at TIMESTAMPTZ) RETURNS TIMESTAMPTZ
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT date_bin('1 hour', at, TIMESTAMPTZ '2000-01-01 00:00:00+00') $$;

-- The advisory lock key of an hour's rollup: shared by writers of executions
-- ended in that hour, exclusive while the hour is rolled up. 1024 keys, by
-- hour number modulo 1024: a statement that changes executions spread over
-- years (a bulk import) takes at most 1024 locks, not one per hour, which
-- would overflow the lock table. Hours 1024 hours (42 days) apart share a
-- key: never two hours of one window, and at worst a roll-up skips an hour
-- for a while.
CREATE FUNCTION dashboard_hour_lock_key(hour TIMESTAMPTZ) RETURNS BIGINT
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT hashtextextended('svc-dashboard-hour:' || ((extract(epoch FROM hour)::BIGINT / 3600) % 1024)::TEXT, 0) $$;

-- The hours an execution row was and is ended in lose their marks. One
-- function, no nested calls: it runs at every end of an execution (about
-- 35 µs there, measured on the benchmark machine; the two SQL functions
-- above are inlined).
CREATE FUNCTION executions_dashboard_forget() RETURNS trigger
    LANGUAGE plpgsql AS $$
DECLARE
    h TIMESTAMPTZ;
BEGIN
    FOREACH h IN ARRAY ARRAY[CASE WHEN TG_OP <> 'INSERT' THEN dashboard_hour_of(OLD.ended_at) END,
                             CASE WHEN TG_OP <> 'DELETE' THEN dashboard_hour_of(NEW.ended_at) END] LOOP
        CONTINUE WHEN h IS NULL;
        PERFORM pg_advisory_xact_lock_shared(dashboard_hour_lock_key(h));
        -- A statement after the lock: under READ COMMITTED it sees a rollup committed while this waited.
        DELETE FROM dashboard_hours WHERE hour = h;
    END LOOP;
    RETURN NULL;
END $$;

CREATE FUNCTION executions_dashboard_forget_all() RETURNS trigger
    LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM dashboard_hours;
    RETURN NULL;
END $$;

-- Only what the rollup reads (end time, state, duration, namespace) of an
-- ended execution fires these: starts, heartbeats and other updates do not.
CREATE TRIGGER "executions_dashboard_insert" AFTER INSERT ON "executions"
    FOR EACH ROW WHEN (NEW.ended_at IS NOT NULL) EXECUTE FUNCTION executions_dashboard_forget();
CREATE TRIGGER "executions_dashboard_update" AFTER UPDATE OF ended_at, state, duration_ms, namespace ON "executions"
    FOR EACH ROW WHEN ((OLD.ended_at IS NOT NULL OR NEW.ended_at IS NOT NULL)
                       AND (OLD.ended_at, OLD.state, OLD.duration_ms, OLD.namespace) IS DISTINCT FROM (NEW.ended_at, NEW.state, NEW.duration_ms, NEW.namespace))
    EXECUTE FUNCTION executions_dashboard_forget();
CREATE TRIGGER "executions_dashboard_delete" AFTER DELETE ON "executions"
    FOR EACH ROW WHEN (OLD.ended_at IS NOT NULL) EXECUTE FUNCTION executions_dashboard_forget();
CREATE TRIGGER "executions_dashboard_truncate" AFTER TRUNCATE ON "executions"
    FOR EACH STATEMENT EXECUTE FUNCTION executions_dashboard_forget_all();
