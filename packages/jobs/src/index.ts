// @svc/jobs: one small job queue for background work on its owner's table
// (the email queue, the alert outbox, git sync requests), and the worker that runs its passes.
export { jobTable, type JobTable, type JobTableSpec } from './table.js';
export { claimStatement, enqueueStatement, extendStatement, failStatement, succeedStatement, NOW, type Statement } from './sql.js';
export { JobQueue, type FailOutcome, type Job, type JobDb, type RetryPolicy } from './queue.js';
export { JobWorker, type JobWorkerOptions } from './worker.js';
