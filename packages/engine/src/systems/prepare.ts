// What a task run gets at dispatch: its templates resolved against inputs,
// variables, labels, upstream outputs, trigger data and secrets. A template
// that does not resolve is `template_error`, a missing secret
// `secret_not_found` (the caller ends the task run FAILED with that reason).
// Secret values are never stored: they travel in the spec (env, files) and
// are listed in `mask_values` for the runner to mask.
import path from 'node:path/posix';
import type pg from 'pg';
import type { RunnerSpec } from '@svc/api-spec';
import type { MasterKey } from '@svc/config';
import {
  parseTemplate,
  renderForEach,
  renderTemplate,
  SecretNotFoundError as TemplateSecretNotFound,
  TemplateError,
  type FlowDefinition,
  type FlowTask,
  type ParsedTemplate,
} from '@svc/flow-schema';
import { inputArtifactsOf } from '../sql/uploads.js';
import { ProviderScopeError, SecretNotFoundError, SecretStore } from '@svc/secrets';
import { parseDuration } from '@svc/timing';
import { latestRuns, scopeOf, type ExecutionRow } from './advance.js';
import { DEFAULT_TASK_TIMEOUT_MS } from '../constants.js';
import type { EngineResources } from '../resources.js';
import { recordSecrets } from './secret-masking.js';
import { executionVars } from './vars.js';
import { secretInputsOf } from '../planning/trigger-date.js';
import type { Bundles } from './bundles.js';
import type { ClaimedRun, TaskCompletion } from '../types.js';
import { itemRuns, prepareRead, recordRunSecrets, storedTraceparent } from '../sql/prepare.js';
import { activeTraceparent, continueTrace, tracingOn } from '@svc/logging';
import { outputFilesOf } from '../sql/runner-io.js';
import { fanOut } from '../sql/fan-out.js';
import { hasForEach } from '../planning/fan-out.js';
import { newId } from '@svc/db';

// The runner spec's shape is the wire contract's, declared once in @svc/api-spec.
export type { RunnerSpec };

/** A task run that cannot be prepared: reason `template_error`, `secret_not_found` or `secret_provider_not_allowed`. */
export class DispatchError extends Error {
  override readonly name = 'DispatchError';
  constructor(
    readonly reason: 'template_error' | 'secret_not_found' | 'secret_provider_not_allowed',
    message: string,
  ) {
    super(message);
  }
}

export interface SpecDeps {
  pool: pg.Pool;
  storage: { getBuffer(k: string): Promise<Buffer> };
  masterKeys: readonly MasterKey[];
  maxArtifactBytes: number;
  maxBundleBytes: number;
}

export interface PreparedTask {
  spec: RunnerSpec;
  task: FlowTask;
  execution: ExecutionRow & { snapshot_id: string };
  /** Rendered fields of inline tasks (http: method, url, headers, body; subflow: inputs). */
  inline: Record<string, unknown>;
  secretKeysUsed: string[];
}

const RUNTIME_BY_EXTENSION: Record<string, string> = { '.py': 'python', '.sh': 'bash', '.ts': 'bun', '.js': 'node' };

/**
 * A prepared run, or why it could not be (the run was ended FAILED then), or
 * `fannedOut`: the run was a fan-out's parent, whose items are created (or
 * which ended at once: an empty list, a list that is not one); nothing runs it.
 */
export type PrepareResult = { ok: true; prepared: PreparedTask } | { ok: false; error: string; fannedOut?: true };

/** Prepares claimed task runs for their runners. */
export class Preparer {
  constructor(
    private readonly deps: SpecDeps,
    private readonly peers: {
      bundles: Bundles;
      log: EngineResources['log'];
      /** Ends a run that cannot be prepared (the engine's completion path). */
      complete: (taskRunId: string, done: TaskCompletion) => Promise<unknown>;
      /** Plans an execution now (after its fan-out's items were created), running the follow-ups. */
      planNow: (executionId: string) => Promise<void>;
    },
  ) {}

