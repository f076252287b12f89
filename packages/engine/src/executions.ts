// Creating and starting executions: a manual trigger (and later schedules,
// webhooks, flow triggers, subflows, reruns) all go through createExecution.
import type pg from 'pg';
import { newId } from '@svc/db';
import type { ExecutorSpec, FlowDefinition, FlowTask, UntypedExecutor } from '@svc/flow-schema';
import { fileObjectKey, parseNamespaceFile } from '@svc/namespaces';
import { parseDuration } from '@svc/timing';
import { plan } from '@svc/state-machine';
import { advance, EXECUTION_COLUMNS, onlineSince, planTasks, servedSql, type ExecutionRow, type FollowUp } from './advance.js';
import { CHANNELS, history, inTx, notify, type Client, type Conn } from './db.js';
import { DEFAULT_TASK_TIMEOUT_MS } from './constants.js';
import { apiExecution, EXECUTION_API_COLUMNS, TASK_RUN_API_COLUMNS } from './serialize.js';

export { FlowDisabledError, FlowNotFoundError } from './errors.js';
import { FlowDisabledError, FlowNotFoundError } from './errors.js';
import type { FlowCache } from './trigger.js';

export interface EngineConfig {
  /** Executor type of tasks that name none anywhere (SVC_DEFAULT_EXECUTOR). */
  defaultExecutor: string;
  now: () => Date;
}

export interface NewExecution {
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
}

/** Task executor type and pool: task, flow, namespace.yaml, instance default; http and subflow run inline. */
export function resolveExecutor(task: FlowTask, def: FlowDefinition, nsFile: NamespaceFile, fallback: string) {
  if (task.type === 'http' || task.type === 'subflow') return { type: 'inline', pool: 'default' };
  const taskEx = (task as { executor?: { type?: string; pool?: string } }).executor;
  const type = taskEx?.type ?? def.executor?.type ?? nsFile?.executor?.type ?? fallback;
  const pool = taskEx?.pool ?? def.executor?.pool ?? nsFile?.executor?.pool ?? 'default';
  return { type, pool };
}

type NamespaceFile = { executor?: ExecutorSpec } | null;

/** Fields of an executor that a container executor reads (pool and type are the claim's). */
const EXECUTOR_FIELDS = ['type', 'pool', 'image', 'inject_runner', 'pull', 'network', 'resources', 'kubernetes'] as const;

/**
 * A task's executor settings, each field from the nearest level that sets it:
 * the task, the flow, the snapshot's `namespace.yaml` (the same order as the
 * type). An object field (resources, kubernetes) is taken whole from one level.
 */
export function mergeExecutorSpec(task: FlowTask, def: FlowDefinition, nsFile: NamespaceFile): UntypedExecutor & { type?: string } {
  const levels = [(task as { executor?: ExecutorSpec }).executor, def.executor, nsFile?.executor].filter((x): x is ExecutorSpec => !!x);
  const out: Record<string, unknown> = {};
  for (const f of EXECUTOR_FIELDS) {
    const level = levels.find((l) => (l as Record<string, unknown>)[f] !== undefined);
    if (level) out[f] = (level as Record<string, unknown>)[f];
  }
  return out as UntypedExecutor & { type?: string };
}

/** The snapshot's namespace.yaml executor defaults (read once per snapshot and process). */
export async function namespaceExecutorOf(pool: pg.Pool, deps: StartDeps, snapshotId: string): Promise<NamespaceFile> {
  return namespaceFileOf(pool, deps, snapshotId);
}

/**
 * Facts of snapshots kept per process. Snapshots never change, so their
 * `namespace.yaml` executor defaults can be read once (bounded, oldest
 * forgotten first).
 */
export class SnapshotFacts {
  private readonly files = new Map<string, Promise<NamespaceFile>>();
  constructor(private readonly max = 1000) {}
  namespaceFile(snapshotId: string, load: () => Promise<NamespaceFile>): Promise<NamespaceFile> {
    let f = this.files.get(snapshotId);
    if (!f) {
      if (this.files.size >= this.max) this.files.delete(this.files.keys().next().value!);
      f = load();
      f.catch(() => this.files.delete(snapshotId));
      this.files.set(snapshotId, f);
    }
    return f;
  }
}

async function namespaceFileOf(c: Client | pg.Pool, deps: StartDeps, snapshotId: string): Promise<NamespaceFile> {
  const storage = deps.storage;
  if (!storage) return null;
  const load = async (): Promise<NamespaceFile> => {
    const r = await c.query<{ file_hash: string }>(`SELECT file_hash FROM snapshot_files WHERE snapshot_id = $1 AND path = 'namespace.yaml'`, [snapshotId]);
    if (!r.rows[0]) return null;
    try {
      return parseNamespaceFile((await storage.getBuffer(fileObjectKey(r.rows[0].file_hash))).toString('utf8')) as NamespaceFile;
    } catch {
      return null;
    }
  };
  return deps.snapshots ? deps.snapshots.namespaceFile(snapshotId, load) : load();
}

