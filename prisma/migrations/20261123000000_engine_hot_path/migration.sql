-- The engine's hot path (issue 6, "Speed").
--
-- 1. Planning requests. Ending a task run is one statement that also inserts
-- a row here (no lock on the execution row); planners lock the executions
-- that have requests, plan them in batches and delete the requests of the
-- runs they saw ended. A small table of its own, so that flagging and
-- clearing never rewrite the wide task_runs rows and their indexes.
CREATE TABLE "plan_requests" (
    "task_run_id" TEXT NOT NULL,
    "execution_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "plan_requests_pkey" PRIMARY KEY ("task_run_id")
);
ALTER TABLE "plan_requests" ADD CONSTRAINT "plan_requests_task_run_id_fkey" FOREIGN KEY ("task_run_id") REFERENCES "task_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- 2. Partial indexes on task_runs. Every state change of a task run writes a
-- new row version, and a full index gets an entry for each version whatever
-- the state. The engine only looks runs up by these columns in one state
-- (claims: QUEUED; timeouts and lost runs: RUNNING) or when they are set, so
-- the indexes hold only those rows: a task run's four versions now add two
-- or three index entries each instead of eight.
DROP INDEX "task_runs_state_pool_executor_type_queued_at_idx";
CREATE INDEX "task_runs_queued_idx" ON "task_runs"("pool", "executor_type", "queued_at") WHERE "state" = 'QUEUED';
DROP INDEX "task_runs_state_timeout_at_idx";
CREATE INDEX "task_runs_running_timeout_at_idx" ON "task_runs"("timeout_at") WHERE "state" = 'RUNNING';
DROP INDEX "task_runs_claimed_by_idx";
CREATE INDEX "task_runs_running_claimed_by_idx" ON "task_runs"("claimed_by") WHERE "state" = 'RUNNING';
DROP INDEX "task_runs_child_execution_id_idx";
CREATE INDEX "task_runs_child_execution_id_idx" ON "task_runs"("child_execution_id") WHERE "child_execution_id" IS NOT NULL;
DROP INDEX "task_runs_reused_from_id_idx";
CREATE INDEX "task_runs_reused_from_id_idx" ON "task_runs"("reused_from_id") WHERE "reused_from_id" IS NOT NULL;
DROP INDEX "task_runs_run_token_hash_key";
CREATE UNIQUE INDEX "task_runs_run_token_hash_key" ON "task_runs"("run_token_hash") WHERE "run_token_hash" IS NOT NULL;