  /**
   * Builds everything a task run needs to run, resolving its templates now.
   * With tracing on (docs/operating/tracing.md), in a span `dispatch task`
   * that continues the trace stored on its execution, whose traceparent the
   * task gets as TRACEPARENT; with tracing off, no read and no span.
   */
  async prepareTask(run: string | ClaimedRun, bundleHash: () => Promise<string>, onSnapshot?: (snapshotId: string) => void): Promise<PreparedTask> {
    if (!tracingOn()) return this.prepareTaskNow(run, bundleHash, onSnapshot);
    const taskRunId = typeof run === 'string' ? run : run.id;
    const stored = await storedTraceparent(this.deps.pool, { taskRunId });
    const attributes = {
      'svc.task_run_id': taskRunId,
      'svc.execution_id': typeof run === 'string' ? undefined : run.execution_id,
      'svc.task_id': typeof run === 'string' ? undefined : run.task_key,
      'svc.executor': typeof run === 'string' ? undefined : run.executor_type,
    };
    return continueTrace(stored, 'dispatch task', attributes, () => this.prepareTaskNow(run, bundleHash, onSnapshot));
  }

  private async prepareTaskNow(run: string | ClaimedRun, bundleHash: () => Promise<string>, onSnapshot?: (snapshotId: string) => void): Promise<PreparedTask> {
    const { deps } = this;
    // The claim returns the execution's row; otherwise one read for the task run and its execution.
    let tr: { id: string; execution_id: string; task_key: string; attempt: number; item_index?: number; item?: unknown };
    let ex: ExecutionRow & { snapshot_id: string };
    if (typeof run !== 'string' && run.execution) {
      tr = run;
      ex = run.execution;
    } else {
      const taskRunId = typeof run === 'string' ? run : run.id;
      const row = await prepareRead(deps.pool, { taskRunId });
      if (!row) throw new Error(`no task run ${taskRunId}`);
      tr = {
        id: row.tr_id,
        execution_id: row.id,
        task_key: row.task_key,
        attempt: row.attempt,
        ...(row.item_index !== null ? { item_index: row.item_index, item: row.item } : {}),
      };
      ex = row;
    }
    onSnapshot?.(ex.snapshot_id);
    const def: FlowDefinition = ex.definition;
    const task = def.tasks.find((t) => t.id === tr.task_key)!;

    // Templates of this task, parsed; their secrets fetched once.
    const parsed = new Map<string, ParsedTemplate>();
    const parse = (src: string) => {
      let p = parsed.get(src);
      if (!p) parsed.set(src, (p = parseTemplate(src)));
      return p;
    };
    const sources: string[] = [];
    const collect = (v: unknown) => {
      if (typeof v === 'string') sources.push(v);
      else if (Array.isArray(v)) v.forEach(collect);
      else if (v && typeof v === 'object') Object.values(v).forEach(collect);
    };
    const t = task as FlowTask & Record<string, unknown>;
    collect(def.env);
    for (const field of ['env', 'files', 'args', 'command', 'url', 'headers', 'body']) collect(t[field]);
    // A subflow's inputs are stored as its child's inputs: they read a secret-reading input masked (below).
    const childSources = sources.length;
    collect(t.inputs);
    const keys = new Set<string>();
    let readsTasks = false;
    let readsVars = false;
    // Trigger inputs that read secret(): stored masked, rendered here from their recipes for the templates that read them.
    const recipes = secretInputsOf(ex.trigger_payload);
    const deferred = new Set<string>();
    sources.forEach((src, i) => {
      const p = parse(src);
      p.secretKeys.forEach((k) => keys.add(k));
      if (p.taskRefs.length || p.roots.includes('tasks')) readsTasks = true;
      if (p.roots.includes('vars')) readsVars = true;
      if (i >= childSources) return;
      for (const ref of p.refs) {
        if (ref.root !== 'inputs') continue;
        const id = ref.path[0];
        if (id === undefined) Object.keys(recipes).forEach((k) => deferred.add(k));
        else if (typeof id === 'string' && Object.hasOwn(recipes, id)) deferred.add(id);
      }
    });
    for (const id of deferred) parse(recipes[id]).secretKeys.forEach((k) => keys.add(k));
    // Only what the templates read is loaded: upstream task runs, variables.
    let runs: Awaited<ReturnType<typeof latestRuns>> = [];
    if (readsTasks) {
      const client = await deps.pool.connect();
      try {
        runs = await latestRuns(client, ex.id);
      } finally {
        client.release();
      }
    }
    // Variables: flow variables, the namespace's, its parents', global; namespace.yaml variables below all of them.
    let vars: Record<string, string> = {};
    if (readsVars) vars = await executionVars(deps.pool, deps.storage, ex);

    // An item of a fan-out reads its own value and index.
    const base = scopeOf(ex, runs);
    // A script or command task reads a file input as the local path the runner fetched it at.
    const inputFiles = task.type === 'script' || task.type === 'command' ? await this.inputFilesRead(sources.map(parse), def, ex.id, base) : [];
    const scope = { ...base, vars, ...(tr.item_index !== undefined ? { item: tr.item ?? null, item_index: tr.item_index } : {}) };
    const fetchFiles = [...inputFiles, ...(await this.filesRead(sources.map(parse), def, ex.id, tr, runs, scope.tasks))];
    const maskedScope = scope;
    const secrets = new Map<string, string>();
    if (keys.size) {
      const store = SecretStore.withProviders(deps.pool, deps.masterKeys);
      for (const k of keys) {
        try {
          secrets.set(k, (await store.resolve(ex.namespace, k)).value);
        } catch (err) {
          if (err instanceof SecretNotFoundError)
            throw new DispatchError('secret_not_found', `secret ${JSON.stringify(k)} is not set in namespace ${ex.namespace}, its parents or the global scope`);
          // The provider's scope does not cover this namespace: its name and the namespace, never the path's value.
          if (err instanceof ProviderScopeError) throw new DispatchError('secret_provider_not_allowed', `secret ${JSON.stringify(k)}: ${err.message}`);
          throw err;
        }
      }
    }
    const used = new Set<string>();
    let realScope = scope;
    if (deferred.size) {
      const inputs = { ...scope.inputs };
      for (const id of deferred) {
        try {
          const r = renderTemplate(parse(recipes[id]), {}, (k) => secrets.get(k));
          r.secretKeysUsed.forEach((k) => used.add(k));
          inputs[id] = r.text;
        } catch (err) {
          if (err instanceof TemplateSecretNotFound) throw new DispatchError('secret_not_found', `inputs.${id}: secret ${JSON.stringify(err.key)} not found`);
          throw err;
        }
      }
      realScope = { ...scope, inputs };
    }
    const render = (src: string, where: string, s: typeof scope = realScope): string => {
      try {
        const r = renderTemplate(parse(src), s, (k) => secrets.get(k));
        r.secretKeysUsed.forEach((k) => used.add(k));
        return r.text;
      } catch (err) {
        if (err instanceof TemplateError) throw new DispatchError('template_error', `${where}: ${err.message}`);
        if (err instanceof TemplateSecretNotFound) throw new DispatchError('secret_not_found', `${where}: secret ${JSON.stringify(err.key)} not found`);
        throw err;
      }
    };
    const renderMap = (m: Record<string, string> | undefined, where: string, s: typeof scope = realScope) =>
      Object.fromEntries(Object.entries(m ?? {}).map(([k, v]) => [k, render(v, `${where}.${k}`, s)]));

    const env: Record<string, string> = {
      ...renderMap(def.env, 'env'),
      ...renderMap(task.env, `tasks.${task.id}.env`),
      SVC_EXECUTION_ID: ex.id,
      SVC_TASK_RUN_ID: tr.id,
      SVC_TASK_ID: task.id,
      SVC_ATTEMPT: String(tr.attempt),
      ...(tr.item_index !== undefined ? { SVC_ITEM_INDEX: String(tr.item_index) } : {}),
      SVC_NAMESPACE: ex.namespace,
      SVC_FLOW_ID: ex.flow_id ?? '',
    };
    // Tracing on and the execution's trace stored: the task continues it (W3C TRACEPARENT, as OpenTelemetry SDKs read it).
    const traceparent = activeTraceparent();
    if (traceparent) env.TRACEPARENT = traceparent;
    let command: string[] = [];
    let runtime: string | undefined;
    let files: Record<string, string> | undefined;
    let workdir = '';
    const inline: Record<string, unknown> = {};
    switch (task.type) {
      case 'script':
        runtime = task.runtime ?? RUNTIME_BY_EXTENSION[path.extname(task.file)];
        command = [task.file, ...(task.args ?? []).map((a, i) => render(a, `tasks.${task.id}.args[${i}]`))];
        files = renderMap(task.files, `tasks.${task.id}.files`);
        break;
      case 'command':
        command = task.command.map((a, i) => render(a, `tasks.${task.id}.command[${i}]`));
        files = renderMap(task.files, `tasks.${task.id}.files`);
        workdir = task.workdir ?? '';
        break;
      case 'http':
        inline.method = task.method ?? 'GET';
        inline.url = render(task.url, `tasks.${task.id}.url`);
        inline.headers = renderMap(task.headers, `tasks.${task.id}.headers`);
        if (task.body !== undefined) inline.body = render(task.body, `tasks.${task.id}.body`);
        inline.expect_status = task.expect_status ?? null;
        break;
      case 'subflow':
        inline.flow = task.flow;
        inline.inputs = renderMap(task.inputs, `tasks.${task.id}.inputs`, maskedScope);
        inline.wait = task.wait ?? true;
        break;
    }
    const timeoutMs = task.timeout ? parseDuration(task.timeout) : DEFAULT_TASK_TIMEOUT_MS;
    const secretKeysUsed = [...used];
    const spec: RunnerSpec = {
      task_run_id: tr.id,
      execution_id: ex.id,
      flow_id: ex.flow_id ?? '',
      namespace: ex.namespace,
      task_id: task.id,
      bundle_hash: task.type === 'script' || task.type === 'command' ? await bundleHash() : '',
      workdir,
      attempt: tr.attempt,
      command,
      env,
      ...(files && Object.keys(files).length ? { files } : {}),
      ...(runtime ? { runtime } : {}),
      ...((task.type === 'script' || task.type === 'command') && task.output_files?.length ? { output_files: task.output_files } : {}),
      ...(fetchFiles.length ? { fetch_files: fetchFiles } : {}),
      limits: { max_artifact_bytes: deps.maxArtifactBytes, max_bundle_bytes: deps.maxBundleBytes },
      mask_values: secretKeysUsed.map((k) => secrets.get(k)!).filter((v) => v.length > 0),
      timeout_seconds: Math.max(1, Math.ceil(timeoutMs / 1000)),
    };
    if (secretKeysUsed.length) {
      // The run's secrets are recorded (values sealed) so that its completion,
      // whoever reports it, is masked before it is stored (secret-masking.ts).
      const rec = recordSecrets(tr.id, ex.namespace, secretKeysUsed, spec.mask_values, deps.masterKeys);
      await recordRunSecrets(deps.pool, { executionId: ex.id, keys: secretKeysUsed, record: rec, taskRunId: tr.id });
    }
    return { spec, task, execution: ex, inline, secretKeysUsed };
  }

