-- Output files (docs/using/files.md): a task's `output_files` are stored as
-- artifact rows of kind `output`, beside the kind `artifact` of what the task
-- left in $SVC_ARTIFACTS_DIR. A task run may hold an artifact and an output
-- file of the same name, so the name is unique per kind.
ALTER TABLE "artifacts" ADD COLUMN "kind" TEXT NOT NULL DEFAULT 'artifact';
DROP INDEX "artifacts_task_run_id_name_key";
CREATE UNIQUE INDEX "artifacts_task_run_id_kind_name_key" ON "artifacts"("task_run_id", "kind", "name");
