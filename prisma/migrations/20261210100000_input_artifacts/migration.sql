-- File inputs (docs/using/files.md): an execution's file input is an artifact
-- of kind `input` with no task run, pointing at its upload's object; one per
-- input of an execution.
ALTER TABLE "artifacts" ALTER COLUMN "task_run_id" DROP NOT NULL;

CREATE UNIQUE INDEX "artifacts_input_execution_id_name_key" ON "artifacts"("execution_id", "name") WHERE "kind" = 'input';

-- An upload's objects are looked up by key when an upload expires or an execution goes.
CREATE INDEX "uploads_object_key_idx" ON "uploads"("object_key");
