// Creating and starting executions: a manual trigger (and later schedules,
// webhooks, flow triggers, subflows, reruns) all go through createExecution.
import type pg from 'pg';
import { newId } from '@svc/db';
import type { FlowDefinition } from '@svc/flow-schema';
import { parseDuration } from '@svc/timing';
import { advance, onlineSince, type ExecutionRow, type FollowUp } from './advance.js';
import { CHANNELS, history, inTx, notify, type Client, type Conn } from '../db.js';
import { apiExecution, type ExecutionApiRow, type TaskRunApiRow } from './serialize.js';
import type { ApiExecution } from '../resources.js';
import { namespaceFileOf, SnapshotFacts } from './snapshot-facts.js';
import { mergeExecutorSpec, resolveExecutor, taskTimeoutMs, type NamespaceFile } from '../planning/executor.js';
import { startRowsOf, type ReusedRun, type StartRow } from '../planning/start-rows.js';
import { EXECUTION_INSERT_COLUMNS, INSERT_START_AUDIT_SQL, INSERT_UNSTARTED_EXECUTION_SQL, START_NEW_SQL, START_QUEUED_SQL } from '../sql/start-execution.js';
import { CONCURRENCY_COUNTS_SQL, CONCURRENCY_LOCK_SQL, CONCURRENCY_RUNNING_SQL, NEXT_QUEUED_SQL } from '../sql/concurrency.js';
import { EXECUTION_PINS_SQL, REUSABLE_RUNS_SQL } from '../sql/start-reads.js';

export { mergeExecutorSpec, resolveExecutor, SnapshotFacts, taskTimeoutMs, type ReusedRun };

export { FlowDisabledError, FlowNotFoundError } from '../errors.js';
import type { FlowCache } from './trigger.js';

export interface EngineConfig {
  /** Executor type of tasks that name none anywhere (SVC_DEFAULT_EXECUTOR). */
  defaultExecutor: string;
  now: () => Date;
}

export interface NewExecution {
  /** The id to give it (a trigger whose input templates read `execution.id` chooses it first); default a new one. */
  id?: string;
  namespace: string;
  flowId: string | null;
  flowRevisionId: string | null;
  definition: FlowDefinition;
  snapshotId: string;
  snapshotVersion: number | null;
  inputs: Record<string, unknown>;
  labels: Record<string, string>;
  triggerType: string;
  triggerId?: string | null;
  triggerPayload?: Record<string, unknown>;
  createdBy: string;
  parentExecutionId?: string | null;
  parentTaskRunId?: string | null;
  restartOfId?: string | null;
  chainDepth?: number;
  /** Ignore the flow's concurrency limit (restart and rerun keep it; subflows too). Default false. */
  gitSha?: string | null;
  /** The audit event of who started it, written with the execution (its target: the execution). Default none. */
  audit?: StartAudit;
}

/**
 * An audit event of a start (a row of audit_events, as @svc/identity's
 * recordAudit writes them), written by the statement that inserts the
 * execution: the trigger path keeps one round trip (bench/RESULTS.md).
 */
