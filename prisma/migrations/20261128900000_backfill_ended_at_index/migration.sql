-- Retention deletes backfills that ended (cancelled, done) more than
-- SVC_RETENTION_DAYS ago, with their backfill_runs rows (maintenance's
-- hourly pass, deleteEndedBackfillRuns / deleteEndedBackfills in @svc/db).
-- Its scan looks for ended_at before the cutoff; ended_at is null while a
-- backfill is running or paused. Additive: an index only.
CREATE INDEX "backfills_ended_at_idx" ON "backfills"("ended_at");
