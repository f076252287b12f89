-- A backfill's progress survives retention: each fire time's outcome is
-- written on its backfill_runs row once its execution has ended (done:
-- SUCCESS or SKIPPED; failed: FAILED or TIMED_OUT; cancelled: CANCELLED),
-- by the scheduler's backfill advancer (apps/scheduler/src/backfills.ts).
-- Progress counts read it, and the execution's state only while it is
-- unwritten, so deleting old executions changes no count.
-- Additive: a nullable column with no default (no table rewrite); code
-- that does not know it goes on working.
ALTER TABLE "backfill_runs" ADD COLUMN "outcome" TEXT;

-- Existing rows: from the executions still present (a fire time whose
-- execution is already gone stays unwritten).
UPDATE "backfill_runs" r
   SET "outcome" = CASE e."state" WHEN 'SUCCESS' THEN 'done' WHEN 'SKIPPED' THEN 'done' WHEN 'CANCELLED' THEN 'cancelled' ELSE 'failed' END
  FROM "executions" e
 WHERE e."id" = r."execution_id" AND r."state" = 'created' AND r."outcome" IS NULL
   AND e."state" IN ('SUCCESS', 'SKIPPED', 'FAILED', 'TIMED_OUT', 'CANCELLED');

-- The fire times whose outcome is still to write: what the advancer looks
-- through on each pass, a few per backfill in flight.
CREATE INDEX "backfill_runs_unrecorded_idx" ON "backfill_runs"("backfill_id") WHERE "state" = 'created' AND "outcome" IS NULL;
