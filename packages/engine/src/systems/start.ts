// Creating and starting executions: a manual trigger (and schedules,
// webhooks, flow triggers, subflows, reruns) all go through Starts.create.
import type pg from 'pg';
import { newId } from '@svc/db';
import { activeTraceparent } from '@svc/logging';
import type { FlowDefinition } from '@svc/flow-schema';
import { parseDuration } from '@svc/timing';
import { advance, type ExecutionRow } from './advance.js';
import { CHANNELS } from '../channels.js';
import { inTx, type Client, type Conn } from '../db.js';
import { apiExecution } from './serialize.js';
import { namespaceFileOf, type SnapshotFacts } from './snapshot-facts.js';
import type { FlowCache } from './flow-cache.js';
import { mergeExecutorSpec, resolveExecutor, taskTimeoutMs, type NamespaceFile } from '../planning/executor.js';
import { startRowsOf, type ReusedFanOut, type ReusedRun, type StartRow } from '../planning/start-rows.js';
import { replayOf, replayReuse } from '../planning/replay.js';
import { insertHistory, notify } from '../sql/history.js';
import type { ExecutionApiRow, TaskRunApiRow } from '../sql/load-executions.js';
import { insertStartAudit, insertUnstarted, startBatch, startNew, startQueued as startQueuedStatement, type ExecutionInsert, type StartedRow } from '../sql/start-execution.js';
import { concurrencyCounts, concurrencyRunning, lockConcurrencyKey, nextQueued } from '../sql/concurrency.js';
import { executionPins, executionState } from '../sql/read-executions.js';
import { reusableItems, reusableRuns as reusableRunRows } from '../sql/start-reads.js';
import type { ApiExecution, BatchCreated, Created, FollowUp, NewExecution } from '../types.js';
import { insertInputArtifacts } from '../sql/uploads.js';
import { checkBatchFiles, fileInputsOf, resolveFileInputs } from './file-inputs.js';

export { mergeExecutorSpec, resolveExecutor, taskTimeoutMs, type ReusedRun };
export type { Created, NewExecution, StartAudit } from '../types.js';
export { FlowDisabledError, FlowNotFoundError } from '../errors.js';

export interface EngineConfig {
  /** Executor type of tasks that name none anywhere (SVC_DEFAULT_EXECUTOR). */
  defaultExecutor: string;
  now: () => Date;
}

/** What starting an execution needs. */
export interface StartDeps {
  config: EngineConfig;
  storage?: { getBuffer(k: string): Promise<Buffer> };
  /** Per-process cache of snapshot facts; without it they are read at every start. */
  snapshots?: SnapshotFacts;
  /** Per-process cache of flow revisions triggered by name (trigger.ts); without it the flow is read at every trigger. */
  flows?: FlowCache;
}

const auditRows = (n: NewExecution) =>
  JSON.stringify(
    n.audit
      ? [
          {
            id: n.audit.id,
            action: n.audit.action,
            actor_id: n.audit.actorId,
            actor_type: n.audit.actorType,
            ip: n.audit.ip,
            request_id: n.audit.requestId,
            details: n.audit.details,
          },
        ]
      : [],
  );

/** An execution given file inputs: created in a transaction, its input artifacts with it (file-inputs.ts). */
const hasFiles = (n: NewExecution) => fileInputsOf(n.definition, n.inputs).length > 0;

const concurrencyKey = (n: NewExecution) => (n.definition.concurrency?.limit && n.flowId ? `${n.namespace}/${n.flowId}` : null);