  /**
   * The file inputs of the execution (docs/using/files.md): each file input's
   * value in `scope.inputs` becomes the path the runner writes it at, relative
   * to the working directory (`.svc/files/inputs/<input id>/<file name>`), and
   * the ones the templates read (`inputs.<id>`, or `inputs` whole) are
   * returned for the runner to fetch. Only the execution's own input artifacts
   * are read: an upload id of another namespace or execution is never looked up here.
   */
  private async inputFilesRead(
    templates: ParsedTemplate[],
    def: FlowDefinition,
    executionId: string,
    scope: { inputs: Record<string, unknown> },
  ): Promise<NonNullable<RunnerSpec['fetch_files']>> {
    const fileIds = new Set((def.inputs ?? []).filter((d) => d.type === 'file').map((d) => d.id));
    if (!fileIds.size) return [];
    const named = new Set<string>();
    for (const p of templates) {
      for (const ref of p.refs) {
        if (ref.root !== 'inputs') continue;
        const id = ref.path[0];
        if (id === undefined) fileIds.forEach((x) => named.add(x));
        else if (typeof id === 'string' && fileIds.has(id)) named.add(id);
      }
    }
    const rows = await inputArtifactsOf(this.deps.pool, { executionId });
    const inputs = { ...scope.inputs };
    const out: NonNullable<RunnerSpec['fetch_files']> = [];
    for (const row of rows) {
      const id = row.name.slice(0, row.name.indexOf('/'));
      if (!fileIds.has(id)) continue;
      const local = `.svc/files/inputs/${row.name}`;
      inputs[id] = local;
      if (named.has(id)) out.push({ path: local, artifact_id: row.id, size: Number(row.size), sha256: row.sha256 });
    }
    scope.inputs = inputs;
    return out;
  }

