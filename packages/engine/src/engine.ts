// The engine's one entry point. Apps build an Engine from one bag of
// resources (the shared pool, the object store, a clock, the configuration it
// needs, a logger) and call its methods, each of which finishes its own work:
// a change commits with its follow-ups recorded (outbox.ts), then runs them,
// leaving to the backstop (drainOutbox, run by every dispatcher's planner
// poll and the maintenance watchdog) whatever fails. Nothing else of the
// engine's inside is for apps.
//
// There is one completion path, `complete`: it ends a RUNNING task run
// (masked against the secrets it resolved when the completion comes from a
// task), then has its execution planned: by this process's Planner when one
// is started (dispatchers batch planning passes), else at once, and runs the
// follow-ups.
import type pg from 'pg';
import { isExecutionEnded, isExecutionState } from '@svc/state-machine';
import type { ExecutorType, MasterKey } from '@svc/config';
import { ensureBundle } from '@svc/namespaces';
import type { ObjectStore } from '@svc/storage';
import { cancelExecution } from './cancel.js';
import { claimRuns, clearNoInstanceReason, markUnserved, type ClaimedRun, type ClaimOptions, type ClaimResult } from './claim.js';
import { endAndPlan, endTaskRun, planReadOf, type TaskCompletion } from './complete.js';
import { CompletionBatcher } from './completion-batcher.js';
import { MAX_CHAIN_DEPTH } from './constants.js';
import { inTx, type Client } from './db.js';
import { TaskRunNotFoundError, TaskRunNotStartableError } from './errors.js';
import { createExecution, createExecutionWith, mergeExecutorSpec, namespaceExecutorOf, SnapshotFacts, type NewExecution, type StartDeps } from './executions.js';
import { drainOutbox, runFollowUps } from './followups.js';
import { sweepFlowTriggers, type FlowTriggerResult } from './flow-triggers.js';
import type { FollowUp } from './outbox.js';
import { Planner, planExecutions, hasStaleRequests } from './planner.js';
import { rerunExecution, restartExecution } from './rerun.js';
import { IO_RETRY_FOR_MS, withRetry } from './retry.js';
import { appendLogs, heartbeatTaskRun, recordRunnerEvent, storeArtifact, type RunnerEvent, type IncomingLogLine, type TaskRunIdentity } from './runner-io.js';
import { loadRunTokenKey, signRunToken, verifyRunToken } from './run-token.js';
import { loadExecutions } from './serialize.js';
import { DashboardHoursCache } from './dashboard-cache.js';
import { dashboard, flowMetrics, flowStats, type DashboardRange } from './stats.js';
import { DispatchError, prepareTask, type PreparedTask } from './spec.js';
import { FlowCache, triggerFlow, triggerFlowWith, type TriggerRequest } from './trigger.js';
import { listExecutionIds, type ExecutionFilter } from './sql/list-executions.js';
import { failLostContainerRuns, failLostTaskRuns, stopInstanceTaskRuns, timeOutExecutions, timeOutTaskRuns } from './watchdog.js';

/** Reasons of a FAILED end reported for a task that was stopped from outside (a signal, a killed container): a cancel when its execution is CANCELLING. */
const STOPPED_REASONS = new Set(['instance_shutdown', 'executor_error', 'lost']);

/** The object store (files, bundles, artifacts). */
export type EngineStorage = ObjectStore;

/** The one bag of resources an Engine is built from. */
export interface EngineResources {
  /** The pool every engine statement runs on (the app's one pool). */
  pool: pg.Pool;
  storage: EngineStorage;
  /** The time of new rows and rules. Tests move it; the database's clock judges heartbeats and leases. */
  clock: { now(): Date };
  config: {
    /** SVC_DEFAULT_EXECUTOR. */
    defaultExecutor: ExecutorType;
    /** SVC_MASTER_KEYS: open builtin secrets, and the secret values recorded on task runs to mask their completions. */
    masterKeys: readonly MasterKey[];
    /** SVC_MAX_ARTIFACT_BYTES. */
    maxArtifactBytes: number;
    /** SVC_MAX_BUNDLE_BYTES. */
    maxBundleBytes: number;
  };
  log: { warn(msg: string, meta?: Record<string, unknown>): unknown; info(msg: string, meta?: Record<string, unknown>): unknown; debug?(msg: string, meta?: Record<string, unknown>): unknown };
}

