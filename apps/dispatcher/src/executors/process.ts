// The process executor: the runner's code runs inside the dispatcher (no
// fresh Node runtime per task: spawning one costs tens of milliseconds and
// the memory of a second V8), talking to the engine directly instead of over
// HTTP; only the task's own command is a new process, in its own process
// group, in a fresh workdir removed afterwards. `svc exec` runs the same code
// with the HTTP transport inside containers.
import os from 'node:os';
import path from 'node:path';
import { appendLogs, heartbeatTaskRun, storeArtifact, type ClaimedRun, type PreparedTask } from '@svc/engine';
import fs from 'node:fs';
import { BundleCache, runTask, SpawnHelper, type Completion, type RunnerTransport } from '@svc/runner';
import type { DispatcherContext } from '../context.js';
import { IoDirs } from './io-dirs.js';
import type { Executor } from './types.js';

/** Cache directories of dispatchers that stopped (or died) more than this long ago are removed at start. */
const STALE_CACHE_MS = 24 * 3600_000;

/** The extracted-bundle cache of this dispatcher, under `<SVC_WORK_DIR>/.bundle-cache/<instance id>`; old ones of earlier instances are removed. */
function bundleCacheOf(ctx: DispatcherContext): BundleCache {
  const parent = path.join(ctx.config.workDir || os.tmpdir(), '.bundle-cache');
  fs.mkdirSync(parent, { recursive: true });
  for (const name of fs.readdirSync(parent)) {
    const dir = path.join(parent, name);
    const st = fs.statSync(dir, { throwIfNoEntry: false });
    if (st && Date.now() - st.mtimeMs > STALE_CACHE_MS) fs.rmSync(dir, { recursive: true, force: true });
  }
  return new BundleCache({ root: path.join(parent, ctx.instanceId) });
}

export function processExecutor(ctx: DispatcherContext): Executor {
  const workRoot = ctx.config.workDir || path.join(os.tmpdir(), 'svc-work');
  const bundleCache = bundleCacheOf(ctx);
  const ioDirs = new IoDirs(path.join(workRoot, '.runner-io', ctx.instanceId));
  // Task processes are spawned by a small helper process: a fork from the dispatcher copies its page tables (milliseconds of CPU at its size; bench/RESULTS.md).
  const spawner = new SpawnHelper({ onHelperExit: (code, signal) => ctx.log.warn('spawn helper exited; it is restarted for the next task', { code, signal }) });
  return {
    type: 'process',
    close: () => {
      bundleCache.close();
      ioDirs.close();
      spawner.close();
    },
    async run(run: ClaimedRun, signal: AbortSignal) {
      const prepared = await ctx.prepare(run);
      if (!prepared) return;
      const transport: RunnerTransport = {
        getSpec: async () => prepared.spec as never,
        getBundle: async () => (prepared.spec.bundle_hash ? ctx.bundleStream(prepared.execution.snapshot_id) : null),
        heartbeat: async () => heartbeatTaskRun(ctx.db.pool, run.id, ctx.clock.now()),
        postLogs: async (lines) => void (await appendLogs(ctx.db.pool, run.id, lines, { execution_id: run.execution_id, task_key: run.task_key, attempt: run.attempt })),
        putArtifact: async (name, body) => {
          const chunks: Buffer[] = [];
          for await (const c of body as AsyncIterable<Buffer>) chunks.push(c);
          await storeArtifact(ctx.db.pool, ctx.storage, run.id, name, Buffer.concat(chunks));
        },
        complete: (c: Completion) => ctx.finish(run.id, { state: c.state, reason: c.reason, error: c.error, exitCode: c.exit_code, outputs: c.outputs, metrics: c.metrics }),
      };
      const ioDir = ioDirs.acquire();
      // Reused only when the task's process group is known to be gone: nothing of it can write there any more.
      let reusable = true;
      try {
        await runTask({
          transport, workRoot: workRoot || os.tmpdir(), signal, heartbeatMs: ctx.heartbeatMs, killDelayMs: ctx.killDelayMs, bundleCache, spawn: spawner.spawn, ioDir,
          onProcessEnd: (groupGone) => (reusable = groupGone),
        });
      } finally {
        ioDirs.release(ioDir, reusable);
      }
    },
  };
}

export type { PreparedTask };
