-- Approval gates (an extension of the flow format): a task with `approval`
-- waits, when its dependencies end, as a PENDING task run with reason
-- `awaiting_approval` and `approval` = the gate as the flow declares it
-- (approvers, form, on_timeout) with status `pending`; the decision (who,
-- when, the form values, the comment) is written into the same object, and
-- copied onto the task's retries. `approval_deadline` is the gate's timeout,
-- found by the maintenance lease holder through a partial index.
ALTER TABLE "task_runs" ADD COLUMN "approval" JSONB;
ALTER TABLE "task_runs" ADD COLUMN "approval_deadline" TIMESTAMPTZ(6);
CREATE INDEX "task_runs_awaiting_approval_idx" ON "task_runs"("approval_deadline") WHERE "reason" = 'awaiting_approval';
-- The alert scanner's approval requests: gates reached since a time (an ISO text in UTC sorts as time does).
CREATE INDEX "task_runs_approval_requested_idx" ON "task_runs"(("approval"->>'requested_at')) WHERE "approval" IS NOT NULL;

-- Pause (an extension): a paused execution stays RUNNING (reason `paused`) and
-- no task run of it starts: planning queues nothing, and its QUEUED runs keep
-- reason `paused`, which the claim skips, until it is resumed.
ALTER TABLE "executions" ADD COLUMN "paused_at" TIMESTAMPTZ(6);
ALTER TABLE "executions" ADD COLUMN "paused_by" TEXT;
