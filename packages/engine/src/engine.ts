// The engine's one entry point. `buildSystems` wires the systems (src/systems/,
// one concern each) once, in dependency order, each handed the peers it calls
// in its constructor; the systems that call each other around a loop (a
// follow-up completes a run, whose plan causes follow-ups...) get the
// follow-up runner through peers.ts's interface, bound here. The Engine is a
// thin façade over them, grouped by what callers do: `executions` (trigger,
// start, cancel, rerun, reads), `dispatch` (claims, preparing runs, what
// dispatchers ask), `runner` (what a running task reports, its completion),
// `dashboards`, `maintenance` (the watchdog, the backstops, retention). Each
// method finishes its own work: a change commits with its follow-ups recorded
// (systems/outbox.ts), then runs them, leaving to the backstop
// (maintenance.drainOutbox: every dispatcher's planner poll, the maintenance
// watchdog) what fails. README.md draws the flow of one execution.
import type pg from 'pg';
import type { ExecutionState } from '@svc/state-machine';
import { inTx, type Client } from './db.js';
import { TaskRunNotStartableError } from './errors.js';
import type { FollowUpRunner } from './peers.js';
import type { ApiExecution, EngineResources, EngineTx, Started, WatchdogReport } from './resources.js';
import type {
  ClaimedRun,
  ClaimOptions,
  ClaimResult,
  FollowUp,
  IncomingLogLine,
  NewExecution,
  RunnerEvent,
  TaskCompletion,
  TaskRunIdentity,
  TriggerRequest,
  TriggerBatchRequest,
  BatchCreated,
} from './types.js';
import { Bundles } from './systems/bundles.js';
import { Approvals, type ApprovalDecision, type ApprovalGateSeen } from './systems/approvals.js';
import { Cancels } from './systems/cancel.js';
import { Completer, type CompleteOptions } from './systems/completer.js';
import { Completions, type TaskRunEndListener } from './systems/completion.js';
import { Dashboards, type Dashboard, type DashboardQuery, type FlowMetrics, type FlowMetricsQuery, type FlowStats } from './systems/dashboards.js';
import { Dispatch } from './systems/dispatch.js';
import { FlowCache } from './systems/flow-cache.js';
import { FlowTriggers, type FlowTriggerResult } from './systems/flow-triggers.js';
import { FollowUps } from './systems/followups.js';
import { Outbox } from './systems/outbox.js';
import { Planner, Planning } from './systems/planner.js';
import { Preparer, type PreparedTask } from './systems/prepare.js';
import { ExecutionReads, type ExecutionFilter, type ExecutionPage, type ExecutionMatch } from './systems/read-executions.js';
import { Reruns } from './systems/rerun.js';
import { Replays, type ReplayPlan, type ReplayRequest } from './systems/replay.js';
import { ExecutionRetention } from './systems/retention.js';
import { Uploads } from './systems/uploads.js';
import { RunnerIo, type StoreArtifactOptions } from './systems/runner-io.js';
import { RunTokens } from './systems/run-tokens.js';
import { SnapshotFacts } from './systems/snapshot-facts.js';
import { mergeExecutorSpec, Starts } from './systems/start.js';
import { Subflows, type SubflowTask } from './systems/subflows.js';
import { Triggers } from './systems/trigger.js';
import { Watchdog } from './systems/watchdog.js';

/** The systems of one Engine, built once by buildSystems. */
export interface EngineSystems {
  readonly now: () => Date;
  readonly outbox: Outbox;
  readonly planning: Planning;
  readonly dispatch: Dispatch;
  readonly starts: Starts;
  readonly triggers: Triggers;
  readonly reruns: Reruns;
  readonly replays: Replays;
  readonly cancels: Cancels;
  readonly approvals: Approvals;
  readonly completions: Completions;
  readonly flowTriggers: FlowTriggers;
  readonly followUps: FollowUps;
  readonly watchdog: Watchdog;
  readonly reads: ExecutionReads;
  readonly bundles: Bundles;
  readonly runnerIo: RunnerIo;
  readonly runTokens: RunTokens;
  readonly dashboards: Dashboards;
  readonly retention: ExecutionRetention;
  readonly uploads: Uploads;
}