/** A started execution: its id, and its API object when the start needed no second read. */
export interface Started {
  id: string;
  execution?: Record<string, unknown>;
}

/** What one watchdog pass ended. */
export interface WatchdogReport {
  /** Executions ended TIMED_OUT (flow timeout). */
  executions: string[];
  /** Task runs ended TIMED_OUT reason timeout. */
  timedOut: string[];
  /** Task runs ended FAILED reason lost. */
  lost: string[];
  /** Follow-ups found left in the outbox and run. */
  leftovers: number;
}

/** A transaction of the caller's in which engine work commits with the caller's own writes. */
export interface EngineTx {
  /** Triggers a flow inside the transaction; its follow-ups run after the commit. */
  trigger(req: TriggerRequest): Promise<Started>;
}

/** Bundles of snapshots are immutable once built: their hash and key are cached (bounded). */
const BUNDLE_CACHE_SIZE = 1000;
/** Planning requests older than this are the watchdog's (their own process plans them within milliseconds). */
export const STALE_REQUEST_MS = 5_000;

export class Engine {
  private readonly deps: StartDeps;
  private deployment?: Promise<string>;
  private readonly bundles = new Map<string, Promise<{ key: string; hash: string; size: number }>>();
  private planner?: Planner;
  private readonly stopping = new AbortController();
  private runTokenKey?: Promise<Buffer>;
  /** The rolled-up hours of the dashboard this process fetched (checked against the database at every request). */
  private readonly dashboardHours = new DashboardHoursCache();
  /** Completions ended and planned together (group commit). */
  private readonly completions = new CompletionBatcher({
    write: (items) => endAndPlan(this.pool, items, this.now, { storage: this.resources.storage }),
    endOnly: async (it) => {
      const executionId = await endTaskRun(this.pool, it.taskRunId, it.done, undefined, it.masking);
      return { executionId, planned: false, claimed: [] };
    },
    follow: (f) => this.follow(f),
    onSplit: (err, size) => this.resources.log.warn('ending a batch of task runs failed; they are ended one by one', { err, completions: size }),
  });

  constructor(readonly resources: EngineResources) {
    const r = resources;
    this.deps = { config: { defaultExecutor: r.config.defaultExecutor, now: () => r.clock.now() }, storage: r.storage, snapshots: new SnapshotFacts(), flows: new FlowCache() };
  }

  private get pool(): pg.Pool {
    return this.resources.pool;
  }

  private now = (): Date => this.resources.clock.now();

  /** Runs follow-ups; a failure is logged and left in the outbox for the backstop. */
  private async follow(f: FollowUp[]): Promise<void> {
    if (!f.length) return;
    await runFollowUps(this.pool, this.deps, f).catch((err) => this.resources.log.warn('follow-up failed; the outbox backstop retries it', { err }));
  }

  private async started(created: { id: string; followUps: FollowUp[]; execution?: Record<string, unknown> }): Promise<Started> {
    await this.follow(created.followUps);
    // The start statement's own result, when it created and started the execution alone.
    return created.execution && !created.followUps.length ? { id: created.id, execution: created.execution } : { id: created.id };
  }

  // ---- executions ------------------------------------------------------------

  /** Triggers a flow by name (manual, webhook, subflow...). */
  async trigger(req: TriggerRequest): Promise<Started> {
    return this.started(await triggerFlow(this.pool, this.deps, req));
  }

  /** Starts an execution of a given definition (a file run). */
  async start(n: NewExecution): Promise<Started> {
    return this.started(await createExecution(this.pool, this.deps, n));
  }