/** A task's timeout in milliseconds (default 24h), kept on its task runs for the claim. */
export function taskTimeoutMs(t: FlowTask): number {
  return t.timeout ? parseDuration(t.timeout) : DEFAULT_TASK_TIMEOUT_MS;
}

export interface ReusedRun {
  id: string;
  outputs: Record<string, unknown> | null;
  exit_code: number | null;
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
  const r = await c.query<ReusedRun & { task_key: string; state: string }>(
    `SELECT DISTINCT ON (task_key) id, task_key, state, outputs, exit_code FROM task_runs WHERE execution_id = $1 ORDER BY task_key, attempt DESC`,
    [executionId],
  );
  return new Map(r.rows.filter((x) => x.state === 'SUCCESS').map((x) => [x.task_key, x]));
}

import { EXECUTION_INSERT_COLUMNS, INSERT_UNSTARTED_EXECUTION_SQL, START_NEW_SQL, START_QUEUED_SQL } from './sql/start-execution.js';

/** One task run of a start, as the start statement's JSON parameter holds it. */
interface StartRow {
  id: string;
  task_key: string;
  task_type: string;
  executor_type: string;
  pool: string;
  state: string;
  reason: string;
  reused_from_id: string | null;
  outputs: Record<string, unknown> | null;
  exit_code: number | null;
  spec: { timeout_ms: number } | null;
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
async function startRows(c: Client | pg.Pool, deps: StartDeps, def: FlowDefinition, snapshotId: string, restartOfId: string | null): Promise<{ rows: StartRows; planned: boolean }> {
  // Restart from failed: the original's SUCCESS task runs are copied, whenever this execution starts.
  const reuse = restartOfId ? await reusableRuns(c, restartOfId) : new Map<string, ReusedRun>();
  const nsFile = await namespaceFileOf(c, deps, snapshotId);
  const p = plan({
    tasks: planTasks(def),
    maxParallel: def.max_parallel ?? 0,
    runs: def.tasks.map((t) => ({ taskKey: t.id, attempt: 1, state: reuse.has(t.id) ? 'SUCCESS' : 'PENDING' })),
  });
  const planned = !p.end && !p.retry.length && !p.cancel.length;
  const queued = new Set(planned ? p.queue : []);
  const skipped = new Set(planned ? p.skip.map((s) => s.taskKey) : []);
  const rows: StartRows = def.tasks.map((t) => {
    const { type, pool } = resolveExecutor(t, def, nsFile, deps.config.defaultExecutor);
    const reused = reuse.get(t.id);
    return {
      id: newId(),
      task_key: t.id,
      task_type: t.type,
      executor_type: type,
      pool,
      state: reused ? 'SUCCESS' : queued.has(t.id) ? 'QUEUED' : skipped.has(t.id) ? 'SKIPPED' : 'PENDING',
      reason: reused ? 'reused' : skipped.has(t.id) ? 'condition_not_met' : '',
      reused_from_id: reused?.id ?? null,
      outputs: reused ? (reused.outputs ?? null) : null,
      exit_code: reused ? reused.exit_code : null,
      spec: reused ? null : { timeout_ms: taskTimeoutMs(t) },
    };
  });
  return { rows, planned };
}



/** Moves a QUEUED execution (held by a concurrency limit, locked by the caller) to RUNNING with its task runs, in the caller's transaction. */
export async function startExecution(c: Client, deps: StartDeps, ex: ExecutionRow, now: Date): Promise<FollowUp[]> {
  const def = ex.definition;
  const timeoutAt = def.timeout ? new Date(now.getTime() + parseDuration(def.timeout)) : null;
  const row = (await c.query<{ snapshot_id: string; restart_of_id: string | null }>(`SELECT snapshot_id, restart_of_id FROM executions WHERE id = $1`, [ex.id])).rows[0]!;
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
  execution?: Record<string, unknown>;
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
    id, state, namespace: n.namespace, flow_id: n.flowId, flow_revision_id: n.flowRevisionId, git_sha: n.gitSha ?? null, snapshot_id: n.snapshotId,
    snapshot_version: n.snapshotVersion, definition: JSON.stringify(n.definition), inputs: JSON.stringify(n.inputs), labels: JSON.stringify(n.labels),
    parent_execution_id: n.parentExecutionId ?? null, parent_task_run_id: n.parentTaskRunId ?? null, restart_of_id: n.restartOfId ?? null,
    chain_depth: n.chainDepth ?? 0, created_by: n.createdBy, created_at: now, trigger_type: n.triggerType, trigger_id: n.triggerId ?? null,
    trigger_payload: JSON.stringify(n.triggerPayload ?? {}), concurrency_key: key, updated_at: now, reason: extra.reason,
    started_at: state === 'RUNNING' ? now : null, timeout_at: extra.timeoutAt, ended_at: extra.endedAt, duration_ms: extra.endedAt ? 0 : null,
  };
  return EXECUTION_INSERT_COLUMNS.map((c) => v[c]);
}