/** The per-process caches of an Engine's starts (a test may pass its own, or none). */
export interface StartCaches {
  /** Snapshot facts (namespace.yaml executor defaults); without, read at every start. Default: a new one. */
  snapshots?: SnapshotFacts;
  /** Flow revisions triggered by name; without, the flow is read at every trigger. Default: a new one. */
  flows?: FlowCache;
}

/**
 * The systems of an Engine built from `r`, in dependency order: statements
 * and pure planning are imported where used; each system is handed the
 * systems it calls (the Engine adds those that call back into its façade).
 */
export function buildSystems(r: EngineResources, caches: StartCaches = { snapshots: new SnapshotFacts(), flows: new FlowCache() }): EngineSystems {
  const { pool, storage, log } = r;
  const now = (): Date => r.clock.now();
  // The follow-up runner, bound before it exists: its peers (flow triggers, the completer, subflows, the watchdog)
  // are built first and call it only after this function returned.
  let followUps: FollowUps | undefined;
  const follow: FollowUpRunner = {
    follow: (f) => followUps!.follow(f),
    run: (f) => followUps!.run(f),
    drain: (o) => followUps!.drain(o),
  };
  const outbox = new Outbox(pool);
  const planning = new Planning(pool, { storage });
  const dispatch = new Dispatch(pool);
  const starts = new Starts(pool, { config: { defaultExecutor: r.config.defaultExecutor, now }, storage, ...caches });
  const triggers = new Triggers(pool, starts, { now, storage, flows: caches.flows });
  const reruns = new Reruns(pool, starts);
  const replays = new Replays(pool, starts);
  const cancels = new Cancels(pool, now);
  const approvals = new Approvals(pool, now);
  const completions = new Completions(pool, planning, { storage });
  const flowTriggers = new FlowTriggers(pool, triggers, follow, now);
  followUps = new FollowUps(pool, { outbox, starts, cancels, completions, flowTriggers }, now, log);
  const watchdog = new Watchdog(pool, { completions, planning, approvals, followUps: follow, now });
  return {
    now,
    outbox,
    planning,
    dispatch,
    starts,
    triggers,
    reruns,
    replays,
    cancels,
    approvals,
    completions,
    flowTriggers,
    followUps,
    watchdog,
    reads: new ExecutionReads(pool),
    bundles: new Bundles(pool, storage, now),
    runnerIo: new RunnerIo(pool, storage, r.config.masterKeys),
    runTokens: new RunTokens(pool, now),
    dashboards: new Dashboards(pool, now),
    retention: new ExecutionRetention(pool),
    uploads: new Uploads(pool, storage),
  };
}