  /**
   * Runs `fn` in one transaction of the caller's: engine work done through
   * `tx` commits (or rolls back) with the caller's own writes, and its
   * follow-ups run after the commit.
   */
  async transaction<T>(fn: (c: Client, tx: EngineTx) => Promise<T>): Promise<T> {
    const after: FollowUp[] = [];
    const out = await inTx(this.pool, (c) =>
      fn(c, {
        trigger: async (req) => {
          const created = await triggerFlowWith(c, this.deps, req);
          after.push(...created.followUps);
          return { id: created.id };
        },
      }),
    );
    await this.follow(after);
    return out;
  }

  async cancel(id: string, actor: string): Promise<{ state: string }> {
    const r = await cancelExecution(this.pool, id, actor, this.now);
    await this.follow(r.followUps);
    return { state: r.state };
  }

  async rerun(id: string, actor: string): Promise<Started> {
    return this.started(await rerunExecution(this.pool, this.deps, id, actor));
  }

  async restart(id: string, actor: string): Promise<Started> {
    return this.started(await restartExecution(this.pool, this.deps, id, actor));
  }

  /** The state of an execution; undefined when there is none. */
  async stateOf(id: string): Promise<string | undefined> {
    return (await this.pool.query<{ state: string }>(`SELECT state FROM executions WHERE id = $1`, [id])).rows[0]?.state;
  }

  /** Ids of the executions matching `f`, newest first (the listExecutions page). */
  listExecutionIds(f: ExecutionFilter): Promise<{ id: string; created_at: Date }[]> {
    return listExecutionIds(this.pool, f);
  }

  /**
   * Executions as the API shows them (getExecution), in the order of `ids`;
   * unknown ids are left out. `via`: another pool to read through (the
   * gateway's streams read through one of their own).
   */
  executions(ids: string[], via: Pick<pg.Pool, 'query'> = this.pool): Promise<Record<string, unknown>[]> {
    return loadExecutions(via, ids);
  }

  // ---- dispatch ----------------------------------------------------------------

  /**
   * Claims QUEUED task runs for an instance, on the database's clock (the
   * watchdog judges their timeouts against it); tells when the next one held
   * back by a retry backoff is due.
   */
  claim(o: ClaimOptions): Promise<ClaimResult> {
    return claimRuns(this.pool, o);
  }

  /** A dispatcher serving these pools and executors came online: their QUEUED runs lose `no_instance_for_pool`. */
  servingPools(pools: string[], executorTypes: string[]): Promise<void> {
    return clearNoInstanceReason(this.pool, pools, executorTypes);
  }

  /** This instance stopped serving these executor types: their QUEUED runs that nobody serves now say `no_instance_for_pool`. */
  withdrawn(pools: string[], executorTypes: string[]): Promise<void> {
    return markUnserved(this.pool, pools, executorTypes);
  }

  /** The hash and object key of a snapshot's bundle, built once and cached. */
  private bundleOf(snapshotId: string) {
    let b = this.bundles.get(snapshotId);
    if (!b) {
      if (this.bundles.size >= BUNDLE_CACHE_SIZE) this.bundles.delete(this.bundles.keys().next().value!);
      b = ensureBundle(this.pool, this.resources.storage, snapshotId, this.now());
      b.catch(() => this.bundles.delete(snapshotId));
      this.bundles.set(snapshotId, b);
    }
    return b;
  }

  /** The snapshot a task run's execution is pinned to (ExecutionNotFoundError when there is no such task run). */
  async snapshotOfTaskRun(taskRunId: string): Promise<string> {
    const r = await this.pool.query<{ snapshot_id: string }>(`SELECT e.snapshot_id FROM task_runs t JOIN executions e ON e.id = t.execution_id WHERE t.id = $1`, [taskRunId]);
    if (!r.rows[0]) throw new TaskRunNotFoundError(`no task run ${taskRunId}`);
    return r.rows[0].snapshot_id;
  }

