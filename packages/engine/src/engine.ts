// The engine's one entry point: a thin façade over its systems (src/systems/;
// README.md draws the flow of one execution). Apps build an Engine from one
// bag of resources (resources.ts) and call its methods, each of which
// finishes its own work: a change commits with its follow-ups recorded
// (systems/outbox.ts), then runs them, leaving to the backstop (drainOutbox:
// every dispatcher's planner poll, the maintenance watchdog) what fails.
import type pg from 'pg';
import type { ExecutionState } from '@svc/state-machine';
import { inTx, type Client } from './db.js';
import { systemResources, type ApiExecution, type EngineResources, type EngineTx, type Started, type SystemResources, type WatchdogReport } from './resources.js';
import { Bundles, snapshotOfTaskRun } from './systems/bundles.js';
import { cancelExecution } from './systems/cancel.js';
import { Completer, type CompleteOptions } from './systems/completer.js';
import type { TaskCompletion } from './systems/completion.js';
import { DashboardHoursCache } from './systems/dashboard-cache.js';
import { dashboard, flowMetrics, flowStats, type Dashboard, type DashboardQuery, type FlowMetrics, type FlowMetricsQuery, type FlowStats } from './systems/dashboards.js';
import { claimRuns, clearNoInstanceReason, markUnserved, type ClaimedRun, type ClaimOptions, type ClaimResult } from './systems/dispatch.js';
import { deploymentIdOf, onceUntilFailed, runsToStop, stillRunning, taskStarted } from './systems/dispatch-reads.js';
import { sweepFlowTriggers, type FlowTriggerResult } from './systems/flow-triggers.js';
import { drainOutbox } from './systems/followups.js';
import type { FollowUp } from './systems/outbox.js';
import { plannerOf, type Planner } from './systems/planner.js';
import { prepareOrEnd, type PreparedTask } from './systems/prepare.js';
import { executionState, listExecutionIds, type ExecutionFilter } from './systems/read-executions.js';
import { rerunExecution, restartExecution } from './systems/rerun.js';
import { ExecutionRetention } from './systems/retention.js';
import { appendLogs, heartbeatTaskRun, recordRunnerEvent, storeArtifact, type IncomingLogLine, type RunnerEvent, type TaskRunIdentity } from './systems/runner-io.js';
import { RunTokens } from './systems/run-tokens.js';
import { loadExecutions } from './systems/serialize.js';
import { createExecution, mergeExecutorSpec, namespaceExecutorOf, type NewExecution } from './systems/start.js';
import { startSubflow, type SubflowTask } from './systems/subflows.js';
import { triggerFlow, triggerFlowWith, type TriggerRequest } from './systems/trigger.js';
import { stopInstanceTaskRuns, watchdogPass } from './systems/watchdog.js';
import { TaskRunNotStartableError } from './errors.js';

export class Engine {
  /** What the systems share. */
  private readonly sys: SystemResources;
  private readonly pool: pg.Pool;
  private planner?: Planner;
  private readonly stopping = new AbortController();
  private readonly bundles: Bundles;
  private readonly completer: Completer;
  private readonly runTokens: RunTokens;
  /** Read once (again after a failed read): it never changes. */
  private readonly deployment = onceUntilFailed(() => deploymentIdOf(this.pool));
  /** The rolled-up hours of the dashboard this process fetched (checked against the database at every request). */
  private readonly dashboardHours = new DashboardHoursCache();
  /** Deletes ended executions past retention with all their rows (systems/retention.ts): the maintenance lease holder's. */
  readonly retention: ExecutionRetention;

  constructor(readonly resources: EngineResources) {
    this.sys = systemResources(resources, this.stopping.signal);
    this.pool = resources.pool;
    this.bundles = new Bundles(this.pool, resources.storage, this.sys.now);
    this.completer = new Completer(this.sys, () => this.planner);
    this.runTokens = new RunTokens(this.pool, this.sys.now);
    this.retention = new ExecutionRetention(this.pool);
  }

  private async started(created: { id: string; followUps: FollowUp[]; execution?: ApiExecution }): Promise<Started> {
    await this.sys.follow(created.followUps);
    // The start statement's own result, when it created and started the execution alone.
    return created.execution && !created.followUps.length ? { id: created.id, execution: created.execution } : { id: created.id };
  }

  // ---- executions (systems/trigger.ts, start.ts, cancel.ts, rerun.ts) ---------

  /** Triggers a flow by name (manual, webhook, subflow...). */
  async trigger(req: TriggerRequest): Promise<Started> {
    return this.started(await triggerFlow(this.pool, this.sys.deps, req));
  }