/** Executions: what the API, the scheduler and the engine's own triggers start, change and read. */
export interface EngineExecutions {
  /** Triggers a flow by name (manual, webhook, subflow...). */
  trigger(req: TriggerRequest): Promise<Started>;
  /** Triggers one flow once per item, all in one transaction (all or none), the concurrency rule applied to each in order. */
  triggerBatch(req: TriggerBatchRequest): Promise<BatchCreated[]>;
  /** Starts an execution of a given definition (a file run). */
  start(n: NewExecution): Promise<Started>;
  /** Runs `fn` in one transaction of the caller's: engine work done through `tx` commits with the caller's writes; its follow-ups run after. */
  transaction<T>(fn: (c: Client, tx: EngineTx) => Promise<T>): Promise<T>;
  cancel(id: string, actor: string): Promise<{ state: ExecutionState }>;
  /**
   * A person's decision on the run of `taskKey` waiting at its approval gate, once `check` (the caller's
   * authorization and form check, run under the execution's lock) let it; the execution is planned at once.
   */
  decide(executionId: string, taskKey: string, d: ApprovalDecision, check: (gate: ApprovalGateSeen) => Promise<void> | void): Promise<void>;
  /** Pauses a RUNNING execution: no new task run of it starts until it is resumed. */
  pause(id: string, actor: string): Promise<void>;
  /** Resumes a paused execution: it is planned at once. */
  resume(id: string): Promise<void>;
  rerun(id: string, actor: string): Promise<Started>;
  restart(id: string, actor: string): Promise<Started>;
  /** What a replay of ended execution `id` would reuse and run, with its inputs (nothing is written). */
  planReplay(id: string, req: ReplayRequest, actor: string): Promise<ReplayPlan>;
  /** Replays ended execution `id` (systems/replay.ts): a new execution, with the plan it followed. */
  replay(id: string, req: ReplayRequest, actor: string): Promise<Started & { plan: ReplayPlan }>;
  /** The state of an execution; undefined when there is none. */
  stateOf(id: string): Promise<ExecutionState | undefined>;
  /** Ids of the executions matching `f`, newest first (the listExecutions page). */
  listIds(f: ExecutionPage): Promise<{ id: string; created_key: string }[]>;
  /** The newest `limit` executions matching `f` with their states, how many match in all and how many of those are in `states` (a bulk action's selection). */
  match(f: ExecutionFilter, p: { limit: number; states: readonly string[] }): Promise<ExecutionMatch>;
  /** Executions as the API shows them (getExecution), in the order of `ids`, unknown ids left out; `via`: another pool (the gateway's streams). */
  load(ids: string[], via?: Pick<pg.Pool, 'query'>): Promise<ApiExecution[]>;
}

/** Dispatch: what a dispatcher does with the runs of its pools, from the claim to the launch. */
export interface EngineDispatch {
  /** Claims QUEUED task runs for an instance, on the database's clock; tells when the next one held back by a retry backoff is due. */
  claim(o: ClaimOptions): Promise<ClaimResult>;
  /** A dispatcher serving these pools and executors came online: their QUEUED runs lose `no_instance_for_pool`. */
  servingPools(pools: string[], executorTypes: string[]): Promise<void>;
  /** This instance stopped serving these executor types: their QUEUED runs that nobody serves now say `no_instance_for_pool`. */
  withdrawn(pools: string[], executorTypes: string[]): Promise<void>;
  /** Everything a claimed task run needs to run, its templates resolved now; null when it cannot be (it is ended FAILED). */
  prepare(run: ClaimedRun | string): Promise<PreparedTask | null>;
  /** The executor settings of a prepared task: each field from the task, else the flow, else the snapshot's `namespace.yaml`. */
  executorSettings(prepared: PreparedTask): Promise<ReturnType<typeof mergeExecutorSpec>>;
  /** A subflow task starts its child: null when the run waits for the child's end, else the run's completion (systems/subflows.ts). */
  startSubflow(run: ClaimedRun, f: SubflowTask, parent: { id: string; chain_depth: number; namespace?: string }): Promise<TaskCompletion | null>;
  /** Whether the runner of this task run reported that the task started (its `started` event, or a progress of the task's). */
  taskStarted(taskRunId: string): Promise<boolean>;
  /** Whether the runner of this RUNNING task run has called in since the claim (an event, or a heartbeat); undefined when it is not RUNNING. */
  runnerCalledIn(taskRunId: string): Promise<boolean | undefined>;
  /** Of these task runs, those RUNNING now (a run unknown here, or ended, is not). */
  stillRunning(taskRunIds: string[]): Promise<string[]>;
  /** Of these task runs, those to stop: ended, or of an execution no longer RUNNING. */
  runsToStop(taskRunIds: string[]): Promise<string[]>;
  /** The deployment's identity (cluster and database): container executors label what they create with it, so deployments never meet. */
  deploymentId(): Promise<string>;
  /** Starts this process's Planner (dispatchers): batched planning passes; its poll plans what was left and drains the outbox. */
  startPlanner(): void;
  /** A dispatcher stopping (SIGTERM): the instance stopped and its RUNNING runs ended instance_shutdown at once, then planned. The ended runs. */
  stopInstance(instanceId: string): Promise<string[]>;
}

