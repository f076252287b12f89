// Git sync requests and claims. A requested sync is a job of the queue
// declared here (@svc/jobs, on `git_sync_runs`): syncGitSource and the push
// webhook enqueue a `queued` run and mark the source's `sync_requested_at`;
// a source is due when it was requested or its poll time came. Any number
// of sync workers look for due sources; each takes the per-source lease
// (`git-source:<id>`, @svc/db's leases) and then claims the source row with
// FOR UPDATE SKIP LOCKED, re-checking that it is still due, in the
// transaction that clears the request, advances `next_poll_at` and claims
// the source's queued run through the queue. The lease keeps two workers
// from syncing one source at once for the whole sync (a fetch can take
// minutes); the re-check under it keeps a worker that took the lease just
// after another finished from syncing the same request twice; the run's
// claim lets only its holder record how it ended. Polls and pushes are not
// requests: their runs are written `running` when they start.
import type { Queryable } from '@svc/db';
import { JobQueue, type Job } from '@svc/jobs';

/** NOTIFY channel of sync requests: a wake-up hint only, workers also poll. */
export const GIT_SYNC_CHANNEL = 'svc_git_sync';

/** Lease name of one source's sync. */
export const gitSourceLease = (sourceId: string) => `git-source:${sourceId}`;

export interface GitSyncRunRow {
  id: string;
  git_source_id: string;
  trigger: string;
  requested_by: string;
  status: string;
  sha: string;
  error: string;
  details: Record<string, unknown>;
  started_at: Date;
  ended_at: Date | null;
}

const RUN_COLUMNS = 'id, git_source_id, trigger, requested_by, status, sha, error, details, started_at, ended_at';

/** What a worker needs of a claimed request: its source. */
export interface GitSyncRequest extends Record<string, unknown> {
  git_source_id: string;
}

/** A requested run a worker claimed: `key` is the run's id. */
export type ClaimedGitSync = Job<GitSyncRequest>;

/**
 * The sync requests: queued runs of `git_sync_runs`. A sync that fails is
 * not tried again by the queue (one attempt): the next request or poll
 * syncs the source again, from what the remote holds then.
 */
const REQUESTS = new JobQueue<GitSyncRequest>(
  {
    table: 'git_sync_runs',
    states: { queued: 'queued', running: 'running', succeeded: 'success', failed: 'failed', alsoSucceeded: ['no_change'] },
    returning: ['git_source_id'],
    channel: GIT_SYNC_CHANNEL,
  },
  { maxAttempts: 1, backoff: 'fixed', initialMs: 0, maxMs: 0 },
);

const DUE = `enabled AND (sync_requested_at IS NOT NULL OR (poll_interval > 0 AND (next_poll_at IS NULL OR next_poll_at <= $1)))`;

/** Ids of due sources, requested ones first, then by poll time; at most `limit`. */
export async function selectDueGitSources(q: Queryable, now: Date, limit: number): Promise<string[]> {
  const r = await q.query<{ id: string }>(`SELECT id FROM git_sources WHERE ${DUE} ORDER BY sync_requested_at NULLS LAST, next_poll_at NULLS FIRST, id LIMIT $2`, [now, limit]);
  return r.rows.map((row) => row.id);
}

/**
 * Requests a sync (call in a transaction): locks the source row, and returns
 * the run already queued for it when there is one, so repeated requests
 * (webhook redeliveries, impatient clicks) become one sync. Otherwise writes
 * a queued run (enqueued: the workers are woken when it commits) and marks
 * the source requested.
 * Undefined when there is no such source.
 */
export async function requestGitSync(
  q: Queryable,
  r: { sourceId: string; runId: string; trigger: string; requestedBy: string; now: Date },
): Promise<{ run: GitSyncRunRow; created: boolean } | undefined> {
  const src = await q.query(`SELECT id FROM git_sources WHERE id = $1 FOR UPDATE`, [r.sourceId]);
  if (!src.rowCount) return undefined;
  const queued = await q.query<GitSyncRunRow>(`SELECT ${RUN_COLUMNS} FROM git_sync_runs WHERE git_source_id = $1 AND status = 'queued' ORDER BY started_at LIMIT 1`, [r.sourceId]);
  if (queued.rows[0]) return { run: queued.rows[0], created: false };
  await REQUESTS.enqueue(q, { id: r.runId, git_source_id: r.sourceId, trigger: r.trigger, requested_by: r.requestedBy, status: 'queued', started_at: r.now });
  const run = await q.query<GitSyncRunRow>(`SELECT ${RUN_COLUMNS} FROM git_sync_runs WHERE id = $1`, [r.runId]);
  await q.query(`UPDATE git_sources SET sync_requested_at = COALESCE(sync_requested_at, $2) WHERE id = $1`, [r.sourceId, r.now]);
  return { run: run.rows[0], created: true };
}

export interface GitSourceClaim {
  /** The queued run this sync serves, moved to `running` and claimed by the worker; null for a poll. */
  run: GitSyncRunRow | null;
  /** The run's claim, to record how it ended (finishRequestedGitSyncRun); null for a poll. */
  job: ClaimedGitSync | null;
  /** Runs left `running` by a holder that stopped mid-sync, now `failed`. */
  abandoned: number;
}

