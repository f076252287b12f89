// The process executor: the runner's code runs inside the dispatcher (no
// fresh Node runtime per task: spawning one costs tens of milliseconds and
// the memory of a second V8), talking to the engine directly instead of over
// HTTP; only the task's own command is a new process, in its own process
// group, in a working directory holding exactly the snapshot's files (kept
// between tasks and synced to the bundle: @svc/runner's WorkdirPool).
// `svc exec` runs the same code with the HTTP transport inside containers.
import os from 'node:os';
import path from 'node:path';
import { listInstances } from '@svc/db';
import { outsideLogFields } from '@svc/logging';
import { EngineError, IO_RETRY_FOR_MS, withRetry, type ClaimedRun, type PreparedTask } from '@svc/engine';
import fs from 'node:fs';
import { BundleCache, reopenFileStream, runTask, SpawnHelper, WorkdirPool, type Completion, type RunnerTransport } from '@svc/runner';
import type { DispatcherContext } from '../context.js';
import { removeDeadInstanceDirs } from './dead-instance-dirs.js';
import { IoDirs } from './io-dirs.js';
import { closeDataDir, taskUserFor, unisolatedWarning } from './task-isolation.js';
import type { Executor, Handoff } from './types.js';

export function processExecutor(ctx: DispatcherContext): Executor {
  const workRoot = ctx.config.workDir || path.join(os.tmpdir(), 'svc-work');
  // Per-instance directories: extracted bundles, the kept working directories, and the per-slot io directories.
  const [cacheParent, workdirParent, ioParent] = [path.join(workRoot, '.bundle-cache'), path.join(workRoot, '.workdirs'), path.join(workRoot, '.runner-io')];
  // As root, tasks run as the task user, which gets their directories and none of the data directory (task-isolation.ts).
  const user = taskUserFor(ctx.config.taskUser);
  const owner = user ? { uid: user.uid, gid: user.gid } : undefined;
  if (!user) {
    // Not a failure (a developer's machine runs so), but an operator must see it: a warning at start and on /readyz.
    const text = unisolatedWarning(ctx.config.taskUser);
    ctx.log.warn(`the process executor is unisolated: ${text}`, { task_user: ctx.config.taskUser, uid: os.userInfo().uid });
    ctx.readinessDetail?.('process_executor', `unisolated: ${text}`);
  }
  if (user) {
    for (const d of [cacheParent, workdirParent, ioParent]) fs.mkdirSync(d, { recursive: true });
    closeDataDir(ctx.config.dataDir, workRoot);
    fs.chmodSync(cacheParent, 0o700);
    for (const d of [workRoot, workdirParent, ioParent]) fs.chmodSync(d, 0o711);
  }
  const bundleCache = new BundleCache({ root: path.join(cacheParent, ctx.instanceId) });
  // Working directories are kept and synced to the bundle instead of made and removed per task (workdir-pool.ts: inode churn is costly).
  const workdirs = new WorkdirPool({ root: path.join(workdirParent, ctx.instanceId), cache: bundleCache, maxIdle: ctx.config.workerSlots, owner });
  const ioDirs = new IoDirs(path.join(ioParent, ctx.instanceId), owner);
  // Online on the database's clock, which wrote the heartbeats.
  const onlineIds = async () => (await listInstances(ctx.db.pool)).filter((i) => i.online).map((i) => i.id);
  removeDeadInstanceDirs([cacheParent, workdirParent, ioParent], ctx.instanceId, onlineIds).catch((err: unknown) =>
    ctx.log.warn('cannot remove the work directories of stopped dispatchers', { err }),
  );
  // Task processes are spawned by a small helper process (Perl where there is one, else Node): a fork from the dispatcher copies its page tables (milliseconds of CPU at its size; bench/RESULTS.md).
  const runtime = ctx.config.spawnHelper === 'auto' ? undefined : ctx.config.spawnHelper;
  const spawner = new SpawnHelper({
    ...(runtime ? { runtime } : {}),
    onHelperExit: (code, signal) => ctx.log.warn('spawn helper exited; it is restarted for the next task', { code, signal }),
  });
  ctx.log.info('task processes are spawned by the spawn helper', { spawn_helper: spawner.runtime });
  return {
    type: 'process',
    close: () => {
      workdirs.close();
      bundleCache.close();
      ioDirs.close();
      spawner.close();
    },
    async run(run: ClaimedRun, signal: AbortSignal, handoff?: Handoff) {
      // Undefined unless a completion went through the handoff (then: what it claimed, maybe nothing).
      let next: ClaimedRun[] | undefined;
      const { engine } = ctx;
      const prepared = await engine.dispatch.prepare(run);
      if (!prepared) return;
      const transport: RunnerTransport = {
        getSpec: () => Promise.resolve(prepared.spec),
        getBundle: async () => (prepared.spec.bundle_hash ? (await engine.runner.bundle(prepared.execution.snapshot_id)).stream : null),
        // Straight from the object store; the runner checks size and sha256 (fetch-files.ts).
        getFile: async (artifactId) => {
          const f = await engine.runner.file(run.id, artifactId);
          if (!f) throw new Error(`no file ${artifactId} for task run ${run.id}`);
          return f.stream;
        },
        // The database's clock: the watchdog judges the heartbeat against it.
        heartbeat: async () => engine.runner.heartbeat(run.id),
        // A batch (idempotent: lines are keyed by number) or an artifact (one row per name) is retried through a
        // short database or object store outage, as the HTTP transport of `svc exec` does, instead of being lost.
        postLogs: (lines) =>
          withRetry(async () => void (await engine.runner.appendLogs(run.id, lines, { execution_id: run.execution_id, task_key: run.task_key, attempt: run.attempt })), {
            what: `posting ${lines.length} log lines of task run ${run.id}`,
            forMs: IO_RETRY_FOR_MS,
            onRetry: (err, attempt, delayMs) =>
              ctx.log.warn('cannot store log lines; retrying', { err, execution_id: run.execution_id, task_run_id: run.id, attempt, retry_in_ms: delayMs }),
          }),
        // Streamed from the task's file to the object store. A retry reads the file again from its start (a file stream
        // carries its path), and the limit is the runner's (it checks a file's size before the upload).
        putArtifact: async (name, body, _size, opts) => {
          const reopen = reopenFileStream(body);
          let first = true;
          // A refusal (over the limit, another checksum) is not retried: the same bytes would be refused again.
          let refused: EngineError | undefined;
          await withRetry(
            async () => {
              const source = first || !reopen ? body : reopen();
              first = false;
              try {
                await engine.runner.storeArtifact(run.id, name, source as AsyncIterable<Buffer>, { kind: opts?.kind, ...(opts?.sha256 ? { sha256: opts.sha256 } : {}) });
              } catch (err) {
                if (!(err instanceof EngineError)) throw err;
                refused = err;
              }
            },
            {
              what: `storing artifact ${name} of task run ${run.id}`,
              forMs: IO_RETRY_FOR_MS,
              onRetry: (err, attempt, delayMs) =>
                ctx.log.warn('cannot store an artifact; retrying', { err, execution_id: run.execution_id, task_run_id: run.id, attempt, retry_in_ms: delayMs }),
            },
          );
          if (refused) throw refused;
        },
        // From the task: masked against the secrets the run resolved. The next run for this slot
        // is claimed in the same transaction (handoff), so a chain's next task needs no claim of its own.
        complete: async (c: Completion) => {
          const claim = handoff?.claim();
          const r = await engine.runner.completeAndClaim(
            run.id,
            { state: c.state, reason: c.reason, error: c.error, exitCode: c.exit_code, outputs: c.outputs, metrics: c.metrics },
            { fromTask: true, claim, run },
          );
          if (claim && r.ended) next = r.claimed;
        },
      };
      const ioDir = ioDirs.acquire();
      // Reused only when the task's process group is known to be gone: nothing of it can write there any more.
      let reusable = true;
      try {
        await runTask({
          transport,
          workRoot,
          signal,
          heartbeatMs: ctx.heartbeatMs,
          killDelayMs: ctx.killDelayMs,
          bundleCache,
          workdirs,
          // The helper process is started on the first spawn: outside this run's log fields, or its output
          // callbacks (which relay every later task's lines) would carry this run's ids for good.
          spawn: (inv, opts) => outsideLogFields(() => spawner.spawn(inv, opts)),
          ioDir,
          user,
          onProcessEnd: (groupGone) => (reusable = groupGone),
        });
      } finally {
        ioDirs.release(ioDir, reusable);
      }
      return next;
    },
  };
}

export type { PreparedTask };
