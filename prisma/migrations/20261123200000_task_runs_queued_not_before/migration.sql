-- The claim's "next retry time" (min(not_before) of QUEUED runs held back by
-- a retry backoff): a tiny index of just those rows, where the claim index
-- would make every claim read every QUEUED run of its pools.
CREATE INDEX "task_runs_queued_not_before_idx" ON "task_runs"("not_before") WHERE "state" = 'QUEUED' AND "not_before" IS NOT NULL;
