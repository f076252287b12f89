// The git sync worker: syncs requested sources and polls the others on their
// `poll_interval`, each source on one worker at a time however many
// instances run one. Each pass:
//   1. due sources are listed (requested, or poll time reached);
//   2. for each, the worker takes the source's lease (`git-source:<id>`); a
//      source whose lease another worker holds is skipped (it is syncing);
//   3. under the lease the source row is claimed (SKIP LOCKED, re-checked
//      due: another worker may have just synced it), which clears the
//      request, moves next_poll_at and claims the queued run of a request
//      (a job of the sync request queue, sync-queue.ts);
//   4. a poll first asks the remote for the branch head; when it is the
//      commit last synced and the last sync succeeded, only last_sync_at
//      moves and no run is recorded (a poll every minute would otherwise
//      add 1440 identical rows a day, kept forever). Everything else is a
//      run: a requested sync always, a poll that saw a new commit or
//      follows a failure;
//   5. the run (a request's through the queue, while its claim is the
//      worker's) and the source's last_* columns are written, and the lease
//      released. The lease and the run's claim are renewed while git runs;
//      a worker that dies mid-sync leaves a `running` run that the next
//      holder fails.
// Passes run on a JobWorker (@svc/jobs): woken by the queue's NOTIFY
// through the process's shared notifier, and by the tick, which is also
// what finds the sources whose poll time came.
import type pg from 'pg';
import { acquireLease, inTransaction, newId, releaseLease, renewLease, type Db, type Notifier } from '@svc/db';
import { JobWorker } from '@svc/jobs';
import { getGitSource } from './sources.js';
import {
  claimGitSource,
  extendGitSyncClaim,
  finishGitSyncRun,
  finishRequestedGitSyncRun,
  GIT_SYNC_CHANNEL,
  gitSourceLease,
  insertRunningGitSyncRun,
  recordGitSourceOutcome,
  selectDueGitSources,
  type ClaimedGitSync,
} from './sync-queue.js';
import { remoteHead, syncSource, type SyncDeps, type SyncOutcome } from './sync.js';

export interface WorkerLog {
  info(message: string, meta?: Record<string, unknown>): unknown;
  warn(message: string, meta?: Record<string, unknown>): unknown;
}

export interface GitSyncWorkerDeps extends SyncDeps {
  db: Pick<Db, 'prisma' | 'pool'>;
  log: WorkerLog;
  /** Lease holder id: the instance id. */
  holderId: string;
  /** Milliseconds between ticks. Default 2000. */
  tickMs?: number;
  /** Lease lifetime in ms; renewed every third of it while a sync runs. Default 60 000. */
  leaseMs?: number;
  /** Sources looked at per tick. Default 20. */
  batchSize?: number;
}

export interface TickReport {
  /** Sources synced (or polled) by this worker in this tick, with the outcome; `unchanged` for a quiet poll. */
  synced: { sourceId: string; runId: string | null; status: SyncOutcome['status'] | 'unchanged' }[];
  /** Sources skipped because another worker held them. */
  busy: number;
}

export class GitSyncWorker {
  private readonly deps: GitSyncWorkerDeps;
  /** Aborted by stop(): a sync in progress is cut short rather than holding up the shutdown. */
  private readonly stopping = new AbortController();

  constructor(deps: GitSyncWorkerDeps) {
    this.deps = { ...deps, signal: deps.signal ?? this.stopping.signal };
  }

  private get pool(): pg.Pool {
    return this.deps.db.pool;
  }