function executionInsert(
  id: string,
  state: string,
  n: NewExecution,
  now: Date,
  key: string | null,
  extra: { reason: string; timeoutAt: Date | null; endedAt: Date | null },
): ExecutionInsert {
  return {
    id,
    state,
    namespace: n.namespace,
    flow_id: n.flowId,
    flow_revision_id: n.flowRevisionId,
    git_sha: n.gitSha ?? null,
    snapshot_id: n.snapshotId,
    snapshot_version: n.snapshotVersion,
    definition: JSON.stringify(n.definition),
    inputs: JSON.stringify(n.inputs),
    labels: JSON.stringify(n.labels),
    parent_execution_id: n.parentExecutionId ?? null,
    parent_task_run_id: n.parentTaskRunId ?? null,
    restart_of_id: n.restartOfId ?? null,
    chain_depth: n.chainDepth ?? 0,
    created_by: n.createdBy,
    created_at: now,
    trigger_type: n.triggerType,
    trigger_id: n.triggerId ?? null,
    trigger_payload: JSON.stringify(n.triggerPayload ?? {}),
    concurrency_key: key,
    updated_at: now,
    reason: extra.reason,
    started_at: state === 'RUNNING' ? now : null,
    timeout_at: extra.timeoutAt,
    ended_at: extra.endedAt,
    duration_ms: extra.endedAt ? 0 : null,
    // With tracing on, the span that creates it (a webhook, a trigger): the dispatcher continues that trace (docs/operating/tracing.md).
    traceparent: activeTraceparent() ?? null,
  };
}

/** The API object of an execution as its start statement returned it (a new execution has no children yet). */
function startedExecution(rows: StartedRow[]): ApiExecution {
  const ex = JSON.parse(rows.find((r) => r.kind === 'started')!.v) as ExecutionApiRow;
  const runs = rows.filter((r) => r.kind === 'task_run').map((r) => JSON.parse(r.v) as TaskRunApiRow);
  runs.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)); // loadExecutions' order: created_at (all equal here), attempt (1), id
  return apiExecution(ex, runs, []);
}

/** Creates and starts executions on one pool (or in a caller's transaction). */
export class Starts {
  constructor(
    private readonly pool: pg.Pool,
    private readonly deps: StartDeps,
  ) {}

  /** The snapshot's namespace.yaml executor defaults (read once per snapshot and process). */
  namespaceExecutorOf(snapshotId: string): Promise<NamespaceFile> {
    return namespaceFileOf(this.pool, this.deps, snapshotId);
  }

  /** The SUCCESS latest attempts of execution `executionId`, by task key (what a restart or a replay copies). */
  async successRuns(executionId: string): Promise<Map<string, ReusedRun>> {
    return (await this.reusableRuns(this.pool, executionId)).runs;
  }

  /**
   * What a restart copies from the original: its SUCCESS task runs, and the
   * items of its fan-outs that did not succeed (their SUCCESS items are
   * copied, the others run again).
   */
  private async reusableRuns(c: Client | pg.Pool, executionId: string): Promise<{ runs: Map<string, ReusedRun>; items: Map<string, ReusedFanOut> }> {
    const rows = await reusableRunRows(c, { executionId });
    const runs = new Map(rows.filter((x) => x.state === 'SUCCESS').map((x) => [x.task_key, x]));
    const fanOuts = rows.filter((x) => x.state !== 'SUCCESS' && x.fan_out !== null && x.fan_out > 0);
    const items = new Map<string, ReusedFanOut>();
    if (!fanOuts.length) return { runs, items };
    for (const f of fanOuts) items.set(f.task_key, { items: new Array<ReusedFanOut['items'][number]>(f.fan_out!) });
    for (const r of await reusableItems(c, { executionId, taskKeys: fanOuts.map((f) => f.task_key) })) {
      const list = items.get(r.task_key)!.items;
      if (r.item_index < list.length) list[r.item_index] = { item: r.item, reused: r.state === 'SUCCESS' ? r : undefined };
    }
    // A fan-out whose items are not all there (cannot happen: they are created together) runs again whole.
    for (const [k, f] of items) if (f.items.some((x) => x === undefined)) items.delete(k);
    return { runs, items };
  }