  /** Starts an execution of a given definition (a file run). */
  async start(n: NewExecution): Promise<Started> {
    return this.started(await createExecution(this.pool, this.sys.deps, n));
  }

  /** Runs `fn` in one transaction of the caller's: engine work done through `tx` commits with the caller's writes; its follow-ups run after. */
  async transaction<T>(fn: (c: Client, tx: EngineTx) => Promise<T>): Promise<T> {
    const after: FollowUp[] = [];
    const out = await inTx(this.pool, (c) =>
      fn(c, {
        trigger: async (req) => {
          const created = await triggerFlowWith(c, this.sys.deps, req);
          after.push(...created.followUps);
          return { id: created.id };
        },
      }),
    );
    await this.sys.follow(after);
    return out;
  }

  async cancel(id: string, actor: string): Promise<{ state: ExecutionState }> {
    const r = await cancelExecution(this.pool, id, actor, this.sys.now);
    await this.sys.follow(r.followUps);
    return { state: r.state };
  }

  async rerun(id: string, actor: string): Promise<Started> {
    return this.started(await rerunExecution(this.pool, this.sys.deps, id, actor));
  }

  async restart(id: string, actor: string): Promise<Started> {
    return this.started(await restartExecution(this.pool, this.sys.deps, id, actor));
  }

  /** The state of an execution; undefined when there is none. */
  stateOf(id: string): Promise<ExecutionState | undefined> {
    return executionState(this.pool, id);
  }

  /** Ids of the executions matching `f`, newest first (the listExecutions page). */
  listExecutionIds(f: ExecutionFilter): Promise<{ id: string; created_at: Date }[]> {
    return listExecutionIds(this.pool, f);
  }

  /** Executions as the API shows them (getExecution), in the order of `ids`, unknown ids left out; `via`: another pool (the gateway's streams). */
  executions(ids: string[], via: Pick<pg.Pool, 'query'> = this.pool): Promise<ApiExecution[]> {
    return loadExecutions(via, ids);
  }

  // ---- dispatch (systems/dispatch.ts, bundles.ts, prepare.ts, subflows.ts) -----

  /** Claims QUEUED task runs for an instance, on the database's clock; tells when the next one held back by a retry backoff is due. */
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

  /** The snapshot a task run's execution is pinned to (TaskRunNotFoundError when there is no such task run). */
  snapshotOfTaskRun(taskRunId: string): Promise<string> {
    return snapshotOfTaskRun(this.pool, taskRunId);
  }

  /** The bundle of a snapshot as a stream (built first when needed, rebuilt when storage cleanup removed it). */
  bundle(snapshotId: string): Promise<{ stream: NodeJS.ReadableStream; size: number }> {
    return this.bundles.stream(snapshotId);
  }

  /** Everything a claimed task run needs to run, its templates resolved now; null when it cannot be (it is ended FAILED: prepareOrEnd). */
  async prepare(run: ClaimedRun | string): Promise<PreparedTask | null> {
    const r = await prepareOrEnd(this.sys, this.bundles, run, (id, done) => this.complete(id, done));
    return r.ok ? r.prepared : null;
  }

  /** `prepare` for a runner over HTTP: a run that cannot be prepared is an error naming why (the runner stops). */
  async prepareForRunner(taskRunId: string): Promise<PreparedTask> {
    const r = await prepareOrEnd(this.sys, this.bundles, taskRunId, (id, done) => this.complete(id, done));
    if (!r.ok) throw new TaskRunNotStartableError(`the task run cannot start: ${r.error}`);
    return r.prepared;
  }

  /** The executor settings of a prepared task: each field from the task, else the flow, else the snapshot's `namespace.yaml`. */
  async executorSettings(prepared: PreparedTask): Promise<ReturnType<typeof mergeExecutorSpec>> {
    const ns = await namespaceExecutorOf(this.pool, this.sys.deps, prepared.execution.snapshot_id);
    return mergeExecutorSpec(prepared.task, prepared.execution.definition, ns);
  }

  /** A subflow task starts its child: null when the run waits for the child's end, else the run's completion (systems/subflows.ts). */
  startSubflow(run: ClaimedRun, f: SubflowTask, parent: { id: string; chain_depth: number; namespace?: string }): Promise<TaskCompletion | null> {
    return startSubflow(this.sys, (req) => this.trigger(req), run, f, parent);
  }

  // ---- completion (systems/completer.ts, completion.ts, planner.ts) -----------