  /**
   * The output files the templates read (`tasks.<id>.files['p']`,
   * docs/using/files.md): each read task's files go into `tasks` (name to the
   * path the runner writes it at, relative to the working directory), and the
   * ones named are returned for the runner to fetch. The run read is the
   * task's latest; in an item of a for_each, a for_each task's item of the same
   * index (files are per item).
   */
  private async filesRead(
    templates: ParsedTemplate[],
    def: FlowDefinition,
    executionId: string,
    tr: { item_index?: number },
    runs: { id: string; task_key: string; state: string }[],
    tasks: Record<string, { outputs?: unknown; files?: Record<string, string> }>,
  ): Promise<NonNullable<RunnerSpec['fetch_files']>> {
    const named = new Map<string, Set<string>>();
    for (const p of templates) {
      for (const ref of p.refs) {
        if (ref.root !== 'tasks' || ref.path[1] !== 'files' || typeof ref.path[0] !== 'string') continue;
        let names = named.get(ref.path[0]);
        if (!names) named.set(ref.path[0], (names = new Set()));
        if (typeof ref.path[2] === 'string') names.add(ref.path[2]);
      }
    }
    if (!named.size) return [];
    const runOf = new Map<string, string>();
    const perItem = tr.item_index !== undefined ? [...named.keys()].filter((k) => hasForEach(def.tasks.find((t) => t.id === k))) : [];
    for (const r of runs) if (named.has(r.task_key) && r.state === 'SUCCESS' && !perItem.includes(r.task_key)) runOf.set(r.task_key, r.id);
    if (perItem.length) {
      for (const r of await itemRuns(this.deps.pool, { executionId, itemIndex: tr.item_index!, taskKeys: perItem })) runOf.set(r.task_key, r.id);
    }
    const rows = await outputFilesOf(this.deps.pool, { taskRunIds: [...runOf.values()] });
    const keyOf = new Map([...runOf].map(([k, id]) => [id, k]));
    const out: NonNullable<RunnerSpec['fetch_files']> = [];
    for (const row of rows) {
      const key = keyOf.get(row.task_run_id)!;
      const local = `.svc/files/${key}/${row.name}`;
      const entry = tasks[key];
      if (!entry) continue;
      (entry.files ??= {})[row.name] = local;
      if (named.get(key)!.has(row.name)) out.push({ path: local, artifact_id: row.id, size: Number(row.size), sha256: row.sha256 });
    }
    return out.sort((a, b) => a.path.localeCompare(b.path));
  }