export interface StartAudit {
  id: string;
  action: string;
  actorId: string | null;
  actorType: string;
  ip: string;
  requestId: string;
  details: Record<string, unknown>;
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

/** The snapshot's namespace.yaml executor defaults (read once per snapshot and process). */
export async function namespaceExecutorOf(pool: pg.Pool, deps: StartDeps, snapshotId: string): Promise<NamespaceFile> {
  return namespaceFileOf(pool, deps, snapshotId);
}

export interface StartDeps {
  config: EngineConfig;
  storage?: { getBuffer(k: string): Promise<Buffer> };
  /** Per-process cache of snapshot facts; without it they are read at every start. */
  snapshots?: SnapshotFacts;
  /** Per-process cache of flow revisions triggered by name (trigger.ts); without it the flow is read at every trigger. */
  flows?: FlowCache;
}

/** The SUCCESS latest attempts of an execution, by task key (what a restart copies). */
async function reusableRuns(c: Client | pg.Pool, executionId: string): Promise<Map<string, ReusedRun>> {
  const r = await c.query<ReusedRun & { task_key: string; state: string }>(REUSABLE_RUNS_SQL, [executionId]);
  return new Map(r.rows.filter((x) => x.state === 'SUCCESS').map((x) => [x.task_key, x]));
}

type StartRows = StartRow[];

/**
 * The task runs an execution starts with. `planned`: in the states the
 * planner gives them at start (QUEUED, PENDING, SKIPPED; SUCCESS when a
 * restart reuses them), so nothing is left to plan. Otherwise (the start
 * itself would end the execution: every task reused or skipped) they are
 * PENDING or reused, and the caller plans the first step with `advance` in
 * the same transaction.
 */
async function startRows(
  c: Client | pg.Pool,
  deps: StartDeps,
  def: FlowDefinition,
  snapshotId: string,
  restartOfId: string | null,
): Promise<{ rows: StartRows; planned: boolean }> {
  // Restart from failed: the original's SUCCESS task runs are copied, whenever this execution starts.
  const reuse = restartOfId ? await reusableRuns(c, restartOfId) : new Map<string, ReusedRun>();
  const nsFile = await namespaceFileOf(c, deps, snapshotId);
  return startRowsOf(def, reuse, nsFile, deps.config.defaultExecutor, newId);
}

/** Moves a QUEUED execution (held by a concurrency limit, locked by the caller) to RUNNING with its task runs, in the caller's transaction. */
export async function startExecution(c: Client, deps: StartDeps, ex: ExecutionRow, now: Date): Promise<FollowUp[]> {
  const def = ex.definition;
  const timeoutAt = def.timeout ? new Date(now.getTime() + parseDuration(def.timeout)) : null;
  const row = (await c.query<{ snapshot_id: string; restart_of_id: string | null }>(EXECUTION_PINS_SQL, [ex.id])).rows[0];
  const start = await startRows(c, deps, def, row.snapshot_id, row.restart_of_id);
  await c.query(START_QUEUED_SQL, [ex.id, now, onlineSince(now), JSON.stringify(start.rows), timeoutAt]);
  return start.planned ? [] : advance(c, { ...ex, state: 'RUNNING', started_at: now }, now);
}

/**
 * A created execution. `execution`: its API object as the start statement
 * returned it, when that one statement created and started it (no
 * concurrency limit, nothing left to plan): the trigger's response needs no
 * second read then.
 */
export interface Created {
  id: string;
  followUps: FollowUp[];
  execution?: ApiExecution;
}

/**
 * Creates an execution. With a concurrency limit that is full, it is QUEUED
 * (behavior `queue`, no task runs yet) or SKIPPED (`skip`). The count and the
 * insert happen under a transaction-level advisory lock on the flow, so
 * parallel triggers on any number of gateways never exceed the limit. Without
 * a limit, an execution is created by one statement.
 */
export async function createExecution(pool: pg.Pool, deps: StartDeps, n: NewExecution): Promise<Created> {
  if (concurrencyKey(n)) return inTx(pool, (c) => createExecutionWith(c, deps, n));
  const start = await startRows(pool, deps, n.definition, n.snapshotId, n.restartOfId ?? null);
  if (start.planned) {
    const { id, execution } = await insertStarted(pool, deps, n, start.rows, null);
    return { id, followUps: [], execution };
  }
  return inTx(pool, (c) => startUnplanned(c, deps, n, start.rows, null));
}

const concurrencyKey = (n: NewExecution) => (n.definition.concurrency?.limit && n.flowId ? `${n.namespace}/${n.flowId}` : null);

function executionValues(id: string, state: string, n: NewExecution, now: Date, key: string | null, extra: { reason: string; timeoutAt: Date | null; endedAt: Date | null }) {
  const v: Record<(typeof EXECUTION_INSERT_COLUMNS)[number], unknown> = {
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
  };
  return EXECUTION_INSERT_COLUMNS.map((c) => v[c]);
}

/** Inserts a RUNNING execution with its task runs, their history and NOTIFYs: one statement. */
async function insertStarted(
  c: Client | pg.Pool,
  deps: StartDeps,
  n: NewExecution,
  rows: StartRows,
  key: string | null,
): Promise<{ id: string; now: Date; execution: ApiExecution }> {
  const r = await insertStartedIf(c, deps, n, rows, key, false);
  return r!;
}

/** insertStarted; `checked`: only while the flow is enabled at n's revision and its namespace at n's version (else null, nothing written). */
async function insertStartedIf(
  c: Client | pg.Pool,
  deps: StartDeps,
  n: NewExecution,
  rows: StartRows,
  key: string | null,
  checked: boolean,
): Promise<{ id: string; now: Date; execution: ApiExecution } | null> {
  const now = deps.config.now();
  const id = n.id ?? newId();
  const timeoutAt = n.definition.timeout ? new Date(now.getTime() + parseDuration(n.definition.timeout)) : null;
  const r = await c.query<{ kind: string; v: string }>({
    name: 'svc-start-new',
    text: START_NEW_SQL,
    values: [
      id,
      now,
      onlineSince(now),
      JSON.stringify(rows),
      ...executionValues(id, 'RUNNING', n, now, key, { reason: '', timeoutAt, endedAt: null }).slice(1),
      checked,
      auditRows(n),
    ],
  });
  if (!r.rows.some((x) => x.kind === 'started')) return null;
  return { id, now, execution: startedExecution(r.rows) };
}

/**
 * createExecution from a flow revision the caller read earlier (a cache):
 * one statement, which inserts only while that revision and its namespace
 * version are still current. Null when they are not, or when the start is
 * not that one statement (a concurrency limit, or a start that ends at
 * once): the caller reads the flow again and calls createExecution.
 */
export async function createCheckedExecution(pool: pg.Pool, deps: StartDeps, n: NewExecution): Promise<Created | null> {
  if (concurrencyKey(n)) return null;
  const start = await startRows(pool, deps, n.definition, n.snapshotId, n.restartOfId ?? null);
  if (!start.planned) return null;
  const r = await insertStartedIf(pool, deps, n, start.rows, null, true);
  return r && { id: r.id, followUps: [], execution: r.execution };
}

/** The API object of an execution as its start statement returned it (a new execution has no children yet). */
function startedExecution(rows: { kind: string; v: string }[]): ApiExecution {
  const ex = JSON.parse(rows.find((r) => r.kind === 'started')!.v) as ExecutionApiRow;
  const runs = rows.filter((r) => r.kind === 'task_run').map((r) => JSON.parse(r.v) as TaskRunApiRow);
  runs.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)); // loadExecutions' order: created_at (all equal here), attempt (1), id
  return apiExecution(ex, runs, []);
}