/** Runner: what a running task reports (over HTTP or in a dispatcher), up to its completion. */
export interface EngineRunner {
  /** `prepare` for a runner over HTTP: a run that cannot be prepared is an error naming why (the runner stops). */
  prepare(taskRunId: string): Promise<PreparedTask>;
  /** The snapshot a task run's execution is pinned to (TaskRunNotFoundError when there is no such task run). */
  snapshotOfTaskRun(taskRunId: string): Promise<string>;
  /** The bundle of a snapshot as a stream (built first when needed, rebuilt when storage cleanup removed it). */
  bundle(snapshotId: string): Promise<{ stream: NodeJS.ReadableStream; size: number }>;
  /**
   * The one completion path (systems/completer.ts): ends a RUNNING task run, has its execution planned and runs the follow-ups;
   * `fromTask` masks it against the run's secrets. Retried until it succeeds or the engine stops. Whether this call ended the run.
   */
  complete(taskRunId: string, done: TaskCompletion, opts?: { fromTask?: boolean }): Promise<boolean>;
  /** complete(), and with `claim`, one QUEUED run claimed for the slot this run frees in the transaction that ends it. */
  completeAndClaim(taskRunId: string, done: TaskCompletion, opts?: CompleteOptions): Promise<{ ended: boolean; claimed: ClaimedRun[] }>;
  /** A runner event (started, progress, heartbeat): the task run's `progress`, shown in its execution's event stream. False when the run is not RUNNING. */
  event(taskRunId: string, event: RunnerEvent): Promise<boolean>;
  /** Records a runner heartbeat (on the database's clock); `cancel` is true when the task run should stop. */
  heartbeat(taskRunId: string): Promise<{ cancel: boolean; known: boolean }>;
  /** Stores a batch of log lines; a retried batch is stored once. Returns the lines newly stored. */
  appendLogs(taskRunId: string, lines: IncomingLogLine[], who?: TaskRunIdentity): Promise<number>;
  /** Stores one artifact or output file, streamed, and its row; a repeated upload replaces them (RunnerIo.storeArtifact). */
  storeArtifact(taskRunId: string, name: string, body: Buffer | AsyncIterable<Buffer | string>, opts?: StoreArtifactOptions): Promise<{ id: string; size: number; sha256: string }>;
  /** A file the task run reads (an output file or file input of its own execution), streamed; null when it may not read that id (RunnerIo.file). */
  file(taskRunId: string, artifactId: string): Promise<{ name: string; size: number; sha256: string; stream: NodeJS.ReadableStream } | null>;
  /** A run token for `taskRunId`, valid until `expiresAt`. */
  signToken(taskRunId: string, expiresAt: Date): Promise<string>;
  /** Whether `token` is a valid run token of `taskRunId` now. */
  verifyToken(token: string, taskRunId: string): Promise<boolean>;
}

/** Dashboards: the figures of executions (getDashboard, getFlowStats, getFlowMetrics). */
export interface EngineDashboards {
  /** The dashboard at the engine's clock: every namespace, one, or only those `within`. */
  dashboard(o: DashboardQuery): Promise<Dashboard>;
  /** The last 50 executions of a flow. */
  flowStats(namespace: string, flowId: string): Promise<FlowStats>;
  /** A custom metric of a flow over its last 50 executions. */
  flowMetrics(namespace: string, flowId: string, o: FlowMetricsQuery): Promise<FlowMetrics>;
}

/** Maintenance: the lease holder's rules, the backstops, retention. */
export interface EngineMaintenance {
  /**
   * One pass of the maintenance holder's rules at `now` (default the database's clock): flow and task timeouts, with `judgeLiveness`
   * the `lost` rules (`heartbeatTimeoutMs` for container runs), approval gates past their deadline (their `on_timeout`), then planning
   * requests and follow-ups left behind.
   */
  watchdog(o: { now?: Date; judgeLiveness: boolean; heartbeatTimeoutMs: number }): Promise<WatchdogReport>;
  /** Runs follow-ups left in the outbox (the backstop); returns how many it found. */
  drainOutbox(): Promise<number>;
  /** Fires flow triggers of executions ended since `since` that did not fire (the backstop of the flow_triggers follow-up). */
  sweepFlowTriggers(since: Date): Promise<FlowTriggerResult[]>;
  /** Deletes ended executions past retention with all their rows (systems/retention.ts): the maintenance lease holder's. */
  readonly retention: ExecutionRetention;
}