  /**
   * Renders the list of fan-out parent `run` and creates its items, then has
   * its execution planned (which queues them). An empty list ends the task
   * SUCCESS with outputs `[]`; a value that is not a list, or one past the
   * limit, or a template that does not resolve ends it FAILED
   * `template_error` with what it got.
   */
  private async fanOut(run: ClaimedRun & { execution: ExecutionRow & { snapshot_id: string } }, task: FlowTask): Promise<PrepareResult> {
    const { deps } = this;
    const { complete, planNow, log } = this.peers;
    const ex = run.execution;
    let rendered: ReturnType<typeof renderForEach>;
    try {
      const source = task.for_each;
      const reads = typeof source === 'string' ? parseTemplate(source) : undefined;
      let runs: Awaited<ReturnType<typeof latestRuns>> = [];
      if (reads && (reads.taskRefs.length || reads.roots.includes('tasks'))) {
        const client = await deps.pool.connect();
        try {
          runs = await latestRuns(client, ex.id);
        } finally {
          client.release();
        }
      }
      const vars = reads?.roots.includes('vars') ? await executionVars(deps.pool, deps.storage, ex) : {};
      rendered = renderForEach(task, { ...scopeOf(ex, runs), vars });
    } catch (err) {
      log.warn('rendering a for_each failed; the task ends executor_error', { err, task_run_id: run.id });
      const error = `rendering for_each failed: ${err instanceof Error ? err.message : String(err)}`;
      await complete(run.id, { state: 'FAILED', reason: 'executor_error', error, exitCode: null });
      return { ok: false, error };
    }
    if (!rendered.ok) {
      await complete(run.id, { state: 'FAILED', reason: 'template_error', error: rendered.error, exitCode: null });
      return { ok: false, error: rendered.error };
    }
    if (!rendered.items.length) {
      // The task's outputs are the list of its items' outputs: none.
      await complete(run.id, { state: 'SUCCESS', reason: '', error: '', exitCode: null, outputs: [] as unknown as Record<string, unknown> });
      return { ok: false, error: '', fannedOut: true };
    }
    const executionId = await fanOut(deps.pool, { taskRunId: run.id, items: rendered.items.map((item) => ({ id: newId(), item })) });
    if (executionId) await planNow(executionId);
    return { ok: false, error: '', fannedOut: true };
  }