  /** The bundle of a snapshot as a stream (built first when needed, rebuilt when storage cleanup removed it). */
  async bundle(snapshotId: string): Promise<{ stream: NodeJS.ReadableStream; size: number }> {
    for (let attempt = 0; ; attempt++) {
      const b = await this.bundleOf(snapshotId);
      try {
        return { stream: await this.resources.storage.get(b.key), size: b.size };
      } catch (err) {
        // Storage cleanup removes bundles unused for 7 days: forget the cached entry and build (or find) it again.
        if (attempt > 0 || (err as { name?: string }).name !== 'ObjectNotFoundError') throw err;
        this.bundles.delete(snapshotId);
      }
    }
  }

  /**
   * Everything a claimed task run needs to run, its templates resolved now.
   * A run that cannot be prepared is ended FAILED (template_error,
   * secret_not_found; executor_error for a database or object store error,
   * whose retry policy then decides) and null is returned.
   */
  async prepare(run: ClaimedRun | string): Promise<PreparedTask | null> {
    const r = await this.tryPrepare(run);
    return r.ok ? r.prepared : null;
  }

  /** `prepare` for a runner over HTTP: a run that cannot be prepared is an error naming why (the runner stops). */
  async prepareForRunner(taskRunId: string): Promise<PreparedTask> {
    const r = await this.tryPrepare(taskRunId);
    if (!r.ok) throw new TaskRunNotStartableError(`the task run cannot start: ${r.error}`);
    return r.prepared;
  }

  /**
   * The executor settings of a prepared task (image, pull, network,
   * resources, kubernetes pod settings, inject_runner): each field from the
   * task, else the flow, else the snapshot's `namespace.yaml`.
   */
  async executorSettings(prepared: PreparedTask): Promise<ReturnType<typeof mergeExecutorSpec>> {
    const ns = await namespaceExecutorOf(this.pool, this.deps, prepared.execution.snapshot_id);
    return mergeExecutorSpec(prepared.task, prepared.execution.definition, ns);
  }

  private async tryPrepare(run: ClaimedRun | string): Promise<{ ok: true; prepared: PreparedTask } | { ok: false; error: string }> {
    const id = typeof run === 'string' ? run : run.id;
    const specDeps = { pool: this.pool, storage: this.resources.storage, masterKeys: this.resources.config.masterKeys, maxArtifactBytes: this.resources.config.maxArtifactBytes, maxBundleBytes: this.resources.config.maxBundleBytes };
    try {
      let snapshotId = '';
      return { ok: true, prepared: await prepareTask(specDeps, run, async () => (await this.bundleOf(snapshotId)).hash, (snap) => (snapshotId = snap)) };
    } catch (err) {
      if (!(err instanceof DispatchError)) this.resources.log.warn('preparing a task run failed; it ends executor_error', { err, task_run_id: id });
      const failure = err instanceof DispatchError ? { reason: err.reason, error: err.message } : { reason: 'executor_error', error: `preparing the task failed: ${err instanceof Error ? err.message : String(err)}` };
      await this.complete(id, { state: 'FAILED', ...failure, exitCode: null });
      return { ok: false, error: failure.error };
    }
  }

  /**
   * The one completion path: ends a RUNNING task run and has its execution
   * planned, then runs the follow-ups. `fromTask`: the completion's text and
   * outputs come from the task, so they are masked against the secrets the run
   * resolved. A failed write is retried with backoff until it succeeds or the
   * engine stops (a dead instance's runs are then ended by the `lost` rule).
   * Returns whether this call ended the run (false: it was not RUNNING).
   */
  async complete(taskRunId: string, done: TaskCompletion, opts: { fromTask?: boolean } = {}): Promise<boolean> {
    return (await this.completeAndClaim(taskRunId, done, opts)).ended;
  }