/** insertStarted for a start the planner must still plan (it ends the execution at once), then that first step. */
async function startUnplanned(c: Client, deps: StartDeps, n: NewExecution, rows: StartRows, key: string | null): Promise<{ id: string; followUps: FollowUp[] }> {
  const { id, now } = await insertStarted(c, deps, n, rows, key);
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
 * createExecution inside the caller's transaction: a trigger that must fire
 * exactly once writes its own marker row (a schedule fire, a flow trigger
 * firing) in the same transaction as the execution.
 */
export async function createExecutionWith(c: Client, deps: StartDeps, n: NewExecution): Promise<{ id: string; followUps: FollowUp[] }> {
  const key = concurrencyKey(n);
  const limit = n.definition.concurrency?.limit;
  if (key) {
    await c.query(CONCURRENCY_LOCK_SQL, [key]);
    const running = await c.query<{ n: number; queued: number }>(CONCURRENCY_COUNTS_SQL, [key]);
    // Full, or others already wait (oldest first): this one waits or is skipped.
    if (running.rows[0].n >= limit! || running.rows[0].queued > 0) {
      const state = (n.definition.concurrency?.behavior ?? 'queue') === 'skip' ? 'SKIPPED' : 'QUEUED';
      const now = deps.config.now();
      const id = n.id ?? newId();
      await c.query(
        INSERT_UNSTARTED_EXECUTION_SQL,
        executionValues(id, state, n, now, key, { reason: 'concurrency_limit', timeoutAt: null, endedAt: state === 'SKIPPED' ? now : null }),
      );
      await history(c, [{ executionId: id, from: null, to: state, reason: 'concurrency_limit' }], now);
      if (n.audit) await c.query(INSERT_START_AUDIT_SQL, [id, now, auditRows(n)]);
      await notify(c, CHANNELS.changed, id);
      return { id, followUps: [] };
    }
  }
  const start = await startRows(c, deps, n.definition, n.snapshotId, n.restartOfId ?? null);
  if (start.planned) return { id: (await insertStarted(c, deps, n, start.rows, key)).id, followUps: [] };
  return startUnplanned(c, deps, n, start.rows, key);
}

/** Starts the oldest QUEUED executions of a flow while its concurrency limit has room. */
export async function startQueued(pool: Conn, deps: StartDeps, key: string): Promise<FollowUp[]> {
  return inTx(pool, async (c) => {
    await c.query(CONCURRENCY_LOCK_SQL, [key]);
    const follow: FollowUp[] = [];
    for (;;) {
      const next = await c.query<ExecutionRow & { limit: number | null }>(NEXT_QUEUED_SQL, [key]);
      const ex = next.rows[0];
      if (!ex) return follow;
      const running = await c.query<{ n: number }>(CONCURRENCY_RUNNING_SQL, [key]);
      if (ex.limit !== null && running.rows[0].n >= ex.limit) return follow;
      follow.push(...(await startExecution(c, deps, ex, deps.config.now())));
    }
  });
}
