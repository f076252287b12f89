-- Fan-out (for_each, an extension of the flow format): a task with for_each
-- runs as one parent task run and one task run per item. The parent
-- (item_index NULL) is what the planner sees as the task: RUNNING while its
-- items run, with fan_out = the number of items once the list is rendered.
-- An item run carries its 0-based index and its rendered value; each item has
-- its own attempts, so a task's attempts are counted per item.
ALTER TABLE "task_runs" ADD COLUMN "item_index" INTEGER;
ALTER TABLE "task_runs" ADD COLUMN "item" JSONB;
ALTER TABLE "task_runs" ADD COLUMN "fan_out" INTEGER;

-- One row per task, item and attempt; a task run that is not an item
-- (item_index NULL) is still one per task and attempt (NULLS NOT DISTINCT).
CREATE UNIQUE INDEX "task_runs_execution_id_task_key_item_index_attempt_key" ON "task_runs"("execution_id", "task_key", "item_index", "attempt") NULLS NOT DISTINCT;
DROP INDEX "task_runs_execution_id_task_key_attempt_key";