  /**
   * complete(), and with `claim`, one QUEUED run claimed for the slot this run
   * frees, in the transaction that ends it (a dispatcher's process executor:
   * the next task of a chain starts without a claim of its own).
   */
  async completeAndClaim(
    taskRunId: string,
    done: TaskCompletion,
    opts: { fromTask?: boolean; claim?: Omit<ClaimOptions, 'limit' | 'now'>; run?: ClaimedRun } = {},
  ): Promise<{ ended: boolean; claimed: ClaimedRun[] }> {
    const masking = opts.fromTask ? { masterKeys: this.resources.config.masterKeys } : undefined;
    // A runner stopped by a signal asks the gateway whether it is a cancel, but
    // only for a moment: a loaded gateway can let it fall back to
    // instance_shutdown; and a container stopped on cancel can be killed after
    // its grace before its runner reports at all (the executor then ends it
    // executor_error). When the execution is being cancelled, the stop was the cancel.
    if (done.state === 'FAILED' && STOPPED_REASONS.has(done.reason) && opts.fromTask && (await this.beingCancelled(taskRunId))) {
      done = { ...done, state: 'CANCELLED', reason: 'cancelled', error: 'cancelled' };
    }
    // The end time is the database's clock: the claim wrote the start with it. Ended and
    // planned in one transaction with the completions that arrive meanwhile (completion-batcher.ts).
    const r = await withRetry(() => this.completions.submit({ taskRunId, done, masking, claim: opts.claim, planRead: opts.run ? planReadOf(opts.run) : undefined }), {
      what: `ending task run ${taskRunId}`,
      signal: this.stopping.signal,
      onRetry: (err, attempt, delayMs) => this.resources.log.warn('cannot record the end of a task run; retrying', { err, task_run_id: taskRunId, attempt, retry_in_ms: delayMs }),
    });
    if (!r.executionId) return { ended: false, claimed: [] };
    if (r.planned) {
      // Done: planned (and followed up) in the batch.
    } else if (this.planner) {
      // A pass holds the execution: the planner plans (and follows up) this run's request soon.
      void this.planner.kick();
    } else {
      const p = await planExecutions(this.pool, this.now, [r.executionId], { storage: this.resources.storage });
      await this.follow(p.followUps);
    }
    return { ended: true, claimed: r.claimed };
  }

  /** Whether the runner of this task run reported that the task started (its `started` event, or a progress of the task's). */
  async taskStarted(taskRunId: string): Promise<boolean> {
    const r = await this.pool.query<{ p: { type?: string; percent?: number } | null }>(`SELECT progress AS p FROM task_runs WHERE id = $1`, [taskRunId]);
    const p = r.rows[0]?.p;
    return !!p && (p.type === 'started' || p.percent !== undefined);
  }

  /** Whether this task run's execution is being cancelled. */
  private async beingCancelled(taskRunId: string): Promise<boolean> {
    const r = await this.pool.query(`SELECT 1 FROM task_runs t JOIN executions e ON e.id = t.execution_id WHERE t.id = $1 AND e.state = 'CANCELLING'`, [taskRunId]);
    return r.rowCount === 1;
  }

  /** Of these task runs, those RUNNING now (a run unknown here, or ended, is not). */
  async stillRunning(taskRunIds: string[]): Promise<string[]> {
    if (!taskRunIds.length) return [];
    const r = await this.pool.query<{ id: string }>(`SELECT id FROM task_runs WHERE id = ANY($1) AND state = 'RUNNING'`, [taskRunIds]);
    return r.rows.map((x) => x.id);
  }

  /**
   * An identity of the deployment (the database cluster's system identifier
   * and the database's name): container executors label what they create
   * with it, so that deployments sharing a Docker engine or a cluster
   * namespace never touch each other's containers.
   */
  deploymentId(): Promise<string> {
    // It never changes: read once (again after a failed read).
    this.deployment ??= this.pool
      .query<{ id: string }>(`SELECT substr(md5((SELECT system_identifier::text FROM pg_control_system()) || '/' || current_database()), 1, 16) AS id`)
      .then((r) => r.rows[0]!.id)
      .catch((err: unknown) => {
        this.deployment = undefined;
        throw err;
      });
    return this.deployment;
  }

