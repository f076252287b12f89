-- Partial indexes on executions and execution_history (issue 6, "Speed").
-- An execution row is written at least twice (created, ended), and each
-- version gets an entry in every full index. These columns are null for most
-- executions (no flow timeout, no parent, no restart, no concurrency limit,
-- not ended yet) and are only looked up by a value, so their indexes hold
-- only the rows where they are set: an execution's versions now add about 7
-- index entries each instead of 14.
DROP INDEX "executions_timeout_at_idx";
CREATE INDEX "executions_timeout_at_idx" ON "executions"("timeout_at") WHERE "timeout_at" IS NOT NULL;
DROP INDEX "executions_parent_execution_id_idx";
CREATE INDEX "executions_parent_execution_id_idx" ON "executions"("parent_execution_id") WHERE "parent_execution_id" IS NOT NULL;
DROP INDEX "executions_parent_task_run_id_idx";
CREATE INDEX "executions_parent_task_run_id_idx" ON "executions"("parent_task_run_id") WHERE "parent_task_run_id" IS NOT NULL;
DROP INDEX "executions_restart_of_id_idx";
CREATE INDEX "executions_restart_of_id_idx" ON "executions"("restart_of_id") WHERE "restart_of_id" IS NOT NULL;
DROP INDEX "executions_concurrency_key_state_created_at_idx";
CREATE INDEX "executions_concurrency_key_state_created_at_idx" ON "executions"("concurrency_key", "state", "created_at") WHERE "concurrency_key" IS NOT NULL;
DROP INDEX "executions_concurrency_key_concurrency_slot_key";
CREATE UNIQUE INDEX "executions_concurrency_key_concurrency_slot_key" ON "executions"("concurrency_key", "concurrency_slot") WHERE "concurrency_key" IS NOT NULL;
DROP INDEX "executions_ended_at_idx";
CREATE INDEX "executions_ended_at_idx" ON "executions"("ended_at") WHERE "ended_at" IS NOT NULL;
DROP INDEX "executions_namespace_flow_id_ended_at_idx";
CREATE INDEX "executions_namespace_flow_id_ended_at_idx" ON "executions"("namespace", "flow_id", "ended_at") WHERE "ended_at" IS NOT NULL;
DROP INDEX "execution_history_task_run_id_idx";
CREATE INDEX "execution_history_task_run_id_idx" ON "execution_history"("task_run_id") WHERE "task_run_id" IS NOT NULL;
