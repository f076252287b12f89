-- The latest runner event of a task run (started, progress): shown on the task run and in the execution's event stream.
ALTER TABLE "task_runs" ADD COLUMN "progress" JSONB;