  async runsToStop(taskRunIds: string[]): Promise<string[]> {
    if (!taskRunIds.length) return [];
    const r = await this.pool.query<{ id: string }>(
      `SELECT t.id FROM task_runs t JOIN executions e ON e.id = t.execution_id WHERE t.id = ANY($1) AND (t.state <> 'RUNNING' OR e.state <> 'RUNNING')`,
      [taskRunIds],
    );
    return r.rows.map((x) => x.id);
  }

  /** A runner event (started, progress, heartbeat): the task run's `progress`, shown in its execution's event stream. False when the run is not RUNNING. */
  runnerEvent(taskRunId: string, event: RunnerEvent): Promise<boolean> {
    return recordRunnerEvent(this.pool, taskRunId, event, this.resources.config.masterKeys);
  }

  /** Records a runner heartbeat (on the database's clock); `cancel` is true when the task run should stop. */
  heartbeat(taskRunId: string): Promise<{ cancel: boolean; known: boolean }> {
    return heartbeatTaskRun(this.pool, taskRunId);
  }

  /** Stores a batch of log lines; a retried batch is stored once. Returns the lines newly stored. */
  appendLogs(taskRunId: string, lines: IncomingLogLine[], who?: TaskRunIdentity): Promise<number> {
    return appendLogs(this.pool, taskRunId, lines, who);
  }

  /** Stores one artifact and its row; a repeated upload replaces them. */
  storeArtifact(taskRunId: string, name: string, body: Buffer, contentType?: string): Promise<{ id: string; size: number }> {
    return storeArtifact(this.pool, this.resources.storage, taskRunId, name, body, contentType);
  }

  /**
   * A subflow task: starts the child execution. With `wait`, the child's end
   * completes this task run (its `child_ended` follow-up) and null is
   * returned; without, the task run succeeds at once. A child that cannot
   * start, or nesting past MAX_CHAIN_DEPTH, fails it.
   */
  async startSubflow(run: ClaimedRun, f: { flow: string; inputs: Record<string, unknown>; wait: boolean }, parent: { id: string; chain_depth: number }): Promise<TaskCompletion | null> {
    if (parent.chain_depth + 1 > MAX_CHAIN_DEPTH) {
      return { state: 'FAILED', reason: 'chain_depth_exceeded', error: `subflow nesting would exceed ${MAX_CHAIN_DEPTH} levels (a flow that calls itself?)`, exitCode: null };
    }
    const [ns, flowId] = f.flow.split('/');
    // Once the child exists, no error may end this run: its retry would start
    // the child a second time. So the reads and writes after the start ride
    // out a database outage (retried, like a run's end), and what still fails
    // is left to the child's own end (its `child_ended` follow-up).
    const io = { what: `subflow run ${run.id}`, forMs: IO_RETRY_FOR_MS, signal: this.stopping.signal };
    let child: { id: string };
    // A run that does not wait is done once its child exists; only its end
    // can be lost (a dispatcher killed between the two). Its retry then
    // takes over the child an earlier attempt started instead of starting
    // a second one. (A waiting run is never lost once its child exists:
    // the child row names it, see watchdog.ts.)
    const earlier = f.wait ? undefined : await this.childOfEarlierAttempt(run);
    if (earlier) {
      child = earlier;
    } else {
      try {
        child = await this.trigger({
          namespace: ns!, flowId: flowId!, inputs: f.inputs, triggerType: 'subflow', triggerPayload: { parent_execution_id: parent.id, parent_task_run_id: run.id },
          createdBy: `execution:${parent.id}`, parentExecutionId: parent.id, parentTaskRunId: f.wait ? run.id : undefined, chainDepth: parent.chain_depth + 1,
        });
      } catch (err) {
        // A start whose commit went through while its answer was lost (a connection cut then) left the child behind.
        const left = await withRetry(() => this.childOf(parent.id, run.id), io).catch(() => undefined);
        if (!left) return { state: 'FAILED', reason: 'subflow_error', error: `cannot start ${f.flow}: ${(err as Error).message}`, exitCode: null };
        child = left;
      }
    }
    await withRetry(() => this.pool.query(`UPDATE task_runs SET child_execution_id = $2 WHERE id = $1`, [run.id, child.id]), io).catch((err) =>
      this.resources.log.warn('cannot link a subflow run to its child', { err, task_run_id: run.id, child_execution_id: child.id }),
    );
    if (!f.wait) return { state: 'SUCCESS', reason: '', error: '', exitCode: null, outputs: { execution_id: child.id } };
    // The child may have ended before this run was linked to it: end it here then (idempotent with the follow-up).
    try {
      const st = await withRetry(() => this.stateOf(child.id), io);
      if (st !== undefined && isExecutionState(st) && isExecutionEnded(st)) {
        await this.follow([{ kind: 'child_ended', parentTaskRunId: run.id, childExecutionId: child.id }]);
      }
    } catch (err) {
      this.resources.log.warn('cannot check a subflow child; its end completes the run', { err, task_run_id: run.id, child_execution_id: child.id });
    }
    return null;
  }

