// Everything inside the engine, for its own tests, the apps' tests and the
// benchmarks. Apps use only what `@svc/engine` (index.ts) exports: the Engine.
//
// Besides the systems themselves, a few functions over a pool (and, for
// starts, the start dependencies) that tests call without an Engine: each
// builds the systems it needs once per pool and dependencies (systemsOf) and
// calls their method, so a test runs the very code an Engine runs.
import type pg from 'pg';
import type { Queryable } from '@svc/db';
import { Engine as TheEngine, buildSystems, type EngineSystems } from './engine.js';
import type { Conn } from './db.js';
import type { EngineResources, EngineStorage } from './resources.js';
import { claimTaskRuns as claimStatement } from './sql/claim-task-runs.js';
import type { AdvanceOptions } from './systems/advance.js';
import { Cancels } from './systems/cancel.js';
import { Completions } from './systems/completion.js';
import { LogAppender } from './systems/log-appender.js';
import { Planning } from './systems/planner.js';
import { Preparer, type SpecDeps } from './systems/prepare.js';
import { RunnerIo, type StoreArtifactOptions } from './systems/runner-io.js';
import type { StartDeps } from './systems/start.js';
import { Dashboards, type DashboardQuery } from './systems/dashboards.js';
import type { DashboardHoursCache } from './systems/dashboard-cache.js';
import type { ClaimedRun, ClaimOptions, ClaimResult, IncomingLogLine, Masking, PendingCompletion, TaskCompletion, TaskRunIdentity, TriggerRequest } from './types.js';

export * from './constants.js';
export * from './types.js';
export * from './errors.js';
export { CHANNELS, LOG_CHANNEL } from './channels.js';
export { inTx, type Conn } from './db.js';
export { Engine, buildSystems, type EngineSystems, type StartCaches } from './engine.js';
export { resolveInputs, type InputProblem } from './planning/inputs.js';
export { loadRunTokenKey, signRunToken, verifyRunToken, RunTokens } from './systems/run-tokens.js';
export { advance, advanceMany, latestRuns, lockExecution, onlineSince, onlineSinceSql, scopeOf, type ExecutionRow, type TaskRunRow } from './systems/advance.js';
export { Planner, Planning, PLAN_BATCH, type PlannerOptions, type PassResult } from './systems/planner.js';
export { Starts, resolveExecutor, type EngineConfig, type StartDeps } from './systems/start.js';
export { SnapshotFacts } from './systems/snapshot-facts.js';
export { FlowCache } from './systems/flow-cache.js';
export { Triggers } from './systems/trigger.js';
export { Completions, planReadOf, type EndedRuns } from './systems/completion.js';
export { SecretMasker } from './systems/secret-masking.js';
export { Dispatch } from './systems/dispatch.js';
export { Cancels } from './systems/cancel.js';
export { Reruns } from './systems/rerun.js';
export { FollowUps, OUTBOX_BACKSTOP_AGE_MS } from './systems/followups.js';
export { Outbox, recordFollowUps } from './systems/outbox.js';
export { Watchdog, CONTAINER_EXECUTORS, STALE_REQUEST_MS } from './systems/watchdog.js';
export { Preparer, DispatchError, type PreparedTask, type RunnerSpec, type SpecDeps } from './systems/prepare.js';
export { loadExecutions } from './systems/serialize.js';
export { RunnerIo, artifactKey, type ArtifactKind, type StoreArtifactOptions } from './systems/runner-io.js';
export { LogAppender, appendStatement, plainIsSafe } from './systems/log-appender.js';
export { FlowTriggers, type FlowTriggerResult } from './systems/flow-triggers.js';
export { Dashboards, dashboardWindow } from './systems/dashboards.js';
export { DashboardHoursCache } from './systems/dashboard-cache.js';
export { withRetry, IO_RETRY_FOR_MS, RetriesExhaustedError } from './retry.js';
export { ExecutionRetention, EXECUTION_CHILD_TABLES, EXECUTION_END_STATES } from './systems/retention.js';

const quiet = { warn: () => undefined, info: () => undefined };