  /** One pass over the due sources. */
  async tick(now: Date = this.deps.now()): Promise<TickReport> {
    const report: TickReport = { synced: [], busy: 0 };
    const ids = await selectDueGitSources(this.pool, now, this.deps.batchSize ?? 20);
    for (const id of ids) {
      if (this.stopping.signal.aborted) break;
      const lease = gitSourceLease(id);
      const leaseMs = this.deps.leaseMs ?? 60_000;
      if (!(await acquireLease(this.pool, lease, this.deps.holderId, leaseMs))) {
        report.busy++;
        continue;
      }
      // The request's claim, once taken: renewed with the lease.
      const held: { job: ClaimedGitSync | null } = { job: null };
      const renew = setInterval(
        () => {
          renewLease(this.pool, lease, this.deps.holderId, leaseMs).then(
            (ok) => ok || this.deps.log.warn('git sync lease lost while syncing', { source_id: id }),
            (err: unknown) => this.deps.log.warn('git sync lease renewal failed', { source_id: id, error: (err as Error).message }),
          );
          if (held.job) {
            extendGitSyncClaim(this.pool, held.job, this.deps.holderId, leaseMs).catch((err: unknown) =>
              this.deps.log.warn('git sync claim renewal failed', { source_id: id, error: (err as Error).message }),
            );
          }
        },
        Math.max(1000, Math.floor(leaseMs / 3)),
      );
      try {
        const done = await this.syncClaimed(id, now, leaseMs, held);
        if (done) report.synced.push(done);
      } catch (err) {
        // Annotate and go on with the next source: one broken source stops no other.
        this.deps.log.warn('git sync failed', { source_id: id, error: (err as Error).message });
      } finally {
        clearInterval(renew);
        await releaseLease(this.pool, lease, this.deps.holderId).catch(() => undefined);
      }
    }
    return report;
  }

  private async syncClaimed(id: string, now: Date, leaseMs: number, held: { job: ClaimedGitSync | null }): Promise<TickReport['synced'][number] | undefined> {
    const claim = await inTransaction(this.pool, (c) => claimGitSource(c, id, now, this.deps.holderId, leaseMs));
    if (!claim) return undefined;
    held.job = claim.job;
    if (claim.abandoned) this.deps.log.warn('git sync runs left running by a stopped instance marked failed', { source_id: id, runs: claim.abandoned });
    const source = await getGitSource(this.deps, id);
    let run = claim.run;
    if (!run) {
      // A poll: a run only when there is something to fetch (see the header).
      if (source.lastSyncStatus !== 'failed' && source.lastSyncedSha) {
        let head: string | null = null;
        try {
          head = await remoteHead(this.deps, source);
        } catch {
          head = null; // the run below fetches and records why
        }
        if (head === source.lastSyncedSha) {
          await recordGitSourceOutcome(this.pool, { sourceId: id, ok: true, sha: head, error: '', now: this.deps.now() });
          return { sourceId: id, runId: null, status: 'unchanged' };
        }
      }
      run = await insertRunningGitSyncRun(this.pool, { id: newId(), sourceId: id, trigger: 'poll', requestedBy: '', now });
    }
    const out = await syncSource(this.deps, source);
    const ended = this.deps.now();
    const job = claim.job;
    await inTransaction(this.pool, async (c) => {
      const ending = { status: out.status, sha: out.sha, error: out.error, details: out.details, now: ended };
      if (!job) await finishGitSyncRun(c, { id: run.id, ...ending });
      else if (!(await finishRequestedGitSyncRun(c, job, this.deps.holderId, ending))) {
        this.deps.log.warn("git sync run was no longer this worker's to end", { source_id: id, run_id: run.id });
      }
      await recordGitSourceOutcome(c, { sourceId: id, ok: out.status !== 'failed', sha: out.sha, error: out.error, now: ended });
    });
    const meta = { source_id: id, run_id: run.id, trigger: run.trigger, status: out.status, sha: out.sha };
    if (out.status === 'failed') this.deps.log.warn('git sync failed', { ...meta, error: out.error });
    else this.deps.log.info('git sync ended', meta);
    return { sourceId: id, runId: run.id, status: out.status };
  }

  /**
   * Runs passes until stopped: on every tick, and when a request is queued
   * (NOTIFY through `notifier`, the process's shared one).
   */
  async start(notifier: Notifier): Promise<{ stop(): Promise<void> }> {
    const passes = new JobWorker({
      notifier,
      channel: GIT_SYNC_CHANNEL,
      pollMs: this.deps.tickMs ?? 2000,
      log: this.deps.log,
      what: 'git sync requests',
      pass: async () => {
        await this.tick();
      },
    });
    await passes.start();
    const abort = () => this.stopping.abort();
    return {
      async stop() {
        abort();
        await passes.stop();
      },
    };
  }
}
