-- svc: additive
-- Tracing (docs/operating/tracing.md): the W3C traceparent of the span that created the execution
-- (a webhook, a trigger), stored only when tracing is on, so the processes that plan and dispatch
-- its task runs continue that trace across the database queue. Null otherwise.
ALTER TABLE "executions" ADD COLUMN "traceparent" TEXT;