/** An Engine for tests and benchmarks: the process executor by default, no master keys, generous limits, a quiet log. */
export function testEngine(o: {
  pool: pg.Pool;
  storage: EngineStorage;
  now?: () => Date;
  log?: { warn(msg: string, meta?: Record<string, unknown>): unknown; info(msg: string, meta?: Record<string, unknown>): unknown };
}): TheEngine {
  return new TheEngine({
    pool: o.pool,
    storage: o.storage,
    clock: { now: o.now ?? (() => new Date()) },
    config: { defaultExecutor: 'process', masterKeys: [], maxArtifactBytes: 100 * 1024 * 1024, maxBundleBytes: 100 * 1024 * 1024 },
    log: o.log ?? quiet,
  });
}

const built = new WeakMap<object, WeakMap<pg.Pool, EngineSystems>>();
const noDeps: StartDeps = { config: { defaultExecutor: 'process', now: () => new Date() } };

/**
 * The systems of an Engine on `pool` with the start dependencies `deps`
 * (their clock, object store and caches; the caches only when `deps` has
 * them, as a start without them reads every time), built once per pool and
 * `deps` object. No master keys; a quiet log.
 */
export function systemsOf(pool: pg.Pool, deps: StartDeps = noDeps): EngineSystems {
  let byPool = built.get(deps);
  if (!byPool) built.set(deps, (byPool = new WeakMap()));
  let sys = byPool.get(pool);
  if (!sys) {
    const r: EngineResources = {
      pool,
      // Tests that start executions without an object store pass none: namespace.yaml is not read then.
      storage: deps.storage as EngineStorage,
      clock: { now: () => deps.config.now() },
      config: {
        defaultExecutor: deps.config.defaultExecutor as EngineResources['config']['defaultExecutor'],
        masterKeys: [],
        maxArtifactBytes: 100 * 1024 * 1024,
        maxBundleBytes: 100 * 1024 * 1024,
      },
      log: quiet,
    };
    byPool.set(pool, (sys = buildSystems(r, { snapshots: deps.snapshots, flows: deps.flows })));
  }
  return sys;
}

// ---- functions over a pool, for tests --------------------------------------------

/** Triggers a flow by name (Triggers.trigger; no follow-ups run). */
export const triggerFlow = (pool: pg.Pool, deps: StartDeps, t: TriggerRequest) => systemsOf(pool, deps).triggers.trigger(t);

/** Claims QUEUED runs (the claim statement; on `db`, which may be a client in a transaction). */
export async function claimRuns(db: Queryable, o: ClaimOptions): Promise<ClaimResult> {
  const r = await claimStatement(db, o);
  return { runs: r.runs, nextAt: r.nextAt, at: r.at ?? o.now ?? new Date() };
}

/** claimRuns without the next claimable time. */
export async function claimTaskRuns(db: Queryable, o: ClaimOptions): Promise<ClaimedRun[]> {
  if (o.limit <= 0) return [];
  return (await claimRuns(db, o)).runs;
}

/** Completions (and their planning) on `db`, a pool or a client in a transaction. */
const completionsOn = (db: Conn, opts: AdvanceOptions = {}) => new Completions(db as pg.Pool, new Planning(db as pg.Pool, opts), opts);

/** Completions.end on `db`. */
export const endTaskRun = (db: Conn, taskRunId: string, done: TaskCompletion, clock?: Date | (() => Date), masking?: Masking) =>
  completionsOn(db).end(taskRunId, done, { clock, masking, db });

/** Completions.complete on `db`. */
export const completeTaskRun = (db: Conn, taskRunId: string, done: TaskCompletion, now: () => Date, opts: AdvanceOptions & { masking?: Masking } = {}) =>
  completionsOn(db, opts).complete(taskRunId, done, now, { masking: opts.masking, db });

/** Completions.endAndPlan on `pool`. */
export const endAndPlan = (pool: pg.Pool, items: PendingCompletion[], now: () => Date, opts: AdvanceOptions = {}) => completionsOn(pool, opts).endAndPlan(items, now);

/** One planning pass (Planning.plan) on `db`. */
export const planExecutions = (db: Conn, now: () => Date, ids?: string[], opts: AdvanceOptions = {}) => new Planning(db as pg.Pool, opts).plan(now, ids);