  /**
   * The one completion path (systems/completer.ts): ends a RUNNING task run, has its execution planned and runs the follow-ups;
   * `fromTask` masks it against the run's secrets. Retried until it succeeds or the engine stops. Whether this call ended the run.
   */
  async complete(taskRunId: string, done: TaskCompletion, opts: { fromTask?: boolean } = {}): Promise<boolean> {
    return (await this.completeAndClaim(taskRunId, done, opts)).ended;
  }

  /** complete(), and with `claim`, one QUEUED run claimed for the slot this run frees in the transaction that ends it. */
  completeAndClaim(taskRunId: string, done: TaskCompletion, opts: CompleteOptions = {}): Promise<{ ended: boolean; claimed: ClaimedRun[] }> {
    return this.completer.completeAndClaim(taskRunId, done, opts);
  }

  /** Starts this process's Planner (dispatchers): batched planning passes; its poll plans what was left and drains the outbox. */
  startPlanner(): void {
    if (this.planner) return;
    this.planner = plannerOf(this.sys);
    this.planner.start();
  }

  /** A dispatcher stopping (SIGTERM): the instance stopped and its RUNNING runs ended instance_shutdown at once, then planned. The ended runs. */
  async stopInstance(instanceId: string): Promise<string[]> {
    const r = await stopInstanceTaskRuns(this.pool, instanceId);
    await this.sys.follow(r.followUps);
    return r.ids;
  }

  /** Stops retrying writes and the planner (after the last completion of this process). */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.planner?.stop();
  }

  // ---- runner io (systems/runner-io.ts, log-appender.ts, dispatch-reads.ts) ---

  /** Whether the runner of this task run reported that the task started (its `started` event, or a progress of the task's). */
  taskStarted(taskRunId: string): Promise<boolean> {
    return taskStarted(this.pool, taskRunId);
  }

  /** Of these task runs, those RUNNING now (a run unknown here, or ended, is not). */
  stillRunning(taskRunIds: string[]): Promise<string[]> {
    return stillRunning(this.pool, taskRunIds);
  }

  /** Of these task runs, those to stop: ended, or of an execution no longer RUNNING. */
  runsToStop(taskRunIds: string[]): Promise<string[]> {
    return runsToStop(this.pool, taskRunIds);
  }

  /** The deployment's identity (cluster and database): container executors label what they create with it, so deployments never meet. */
  deploymentId(): Promise<string> {
    return this.deployment();
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

  /** A run token for `taskRunId`, valid until `expiresAt`. */
  signRunToken(taskRunId: string, expiresAt: Date): Promise<string> {
    return this.runTokens.sign(taskRunId, expiresAt);
  }

  /** Whether `token` is a valid run token of `taskRunId` now. */
  verifyRunToken(token: string, taskRunId: string): Promise<boolean> {
    return this.runTokens.verify(token, taskRunId);
  }

  // ---- the watchdog and sweeps (systems/watchdog.ts, followups.ts, flow-triggers.ts)

  /**
   * One pass of the maintenance holder's rules at `now` (default the database's clock): flow and task timeouts, with `judgeLiveness`
   * the `lost` rules (`heartbeatTimeoutMs` for container runs), then planning requests and follow-ups left behind.
   */
  watchdog(o: { now?: Date; judgeLiveness: boolean; heartbeatTimeoutMs: number }): Promise<WatchdogReport> {
    return watchdogPass(this.sys, o);
  }

  /** Runs follow-ups left in the outbox (the backstop); returns how many it found. */
  drainOutbox(): Promise<number> {
    return drainOutbox(this.pool, this.sys.deps);
  }

  /** Fires flow triggers of executions ended since `since` that did not fire (the backstop of the flow_triggers follow-up). */
  sweepFlowTriggers(since: Date): Promise<FlowTriggerResult[]> {
    return sweepFlowTriggers(this.pool, this.sys.deps, since);
  }

  // ---- figures (systems/dashboards.ts) ------------------------------------------

  /** The dashboard (getDashboard) at the engine's clock: every namespace, one, or only those `within` (issue #34). */
  dashboard(o: DashboardQuery): Promise<Dashboard> {
    return dashboard(this.pool, this.dashboardHours, { ...o, now: this.sys.now() });
  }

  /** The last 50 executions of a flow (getFlowStats). */
  flowStats(namespace: string, flowId: string): Promise<FlowStats> {
    return flowStats(this.pool, namespace, flowId);
  }

  /** A custom metric of a flow over its last 50 executions (getFlowMetrics). */
  flowMetrics(namespace: string, flowId: string, o: FlowMetricsQuery): Promise<FlowMetrics> {
    return flowMetrics(this.pool, namespace, flowId, o);
  }
}