  /**
   * The task runs an execution starts with. `planned`: in the states the
   * planner gives them at start (QUEUED, PENDING, SKIPPED; SUCCESS when a
   * restart reuses them), so nothing is left to plan. Otherwise (the start
   * itself would end the execution: every task reused or skipped) they are
   * PENDING or reused, and the caller plans the first step with `advance` in
   * the same transaction.
   */
  private async startRows(
    c: Client | pg.Pool,
    def: FlowDefinition,
    snapshotId: string,
    restartOfId: string | null,
    payload: Record<string, unknown> | undefined,
  ): Promise<{ rows: StartRow[]; planned: boolean }> {
    // Restart from failed: the original's SUCCESS task runs are copied, whenever this execution starts.
    // A replay from a task: those of the tasks neither it nor downstream of it (planning/replay.ts).
    const replay = restartOfId ? null : replayOf(payload);
    const reuse = restartOfId
      ? await this.reusableRuns(c, restartOfId)
      : replay
        ? { runs: replayReuse(def, replay.from, (await this.reusableRuns(c, replay.of)).runs), items: new Map<string, ReusedFanOut>() }
        : { runs: new Map<string, ReusedRun>(), items: new Map<string, ReusedFanOut>() };
    const nsFile = await namespaceFileOf(c, this.deps, snapshotId);
    return startRowsOf(def, reuse.runs, nsFile, this.deps.config.defaultExecutor, newId, reuse.items);
  }

  /** Moves a QUEUED execution (held by a concurrency limit, locked by the caller) to RUNNING with its task runs, in the caller's transaction. */
  async startExecution(c: Client, ex: ExecutionRow, now: Date): Promise<FollowUp[]> {
    const def = ex.definition;
    const timeoutAt = def.timeout ? new Date(now.getTime() + parseDuration(def.timeout)) : null;
    const row = await executionPins(c, { id: ex.id });
    const start = await this.startRows(c, def, row.snapshot_id, row.restart_of_id, ex.trigger_payload);
    await startQueuedStatement(c, { id: ex.id, now, taskRuns: JSON.stringify(start.rows), timeoutAt });
    return start.planned ? [] : advance(c, { ...ex, state: 'RUNNING', started_at: now }, now);
  }

  /**
   * Creates an execution. With a concurrency limit that is full, it is QUEUED
   * (behavior `queue`, no task runs yet) or SKIPPED (`skip`). The count and the
   * insert happen under a transaction-level advisory lock on the flow, so
   * parallel triggers on any number of gateways never exceed the limit. Without
   * a limit, an execution is created by one statement.
   */
  async create(n: NewExecution): Promise<Created> {
    if (concurrencyKey(n) || hasFiles(n)) return inTx(this.pool, (c) => this.createWith(c, n));
    const start = await this.startRows(this.pool, n.definition, n.snapshotId, n.restartOfId ?? null, n.triggerPayload);
    if (start.planned) {
      const { id, execution } = await this.insertStarted(this.pool, n, start.rows, null);
      return { id, followUps: [], execution };
    }
    return inTx(this.pool, (c) => this.startUnplanned(c, n, start.rows, null));
  }

  /** Inserts a RUNNING execution with its task runs, their history and NOTIFYs: one statement. */
  private async insertStarted(c: Client | pg.Pool, n: NewExecution, rows: StartRow[], key: string | null): Promise<{ id: string; now: Date; execution: ApiExecution }> {
    const r = await this.insertStartedIf(c, n, rows, key, false);
    return r!;
  }

  /** insertStarted; `checked`: only while the flow is enabled at n's revision and its namespace at n's version (else null, nothing written). */
  private async insertStartedIf(
    c: Client | pg.Pool,
    n: NewExecution,
    rows: StartRow[],
    key: string | null,
    checked: boolean,
  ): Promise<{ id: string; now: Date; execution: ApiExecution } | null> {
    const now = this.deps.config.now();
    const id = n.id ?? newId();
    const timeoutAt = n.definition.timeout ? new Date(now.getTime() + parseDuration(n.definition.timeout)) : null;
    const r = await startNew(c, {
      now,
      taskRuns: JSON.stringify(rows),
      execution: executionInsert(id, 'RUNNING', n, now, key, { reason: '', timeoutAt, endedAt: null }),
      checked,
      audit: auditRows(n),
    });
    if (!r.some((x) => x.kind === 'started')) return null;
    return { id, now, execution: startedExecution(r) };
  }

