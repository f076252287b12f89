-- Sync requests are jobs of a job queue on git_sync_runs (@svc/jobs, the
-- queue @svc/git-sources declares; docs/architecture/overview.md): a queued
-- run is claimed for a while by the worker that syncs it, which records the
-- outcome only while the claim is still its own. The queue needs an attempt
-- count, a due time and the claim.
ALTER TABLE "git_sync_runs" ADD COLUMN "attempts" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "git_sync_runs" ADD COLUMN "next_attempt_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP;
ALTER TABLE "git_sync_runs" ADD COLUMN "locked_by" TEXT;
ALTER TABLE "git_sync_runs" ADD COLUMN "locked_until" TIMESTAMPTZ(6);

-- Existing rows keep what they say: a queued request is due from when it was
-- asked for (so requests are taken in the order they came), and a run that
-- started was its request's one attempt. A run left running by an instance
-- that stopped has no claim, and the next worker to take its source fails it
-- as before.
UPDATE "git_sync_runs" SET "next_attempt_at" = "started_at", "attempts" = CASE WHEN "status" = 'queued' THEN 0 ELSE 1 END;

-- Claims look for due requests of one source.
CREATE INDEX "git_sync_runs_git_source_id_status_next_attempt_at_idx" ON "git_sync_runs"("git_source_id", "status", "next_attempt_at");
