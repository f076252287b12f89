// A job queue on its owner's table (table.ts): enqueue with a key, claim with
// a lease, succeed or fail with a retry policy. A job is at least once: a
// worker that dies holding a claim leaves the job to be claimed again once
// the lease lapses, so a job whose work completed just before the death runs
// a second time; succeed and fail write only while the claim is the
// caller's, so a late worker never overwrites the one that took over.
//
// Each method takes the connection to run on (a pool, or a client in the
// caller's transaction): the owner enqueues in the transaction that decides
// to (with its quota, its own rows), and records an outcome together with
// rows of its own (an alert's attempt log).
import { retryDelayMs, shouldRetry, type AttemptPolicy, type BackoffPolicy } from '@svc/state-machine';
import { claimStatement, enqueueStatement, extendStatement, failStatement, succeedStatement } from './sql.js';
import { jobTable, type JobTable, type JobTableSpec } from './table.js';

/**
 * What the queue's statements run on: a pg pool or client, or an adapter of
 * a Prisma transaction (`$queryRawUnsafe`), so the owner can enqueue in the
 * transaction that decides to.
 */
export interface JobDb {
  query(text: string, values: unknown[]): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

/** How often a job is tried and how long it waits between tries (the flow retry block's arithmetic, @svc/state-machine). */
export type RetryPolicy = AttemptPolicy & BackoffPolicy;

/** A claimed job: its key, the attempt this claim is (from 1), and the table's `returning` columns. */
export interface Job<T> {
  key: string;
  attempt: number;
  data: T;
}

/** What `fail` decided. */
export interface FailOutcome {
  /** No further attempt: the job is failed for good. */
  final: boolean;
  /** When not final, the wait before the next attempt. */
  retryMs: number;
  /** False when the claim was no longer the caller's (nothing was written). */
  held: boolean;
}

export class JobQueue<T extends Record<string, unknown>> {
  readonly table: JobTable;

  constructor(
    spec: JobTableSpec,
    readonly retry: RetryPolicy,
  ) {
    this.table = jobTable(spec);
  }

  /** The table's NOTIFY channel (what a worker subscribes to). */
  get channel(): string {
    return this.table.channel;
  }

  /**
   * Writes `row` (its key column included) unless a job with its key exists,
   * and wakes the workers once it commits. True when written.
   */
  async enqueue(db: JobDb, row: Record<string, unknown>): Promise<boolean> {
    const s = enqueueStatement(this.table, row);
    return ((await db.query(s.text, s.values)).rowCount ?? 0) > 0;
  }

  /**
   * Claims up to `limit` due jobs for `worker`, each for `leaseMs` (see
   * claimStatement); with `where`, only jobs whose columns have those values.
   */
  async claim(db: JobDb, worker: string, o: { leaseMs: number; limit: number; where?: Record<string, unknown> }): Promise<Job<T>[]> {
    const s = claimStatement(this.table, worker, o.leaseMs, o.limit, o.where);
    const r = await db.query(s.text, s.values);
    return (r.rows as (T & { job_key: string; job_attempts: number })[]).map(({ job_key, job_attempts, ...data }) => ({
      key: job_key,
      attempt: job_attempts,
      data: data as unknown as T,
    }));
  }

  /**
   * The job is done (`set`: the owner's columns to set with it; `NOW` for
   * the database's clock; `status`: one of the table's `alsoSucceeded`
   * instead of its succeeded status). False when the claim was no longer
   * `worker`'s.
   */
  async succeed(db: JobDb, job: Job<T>, worker: string, set: Record<string, unknown> = {}, status?: string): Promise<boolean> {
    const s = succeedStatement(this.table, job.key, worker, set, status);
    return ((await db.query(s.text, s.values)).rowCount ?? 0) > 0;
  }

  /** Holds the claim `leaseMs` from now (a job that runs longer than its lease renews it). False when the claim was no longer `worker`'s. */
  async extend(db: JobDb, job: Job<T>, worker: string, leaseMs: number): Promise<boolean> {
    const s = extendStatement(this.table, job.key, worker, leaseMs);
    return ((await db.query(s.text, s.values)).rowCount ?? 0) > 0;
  }

  /**
   * An attempt failed with `error`: the job waits for its next attempt as the
   * retry policy says, or is failed for good when it is `permanent` or this
   * was its last attempt.
   */
  async fail(db: JobDb, job: Job<T>, worker: string, o: { error: string; permanent?: boolean; set?: Record<string, unknown> }): Promise<FailOutcome> {
    const final = o.permanent === true || !shouldRetry(this.retry, job.attempt);
    const retryMs = final ? 0 : retryDelayMs(this.retry, job.attempt);
    const s = failStatement(this.table, job.key, worker, { final, error: o.error, retryMs, set: o.set ?? {} });
    const held = ((await db.query(s.text, s.values)).rowCount ?? 0) > 0;
    return { final, retryMs, held };
  }
}