  /** The child execution an earlier attempt of this subflow task started, if any (the first one). */
  private async childOfEarlierAttempt(run: ClaimedRun): Promise<{ id: string } | undefined> {
    if (run.attempt <= 1) return undefined;
    const r = await this.pool.query<{ id: string }>(
      `SELECT e.id FROM executions e JOIN task_runs t ON t.id = e.trigger_payload->>'parent_task_run_id'
       WHERE e.parent_execution_id = $1 AND e.trigger_type = 'subflow' AND t.execution_id = $1 AND t.task_key = $2 AND t.id <> $3
       ORDER BY e.created_at, e.id LIMIT 1`,
      [run.execution_id, run.task_key, run.id],
    );
    return r.rows[0];
  }

  /** The child execution a subflow task run started, if any. */
  private async childOf(parentExecutionId: string, taskRunId: string): Promise<{ id: string } | undefined> {
    const r = await this.pool.query<{ id: string }>(
      `SELECT id FROM executions WHERE parent_execution_id = $1 AND trigger_type = 'subflow' AND trigger_payload->>'parent_task_run_id' = $2 LIMIT 1`,
      [parentExecutionId, taskRunId],
    );
    return r.rows[0];
  }

  /**
   * Starts this process's Planner (dispatchers): completions then plan in
   * batched passes, and its poll also plans requests left behind and drains
   * the outbox.
   */
  startPlanner(): void {
    if (this.planner) return;
    this.planner = new Planner({
      pool: this.pool,
      now: this.now,
      storage: this.resources.storage,
      followUps: (f) => this.follow(f),
      outbox: () => drainOutbox(this.pool, this.deps),
      onError: (err) => this.resources.log.warn('planning failed; the poll retries it', { err }),
    });
    this.planner.start();
  }

  /**
   * A dispatcher stopping (SIGTERM): marks the instance stopped and ends its
   * RUNNING task runs FAILED instance_shutdown in one transaction, plans their
   * executions and runs the follow-ups. Returns the ended runs.
   */
  async stopInstance(instanceId: string): Promise<string[]> {
    const r = await stopInstanceTaskRuns(this.pool, instanceId);
    await this.follow(r.followUps);
    return r.ids;
  }