  /**
   * create() from a flow revision the caller read earlier (a cache): one
   * statement, which inserts only while that revision and its namespace
   * version are still current. Null when they are not, or when the start is
   * not that one statement (a concurrency limit, or a start that ends at
   * once): the caller reads the flow again and calls create().
   */
  async createChecked(n: NewExecution): Promise<Created | null> {
    if (concurrencyKey(n) || hasFiles(n)) return null;
    const start = await this.startRows(this.pool, n.definition, n.snapshotId, n.restartOfId ?? null, n.triggerPayload);
    if (!start.planned) return null;
    const r = await this.insertStartedIf(this.pool, n, start.rows, null, true);
    return r && { id: r.id, followUps: [], execution: r.execution };
  }

  /** insertStarted for a start the planner must still plan (it ends the execution at once), then that first step. */
  private async startUnplanned(c: Client, n: NewExecution, rows: StartRow[], key: string | null): Promise<{ id: string; followUps: FollowUp[] }> {
    const { id, now } = await this.insertStarted(c, n, rows, key);
    const ex: ExecutionRow = {
      id,
      state: 'RUNNING',
      namespace: n.namespace,
      flow_id: n.flowId,
      definition: n.definition,
      inputs: n.inputs,
      labels: n.labels,
      trigger_payload: n.triggerPayload ?? {},
      parent_execution_id: n.parentExecutionId ?? null,
      parent_task_run_id: n.parentTaskRunId ?? null,
      started_at: now,
      created_at: now,
      concurrency_key: key,
      chain_depth: n.chainDepth ?? 0,
    };
    return { id, followUps: await advance(c, ex, now) };
  }

  /**
   * create() inside the caller's transaction: a trigger that must fire
   * exactly once writes its own marker row (a schedule fire, a flow trigger
   * firing) in the same transaction as the execution.
   */
  async createWith(c: Client, n: NewExecution): Promise<{ id: string; followUps: FollowUp[] }> {
    if (!hasFiles(n)) return this.createWithout(c, n);
    // Checked before anything is written; inserted with the execution, in its transaction.
    const files = await resolveFileInputs(c, n.namespace, n.definition, n.inputs);
    const r = await this.createWithout(c, { ...n, id: n.id ?? newId() });
    await insertInputArtifacts(c, { executionId: r.id, rows: files });
    return r;
  }

  /** createWith, the file inputs aside. */
  private async createWithout(c: Client, n: NewExecution): Promise<{ id: string; followUps: FollowUp[] }> {
    const key = concurrencyKey(n);
    const limit = n.definition.concurrency?.limit;
    if (key) {
      await lockConcurrencyKey(c, { key });
      const running = await concurrencyCounts(c, { key });
      // Full, or others already wait (oldest first): this one waits or is skipped.
      if (running.n >= limit! || running.queued > 0) {
        const state = (n.definition.concurrency?.behavior ?? 'queue') === 'skip' ? 'SKIPPED' : 'QUEUED';
        const now = this.deps.config.now();
        const id = n.id ?? newId();
        await insertUnstarted(c, {
          execution: executionInsert(id, state, n, now, key, { reason: 'concurrency_limit', timeoutAt: null, endedAt: state === 'SKIPPED' ? now : null }),
        });
        await insertHistory(c, { rows: [{ executionId: id, from: null, to: state, reason: 'concurrency_limit' }], at: now });
        if (n.audit) await insertStartAudit(c, { executionId: id, at: now, audit: auditRows(n) });
        await notify(c, { channel: CHANNELS.changed, payload: id });
        return { id, followUps: [] };
      }
    }
    const start = await this.startRows(c, n.definition, n.snapshotId, n.restartOfId ?? null, n.triggerPayload);
    if (start.planned) return { id: (await this.insertStarted(c, n, start.rows, key)).id, followUps: [] };
    return this.startUnplanned(c, n, start.rows, key);
  }