  /**
   * prepareTask for a claimed run (or a task run id), its bundle from
   * `bundles`. A run that cannot be prepared is ended FAILED through
   * `complete` (template_error, secret_not_found; executor_error for a database
   * or object store error, whose retry policy then decides).
   */
  async prepareOrEnd(run: ClaimedRun | string): Promise<PrepareResult> {
    const id = typeof run === 'string' ? run : run.id;
    const { bundles, log, complete } = this.peers;
    // A fan-out's parent (a claimed run of a for_each task that is no item) runs nowhere: its list becomes its items.
    if (typeof run !== 'string' && run.execution && run.item_index === undefined) {
      const task = run.execution.definition.tasks.find((t) => t.id === run.task_key);
      if (task && hasForEach(task)) return this.fanOut(run as ClaimedRun & { execution: ExecutionRow & { snapshot_id: string } }, task);
    }
    try {
      let snapshotId = '';
      return {
        ok: true,
        prepared: await this.prepareTask(
          run,
          async () => (await bundles.of(snapshotId)).hash,
          (snap) => (snapshotId = snap),
        ),
      };
    } catch (err) {
      if (!(err instanceof DispatchError)) log.warn('preparing a task run failed; it ends executor_error', { err, task_run_id: id });
      const failure =
        err instanceof DispatchError
          ? { reason: err.reason, error: err.message }
          : { reason: 'executor_error', error: `preparing the task failed: ${err instanceof Error ? err.message : String(err)}` };
      await complete(id, { state: 'FAILED', ...failure, exitCode: null });
      return { ok: false, error: failure.error };
    }
  }
}