/** Reruns.rerun, Reruns.restart (no follow-ups run). */
export const rerunExecution = (pool: pg.Pool, deps: StartDeps, id: string, actor: string) => systemsOf(pool, deps).reruns.rerun(id, actor);
export const restartExecution = (pool: pg.Pool, deps: StartDeps, id: string, actor: string) => systemsOf(pool, deps).reruns.restart(id, actor);

/** Cancels.cancel on `db` at `now` (no follow-ups run). */
export const cancelExecution = (db: Conn, id: string, actor: string, now: () => Date) => new Cancels(db as pg.Pool, now).cancel(id, actor, db);

/** The watchdog's rules (no follow-ups run). */
export const timeOutTaskRuns = (pool: pg.Pool, now?: Date) => systemsOf(pool).watchdog.timeOutTaskRuns(now);
export const failLostTaskRuns = (pool: pg.Pool, now?: Date, executorTypes?: string[]) => systemsOf(pool).watchdog.failLostTaskRuns(now, executorTypes);
export const failLostContainerRuns = (pool: pg.Pool, now: Date, heartbeatTimeoutMs: number) => systemsOf(pool).watchdog.failLostContainerRuns(now, heartbeatTimeoutMs);
export const stopInstanceTaskRuns = (pool: pg.Pool, instanceId: string, now?: Date) => systemsOf(pool).watchdog.stopInstanceTaskRuns(instanceId, now);

/** FollowUps.run, FollowUps.drain. */
export const runFollowUps = (pool: pg.Pool, deps: StartDeps, f: Parameters<EngineSystems['followUps']['run']>[0]) => systemsOf(pool, deps).followUps.run(f);
export const drainOutbox = (pool: pg.Pool, deps: StartDeps, opts?: { olderThanMs?: number; limit?: number }) => systemsOf(pool, deps).followUps.drain(opts);

/** FlowTriggers.fire, FlowTriggers.sweep. */
export const fireFlowTriggers = (pool: pg.Pool, deps: StartDeps, upstreamId: string) => systemsOf(pool, deps).flowTriggers.fire(upstreamId);
export const sweepFlowTriggers = (pool: pg.Pool, deps: StartDeps, since: Date) => systemsOf(pool, deps).flowTriggers.sweep(since);

/** Preparer.prepareTask with `deps` (no bundle store: `bundleHash` answers). */
export const prepareTask = (deps: SpecDeps, run: string | ClaimedRun, bundleHash: () => Promise<string>, onSnapshot?: (snapshotId: string) => void) =>
  new Preparer(deps, { bundles: undefined as never, log: quiet, complete: () => Promise.resolve(), planNow: () => Promise.resolve() }).prepareTask(run, bundleHash, onSnapshot);

const appenders = new WeakMap<pg.Pool, LogAppender>();

/** Stores a batch of log lines through the LogAppender of `pool` (one per pool, as an Engine holds one). */
export function appendLogs(pool: pg.Pool, taskRunId: string, lines: IncomingLogLine[], who?: TaskRunIdentity): Promise<number> {
  let a = appenders.get(pool);
  if (!a) appenders.set(pool, (a = new LogAppender(pool)));
  return a.append(taskRunId, lines, who);
}

/** RunnerIo.storeArtifact on `pool` and `storage`. */
export const storeArtifact = (pool: pg.Pool, storage: Pick<EngineStorage, 'put'>, taskRunId: string, name: string, body: Buffer, opts?: StoreArtifactOptions) =>
  new RunnerIo(pool, storage, []).storeArtifact(taskRunId, name, body, opts);

/** RunnerIo.heartbeat on `pool`. */
export const heartbeatTaskRun = (pool: pg.Pool, taskRunId: string, now?: Date) =>
  new RunnerIo(pool, { put: () => Promise.reject(new Error('no storage')) }, []).heartbeat(taskRunId, now);

/** Dashboards.dashboardAt on `pool` with its cache of rolled-up hours. */
export const dashboard = (pool: pg.Pool, hours: DashboardHoursCache, o: DashboardQuery & { now: Date }) => new Dashboards(pool, () => o.now, hours).dashboardAt(o);