  /**
   * Creates executions of one flow revision (`ns`, all of the same flow,
   * snapshot and definition, without a restart or replay) in the caller's
   * transaction, in order: the concurrency rule applies to each in turn, as
   * one createWith after another would (under the flow's lock: RUNNING while
   * the limit has room and none waits, else QUEUED or SKIPPED). One statement
   * inserts them all when their start needs no planning; otherwise (the start
   * would end them at once) each goes through createWith.
   */
  async createBatch(c: Client, ns: readonly NewExecution[]): Promise<{ created: BatchCreated[]; followUps: FollowUp[] }> {
    const first = ns[0];
    if (!first) return { created: [], followUps: [] };
    const key = concurrencyKey(first);
    const limit = first.definition.concurrency?.limit ?? 0;
    const files = ns.some(hasFiles);
    // Every item's files are checked first, nothing created when one is bad.
    if (files) await checkBatchFiles(c, ns);
    const probe = await this.startRows(c, first.definition, first.snapshotId, null, undefined);
    if (!probe.planned || files) {
      const created: BatchCreated[] = [];
      const followUps: FollowUp[] = [];
      for (const n of ns) {
        const r = await this.createWith(c, n);
        created.push({ id: r.id, state: '' });
        followUps.push(...r.followUps);
      }
      // A rare start (every task skipped at once) or one with file inputs: its state as it ended.
      for (const x of created) x.state = (await executionState(c, { id: x.id })) ?? 'RUNNING';
      return { created, followUps };
    }
    let running = 0;
    let queued = 0;
    if (key) {
      await lockConcurrencyKey(c, { key });
      ({ n: running, queued } = await concurrencyCounts(c, { key }));
    }
    const nsFile = await namespaceFileOf(c, this.deps, first.snapshotId);
    const held = (first.definition.concurrency?.behavior ?? 'queue') === 'skip' ? 'SKIPPED' : 'QUEUED';
    const created: BatchCreated[] = [];
    const executions: { id: string; state: string; reason: string; inputs: Record<string, unknown>; labels: Record<string, string> }[] = [];
    const taskRuns: (StartRow & { execution_id: string })[] = [];
    const audit: Record<string, unknown>[] = [];
    for (const [i, n] of ns.entries()) {
      const id = n.id ?? newId();
      // Full, or others already wait (oldest first): this one waits or is skipped.
      const starts = !key || (running < limit && queued === 0);
      const state = starts ? 'RUNNING' : held;
      if (starts) {
        running++;
        // The first item's rows were made by the probe; the others' alike, each with new ids.
        const rows = i === 0 ? probe.rows : startRowsOf(n.definition, new Map(), nsFile, this.deps.config.defaultExecutor, newId).rows;
        for (const r of rows) taskRuns.push({ ...r, execution_id: id });
      } else if (state === 'QUEUED') queued++;
      executions.push({ id, state, reason: starts ? '' : 'concurrency_limit', inputs: n.inputs, labels: n.labels });
      created.push({ id, state });
      if (n.audit) {
        const a = n.audit;
        audit.push({ id: a.id, execution_id: id, action: a.action, actor_id: a.actorId, actor_type: a.actorType, ip: a.ip, request_id: a.requestId, details: a.details });
      }
    }
    const now = this.deps.config.now();
    await startBatch(c, {
      now,
      executions: JSON.stringify(executions),
      taskRuns: JSON.stringify(taskRuns),
      audit: JSON.stringify(audit),
      shared: {
        namespace: first.namespace,
        flow_id: first.flowId!,
        flow_revision_id: first.flowRevisionId,
        git_sha: first.gitSha ?? null,
        snapshot_id: first.snapshotId,
        snapshot_version: first.snapshotVersion ?? null,
        definition: JSON.stringify(first.definition),
        created_by: first.createdBy,
        trigger_type: first.triggerType,
        concurrency_key: key,
        timeout_at: first.definition.timeout ? new Date(now.getTime() + parseDuration(first.definition.timeout)) : null,
        traceparent: activeTraceparent() ?? null,
      },
    });
    return { created, followUps: [] };
  }

  /** Starts the oldest QUEUED executions of a flow while its concurrency limit has room (on the pool, or in the caller's transaction). */
  async startQueued(key: string, db: Conn = this.pool): Promise<FollowUp[]> {
    return inTx(db, async (c) => {
      await lockConcurrencyKey(c, { key });
      const follow: FollowUp[] = [];
      for (;;) {
        const ex = await nextQueued(c, { key });
        if (!ex) return follow;
        const running = await concurrencyRunning(c, { key });
        if (ex.limit !== null && running >= ex.limit) return follow;
        follow.push(...(await this.startExecution(c, ex, this.deps.config.now())));
      }
    });
  }
}