/** Inserts a RUNNING execution with its task runs, their history and NOTIFYs: one statement. */
async function insertStarted(c: Client | pg.Pool, deps: StartDeps, n: NewExecution, rows: StartRows, key: string | null): Promise<{ id: string; now: Date; execution: Record<string, unknown> }> {
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
): Promise<{ id: string; now: Date; execution: Record<string, unknown> } | null> {
  const now = deps.config.now();
  const id = newId();
  const timeoutAt = n.definition.timeout ? new Date(now.getTime() + parseDuration(n.definition.timeout)) : null;
  const r = await c.query<{ kind: string; v: string }>({
    name: 'svc-start-new',
    text: START_NEW_SQL,
    values: [id, now, onlineSince(now), JSON.stringify(rows), ...executionValues(id, 'RUNNING', n, now, key, { reason: '', timeoutAt, endedAt: null }).slice(1), checked],
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
function startedExecution(rows: { kind: string; v: string }[]): Record<string, unknown> {
  const ex = JSON.parse(rows.find((r) => r.kind === 'started')!.v);
  const runs = rows.filter((r) => r.kind === 'task_run').map((r) => JSON.parse(r.v) as Record<string, unknown>);
  runs.sort((a, b) => (a.id! < b.id! ? -1 : a.id! > b.id! ? 1 : 0)); // loadExecutions' order: created_at (all equal here), attempt (1), id
  return apiExecution(ex, runs, []);
}

/** insertStarted for a start the planner must still plan (it ends the execution at once), then that first step. */
async function startUnplanned(c: Client, deps: StartDeps, n: NewExecution, rows: StartRows, key: string | null): Promise<{ id: string; followUps: FollowUp[] }> {
  const { id, now } = await insertStarted(c, deps, n, rows, key);
  const ex: ExecutionRow = {
    id, state: 'RUNNING', namespace: n.namespace, flow_id: n.flowId, definition: n.definition, inputs: n.inputs, labels: n.labels,
    trigger_payload: n.triggerPayload ?? {}, parent_execution_id: n.parentExecutionId ?? null, parent_task_run_id: n.parentTaskRunId ?? null,
    started_at: now, created_at: now, concurrency_key: key, chain_depth: n.chainDepth ?? 0,
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
    await c.query(`SELECT pg_advisory_xact_lock(hashtextextended('svc-concurrency:' || $1, 0))`, [key]);
    const running = await c.query<{ n: number; queued: number }>(
      `SELECT count(*) FILTER (WHERE state IN ('RUNNING', 'CANCELLING'))::int AS n, count(*) FILTER (WHERE state = 'QUEUED')::int AS queued
       FROM executions WHERE concurrency_key = $1 AND state IN ('RUNNING', 'CANCELLING', 'QUEUED')`,
      [key],
    );
    // Full, or others already wait (oldest first): this one waits or is skipped.
    if (running.rows[0]!.n >= limit! || running.rows[0]!.queued > 0) {
      const state = (n.definition.concurrency?.behavior ?? 'queue') === 'skip' ? 'SKIPPED' : 'QUEUED';
      const now = deps.config.now();
      const id = newId();
      await c.query(
        INSERT_UNSTARTED_EXECUTION_SQL,
        executionValues(id, state, n, now, key, { reason: 'concurrency_limit', timeoutAt: null, endedAt: state === 'SKIPPED' ? now : null }),
      );
      await history(c, [{ executionId: id, from: null, to: state, reason: 'concurrency_limit' }], now);
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
    await c.query(`SELECT pg_advisory_xact_lock(hashtextextended('svc-concurrency:' || $1, 0))`, [key]);
    const follow: FollowUp[] = [];
    for (;;) {
      const next = await c.query<ExecutionRow & { limit: number | null }>(
        `SELECT ${EXECUTION_COLUMNS}, (definition->'concurrency'->>'limit')::int AS limit FROM executions
         WHERE concurrency_key = $1 AND state = 'QUEUED' ORDER BY created_at, id LIMIT 1 FOR UPDATE`,
        [key],
      );
      const ex = next.rows[0];
      if (!ex) return follow;
      const running = await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM executions WHERE concurrency_key = $1 AND state IN ('RUNNING', 'CANCELLING')`, [key]);
      if (ex.limit !== null && running.rows[0]!.n >= ex.limit) return follow;
      follow.push(...(await startExecution(c, deps, ex, deps.config.now())));
    }
  });
}
