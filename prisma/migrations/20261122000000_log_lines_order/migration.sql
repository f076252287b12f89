-- Log lines in the order an execution's log is read: (ts, task_run_id, n).
-- getExecutionLogs and downloadExecutionLogs page through it by keyset, so a
-- page of an execution holding a million lines is one short index range scan.
CREATE INDEX "log_lines_execution_id_ts_task_run_id_n_idx" ON "log_lines"("execution_id", "ts", "task_run_id", "n");