  /** Stops retrying writes and the planner (after the last completion of this process). */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.planner?.stop();
  }

  // ---- the watchdog and sweeps ---------------------------------------------------

  /**
   * One pass of the maintenance holder's rules at `now` (the database's
   * clock unless a test passes one): flow timeouts, task timeouts, and, when
   * `judgeLiveness`, the `lost` rules (process and inline runs of offline
   * instances; docker and kubernetes runs whose task heartbeat is also older
   * than `heartbeatTimeoutMs`); then planning requests left behind and
   * follow-ups left in the outbox.
   */
  async watchdog(o: { now?: Date; judgeLiveness: boolean; heartbeatTimeoutMs: number }): Promise<WatchdogReport> {
    const now = o.now ?? (await this.pool.query<{ now: Date }>(`SELECT clock_timestamp() AS now`)).rows[0]!.now;
    const ex = await timeOutExecutions(this.pool, now);
    const to = await timeOutTaskRuns(this.pool, now);
    const none = { ids: [] as string[], followUps: [] as FollowUp[] };
    const lost = o.judgeLiveness ? await failLostTaskRuns(this.pool, now) : none;
    const lostContainers = o.judgeLiveness ? await failLostContainerRuns(this.pool, now, o.heartbeatTimeoutMs) : none;
    const planned: FollowUp[] = [];
    const planNow = o.now ? () => o.now! : this.now;
    for (let i = 0; i < 10 && (await hasStaleRequests(this.pool, new Date(now.getTime() - STALE_REQUEST_MS))); i++) {
      const r = await planExecutions(this.pool, planNow, undefined, { storage: this.resources.storage });
      planned.push(...r.followUps);
      if (!r.planned) break;
    }
    await this.follow([...ex.followUps, ...to.followUps, ...lost.followUps, ...lostContainers.followUps, ...planned]);
    const leftovers = await drainOutbox(this.pool, this.deps);
    return { executions: ex.ids, timedOut: to.ids, lost: [...lost.ids, ...lostContainers.ids], leftovers };
  }

  /** Runs follow-ups left in the outbox (the backstop); returns how many it found. */
  drainOutbox(): Promise<number> {
    return drainOutbox(this.pool, this.deps);
  }

  /** Fires flow triggers of executions ended since `since` that did not fire (the backstop of the flow_triggers follow-up). */
  sweepFlowTriggers(since: Date): Promise<FlowTriggerResult[]> {
    return sweepFlowTriggers(this.pool, this.deps, since);
  }

  // ---- figures ---------------------------------------------------------------------

  /** The dashboard (getDashboard) at the engine's clock. */
  dashboard(o: { range: DashboardRange; namespace?: string }): ReturnType<typeof dashboard> {
    return dashboard(this.pool, this.dashboardHours, { ...o, now: this.now() });
  }

  /** The last 50 executions of a flow (getFlowStats). */
  flowStats(namespace: string, flowId: string): ReturnType<typeof flowStats> {
    return flowStats(this.pool, namespace, flowId);
  }

  /** A custom metric of a flow over its last 50 executions (getFlowMetrics). */
  flowMetrics(namespace: string, flowId: string, o: { metric: string; groupBy?: string; agg: 'sum' | 'avg' | 'max' }): ReturnType<typeof flowMetrics> {
    return flowMetrics(this.pool, namespace, flowId, o);
  }

  // ---- run tokens ------------------------------------------------------------------

  private key(): Promise<Buffer> {
    // Loaded once; a failed load is tried again at the next call.
    this.runTokenKey ??= loadRunTokenKey(this.pool).catch((err) => {
      this.runTokenKey = undefined;
      throw err;
    });
    return this.runTokenKey;
  }

  /** A run token for `taskRunId`, valid until `expiresAt`. */
  async signRunToken(taskRunId: string, expiresAt: Date): Promise<string> {
    return signRunToken(await this.key(), taskRunId, expiresAt);
  }

  /** Whether `token` is a valid run token of `taskRunId` now. */
  async verifyRunToken(token: string, taskRunId: string): Promise<boolean> {
    return verifyRunToken(await this.key(), token, taskRunId, this.now());
  }
}

export type { RunnerEvent };
export type { ClaimedRun, PreparedTask, TaskCompletion, TriggerRequest, NewExecution, FlowTriggerResult, IncomingLogLine, TaskRunIdentity };