export class Engine {
  /** The systems (for the engine's tests and benchmarks, through `@svc/engine/internal`). */
  readonly systems: EngineSystems;
  readonly executions: EngineExecutions;
  readonly dispatch: EngineDispatch;
  readonly runner: EngineRunner;
  readonly dashboards: EngineDashboards;
  readonly maintenance: EngineMaintenance;
  /** File inputs: uploads of a namespace (systems/uploads.ts). */
  readonly uploads: Pick<Uploads, 'create'>;
  private planner?: Planner;
  private readonly stopping = new AbortController();
  private readonly completer: Completer;

  /**
   * Calls `fn` with the task runs each end statement of this engine ends:
   * their executor type, end state and duration (the apps' task run duration
   * metric). Runs ended by another process are told there.
   */
  onTaskRunsEnded(fn: TaskRunEndListener): void {
    this.systems.completions.onEnded(fn);
  }

  constructor(readonly resources: EngineResources) {
    const sys = (this.systems = buildSystems(resources));
    this.uploads = sys.uploads;
    const { followUps } = sys;
    const subflows = new Subflows({ pool: resources.pool, log: resources.log, stopping: this.stopping.signal, trigger: (req) => this.executions.trigger(req), followUps });
    this.completer = new Completer({
      pool: resources.pool,
      now: sys.now,
      masterKeys: resources.config.masterKeys,
      log: resources.log,
      stopping: this.stopping.signal,
      completions: sys.completions,
      planning: sys.planning,
      followUps,
      planner: () => this.planner,
    });
    const preparer = new Preparer(
      {
        pool: resources.pool,
        storage: resources.storage,
        masterKeys: resources.config.masterKeys,
        maxArtifactBytes: resources.config.maxArtifactBytes,
        maxBundleBytes: resources.config.maxBundleBytes,
      },
      {
        bundles: sys.bundles,
        log: resources.log,
        complete: (id, done) => this.runner.complete(id, done),
        planNow: async (id) => {
          const r = await sys.planning.plan(sys.now, [id]);
          await followUps.follow(r.followUps);
        },
      },
    );
    // A change's follow-ups run after its commit; the start statement's own result is the answer when it started the execution alone.
    const started = async (created: { id: string; followUps: FollowUp[]; execution?: ApiExecution }): Promise<Started> => {
      await followUps.follow(created.followUps);
      return created.execution && !created.followUps.length ? { id: created.id, execution: created.execution } : { id: created.id };
    };

    this.executions = {
      trigger: async (req) => started(await sys.triggers.trigger(req)),
      triggerBatch: async (req) => {
        const r = await sys.triggers.triggerBatch(req);
        await followUps.follow(r.followUps);
        return r.created;
      },
      start: async (n) => started(await sys.starts.create(n)),
      transaction: async (fn) => {
        const after: FollowUp[] = [];
        const out = await inTx(resources.pool, (c) =>
          fn(c, {
            trigger: async (req) => {
              const created = await sys.triggers.triggerWith(c, req);
              after.push(...created.followUps);
              return { id: created.id };
            },
          }),
        );
        await followUps.follow(after);
        return out;
      },
      cancel: async (id, actor) => {
        const r = await sys.cancels.cancel(id, actor);
        await followUps.follow(r.followUps);
        return { state: r.state };
      },
      decide: async (executionId, taskKey, d, check) => {
        const r = await sys.approvals.decide(executionId, taskKey, d, check);
        await followUps.follow(r.followUps);
      },
      pause: (id, actor) => sys.approvals.pause(id, actor),
      resume: async (id) => {
        const r = await sys.approvals.resume(id);
        await followUps.follow(r.followUps);
      },
      rerun: async (id, actor) => started(await sys.reruns.rerun(id, actor)),
      restart: async (id, actor) => started(await sys.reruns.restart(id, actor)),
      planReplay: async (id, req, actor) => (await sys.replays.plan(id, req, actor)).plan,
      replay: async (id, req, actor) => {
        const r = await sys.replays.replay(id, req, actor);
        return { ...(await started(r)), plan: r.plan };
      },
      stateOf: (id) => sys.reads.stateOf(id),
      listIds: (f) => sys.reads.listIds(f),
      match: (f, p) => sys.reads.match(f, p),
      load: (ids, via) => sys.reads.load(ids, via),
    };

    this.dispatch = {
      claim: (o) => sys.dispatch.claim(o),
      servingPools: (pools, executorTypes) => sys.dispatch.clearNoInstanceReason(pools, executorTypes),
      withdrawn: (pools, executorTypes) => sys.dispatch.markUnserved(pools, executorTypes),
      prepare: async (run) => {
        const r = await preparer.prepareOrEnd(run);
        return r.ok ? r.prepared : null;
      },
      executorSettings: async (prepared) => mergeExecutorSpec(prepared.task, prepared.execution.definition, await sys.starts.namespaceExecutorOf(prepared.execution.snapshot_id)),
      startSubflow: (run, f, parent) => subflows.start(run, f, parent),
      taskStarted: (id) => sys.dispatch.taskStarted(id),
      runnerCalledIn: (id) => sys.dispatch.runnerCalledIn(id),
      stillRunning: (ids) => sys.dispatch.stillRunning(ids),
      runsToStop: (ids) => sys.dispatch.runsToStop(ids),
      deploymentId: () => sys.dispatch.deploymentId(),
      startPlanner: () => {
        if (this.planner) return;
        this.planner = new Planner({
          planning: sys.planning,
          now: sys.now,
          followUps: (f) => followUps.follow(f),
          outbox: () => followUps.drain(),
          onError: (err) => resources.log.warn('planning failed; the poll retries it', { err }),
        });
        this.planner.start();
      },
      stopInstance: async (instanceId) => {
        const r = await sys.watchdog.stopInstanceTaskRuns(instanceId);
        await followUps.follow(r.followUps);
        return r.ids;
      },
    };

    this.runner = {
      prepare: async (taskRunId) => {
        const r = await preparer.prepareOrEnd(taskRunId);
        if (!r.ok) throw new TaskRunNotStartableError(`the task run cannot start: ${r.error}`);
        return r.prepared;
      },
      snapshotOfTaskRun: (id) => sys.bundles.snapshotOfTaskRun(id),
      bundle: (snapshotId) => sys.bundles.stream(snapshotId),
      complete: async (taskRunId, done, opts = {}) => (await this.completer.completeAndClaim(taskRunId, done, opts)).ended,
      completeAndClaim: (taskRunId, done, opts = {}) => this.completer.completeAndClaim(taskRunId, done, opts),
      event: (taskRunId, event) => sys.runnerIo.event(taskRunId, event),
      heartbeat: (taskRunId) => sys.runnerIo.heartbeat(taskRunId),
      appendLogs: (taskRunId, lines, who) => sys.runnerIo.appendLogs(taskRunId, lines, who),
      storeArtifact: (taskRunId, name, body, opts) => sys.runnerIo.storeArtifact(taskRunId, name, body, opts),
      file: (taskRunId, artifactId) => sys.runnerIo.file(taskRunId, artifactId),
      signToken: (taskRunId, expiresAt) => sys.runTokens.sign(taskRunId, expiresAt),
      verifyToken: (token, taskRunId) => sys.runTokens.verify(token, taskRunId),
    };

    this.dashboards = sys.dashboards;

    this.maintenance = {
      watchdog: (o) => sys.watchdog.pass(o),
      drainOutbox: () => followUps.drain(),
      sweepFlowTriggers: (since) => sys.flowTriggers.sweep(since),
      retention: sys.retention,
    };
  }

  /** Stops retrying writes and the planner (after the last completion of this process). */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.planner?.stop();
  }
}