/**
 * Claims a due source (call in a transaction, holding the source's lease):
 * clears the request, moves `next_poll_at` one poll interval past `now`, sets
 * `last_sync_status` to running, fails the runs an earlier holder left
 * running, and claims the source's queued run (if any) for `worker`, for
 * `leaseMs`, moving it to running as of `now`. Undefined when the source is
 * no longer due or another worker holds its row.
 */
export async function claimGitSource(q: Queryable, sourceId: string, now: Date, worker: string, leaseMs: number): Promise<GitSourceClaim | undefined> {
  const claimed = await q.query<{ requested: boolean }>(
    `WITH due AS (SELECT id, sync_requested_at FROM git_sources WHERE ${DUE} AND id = $2 FOR UPDATE SKIP LOCKED)
     UPDATE git_sources s
        SET sync_requested_at = NULL,
            next_poll_at = CASE WHEN s.poll_interval > 0 THEN $1 + s.poll_interval * interval '1 second' END,
            last_sync_status = 'running',
            updated_at = $1
       FROM due WHERE s.id = due.id
     RETURNING due.sync_requested_at IS NOT NULL AS requested`,
    [now, sourceId],
  );
  if (!claimed.rows[0]) return undefined;
  // Under the source's lease, a run still running is one nobody syncs any more.
  const abandoned = await q.query(
    `UPDATE git_sync_runs SET status = 'failed', error = 'the instance running this sync stopped before it ended', ended_at = $2, locked_by = NULL, locked_until = NULL
      WHERE git_source_id = $1 AND status = 'running'`,
    [sourceId, now],
  );
  const [job] = claimed.rows[0].requested ? await REQUESTS.claim(q, worker, { leaseMs, limit: 1, where: { git_source_id: sourceId } }) : [];
  const run = job ? (await q.query<GitSyncRunRow>(`UPDATE git_sync_runs SET started_at = $2 WHERE id = $1 RETURNING ${RUN_COLUMNS}`, [job.key, now])).rows[0] : null;
  return { run, job: job ?? null, abandoned: abandoned.rowCount ?? 0 };
}

/** Keeps the claim of a requested run `leaseMs` from now while its sync runs; false when `worker` no longer holds it. */
export function extendGitSyncClaim(q: Queryable, job: ClaimedGitSync, worker: string, leaseMs: number): Promise<boolean> {
  return REQUESTS.extend(q, job, worker, leaseMs);
}

/**
 * Ends a requested run as the queue's job, if `worker` still holds its
 * claim: `success` or `no_change` (succeeded), `failed` (failed for good),
 * with its commit, error and details. False when the claim was no longer
 * `worker`'s (nothing was written).
 */
export async function finishRequestedGitSyncRun(
  q: Queryable,
  job: ClaimedGitSync,
  worker: string,
  r: { status: 'success' | 'no_change' | 'failed'; sha: string; error: string; details: Record<string, unknown>; now: Date },
): Promise<boolean> {
  const set = { sha: r.sha, details: JSON.stringify(r.details), ended_at: r.now };
  if (r.status === 'failed') return (await REQUESTS.fail(q, job, worker, { error: r.error, permanent: true, set })).held;
  return REQUESTS.succeed(q, job, worker, set, r.status);
}

/** Writes a run that starts now in `running` (polls that found something to fetch, pushes). */
export async function insertRunningGitSyncRun(q: Queryable, r: { id: string; sourceId: string; trigger: string; requestedBy: string; now: Date }): Promise<GitSyncRunRow> {
  const row = await q.query<GitSyncRunRow>(
    `INSERT INTO git_sync_runs (id, git_source_id, trigger, requested_by, status, started_at) VALUES ($1, $2, $3, $4, 'running', $5) RETURNING ${RUN_COLUMNS}`,
    [r.id, r.sourceId, r.trigger, r.requestedBy, r.now],
  );
  return row.rows[0];
}

/** Ends a run that was not requested (a poll, a push): its status (`success`, `no_change`, `failed`), commit, error and details. */
export async function finishGitSyncRun(
  q: Queryable,
  r: { id: string; status: 'success' | 'no_change' | 'failed'; sha: string; error: string; details: Record<string, unknown>; now: Date },
): Promise<void> {
  await q.query(`UPDATE git_sync_runs SET status = $2, sha = $3, error = $4, details = $5, ended_at = $6 WHERE id = $1`, [
    r.id,
    r.status,
    r.sha,
    r.error,
    JSON.stringify(r.details),
    r.now,
  ]);
}

/**
 * Records the outcome on the source: `last_sync_at` and `last_sync_status`
 * always; `last_synced_sha` only when the sync succeeded (a failed sync
 * leaves the namespaces at the last good commit); `last_error` is cleared
 * by a success.
 */
export async function recordGitSourceOutcome(q: Queryable, r: { sourceId: string; ok: boolean; sha: string; error: string; now: Date }): Promise<void> {
  await q.query(
    `UPDATE git_sources
        SET last_sync_at = $2, last_sync_status = $3, last_error = $4,
            last_synced_sha = CASE WHEN $3 = 'success' THEN $5 ELSE last_synced_sha END,
            updated_at = $2
      WHERE id = $1`,
    [r.sourceId, r.now, r.ok ? 'success' : 'failed', r.ok ? '' : r.error, r.sha],
  );
}
