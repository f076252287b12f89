// Triggering a flow by name: the flow's current revision and the namespace's
// current snapshot, inputs coerced, labels merged (the request's win).
import type pg from 'pg';
import {
  FlowDisabledError,
  FlowNotFoundError,
  createCheckedExecution,
  createExecution,
  createExecutionWith,
  type Created,
  type NewExecution,
  type StartAudit,
  type StartDeps,
} from './start.js';
import type { Client } from '../db.js';
import type { FollowUp } from './advance.js';
import { resolveInputs } from '../planning/inputs.js';
import { executionVars } from './vars.js';
import { deferSecrets, parseTemplate, renderTemplateMap, type FlowDefinition, type TemplateScope } from '@svc/flow-schema';
import { FLOW_HEAD_SQL } from '../sql/trigger-flow.js';
import { newId } from '@svc/db';
import { SECRET_INPUTS_KEY, startDateOf, triggerDateOf } from '../planning/trigger-date.js';

export interface TriggerRequest {
  namespace: string;
  flowId: string;
  inputs?: Record<string, unknown>;
  /**
   * A trigger's input templates (webhook, schedule, flow trigger) and what
   * they read of the trigger: rendered here into `inputs`, with the flow, the
   * execution (its id chosen here; `start_date` the time of rendering, as the
   * execution does not exist yet), `trigger.date` from a schedule's
   * `triggerPayload` (fire_time, timezone) and, when a template names it,
   * `vars` (the flow's variables over its namespace's, as tasks see them). A
   * template that does not resolve throws TemplateError.
   */
  inputTemplates?: { templates: Record<string, string>; trigger?: Record<string, unknown> };
  /** The execution's id (set by withInputs when its templates read the execution). */
  id?: string;
  labels?: Record<string, string>;
  triggerType: string;
  triggerId?: string;
  triggerPayload?: Record<string, unknown>;
  createdBy: string;
  parentExecutionId?: string;
  parentTaskRunId?: string;
  chainDepth?: number;
  /** Who started it, for the audit log (see NewExecution.audit). */
  audit?: StartAudit;
}

/** What a trigger reads of a flow: its current revision and its namespace's head snapshot. */
interface FlowHead {
  enabled: boolean;
  revision_id: string;
  definition: FlowDefinition;
  snapshot_id: string | null;
  version: number;
  /** The git commit of the sync whose namespace version produced the revision (null when a user saved it). */
  git_sha: string | null;
}

/** Flows cached at most (the least recently triggered go first). */
const FLOW_CACHE_SIZE = 500;

/**
 * The flow revisions a process triggered, by namespace and flow id. An entry
 * is a hint, never trusted: a trigger from the cache inserts only while the
 * flow is still enabled at that revision and its namespace at that version
 * (createCheckedExecution), else it reads the flow again. So a save, a
 * disable or a delete on any instance takes effect at the next trigger.
 */
export class FlowCache {
  private readonly heads = new Map<string, FlowHead>();

  get(namespace: string, flowId: string): FlowHead | undefined {
    const k = `${namespace}/${flowId}`;
    const h = this.heads.get(k);
    if (h) {
      this.heads.delete(k);
      this.heads.set(k, h);
    }
    return h;
  }

  set(namespace: string, flowId: string, h: FlowHead): void {
    this.heads.delete(`${namespace}/${flowId}`);
    this.heads.set(`${namespace}/${flowId}`, h);
    if (this.heads.size > FLOW_CACHE_SIZE) this.heads.delete(this.heads.keys().next().value!);
  }

  delete(namespace: string, flowId: string): void {
    this.heads.delete(`${namespace}/${flowId}`);
  }
}

/**
 * Triggers a flow. From the cache (deps.flows), one statement that checks
 * the cached revision is still current; otherwise one read for the flow,
 * then createExecution (one statement when the flow has no concurrency
 * limit).
 */
export async function triggerFlow(pool: pg.Pool, deps: StartDeps, t: TriggerRequest): Promise<Created> {
  const cached = deps.flows?.get(t.namespace, t.flowId);
  if (cached) {
    const created = await createCheckedExecution(pool, deps, newExecution(cached, await withInputs(pool, deps, cached, t)));
    if (created) return created;
    deps.flows!.delete(t.namespace, t.flowId);
  }
  const head = await readFlow(pool, t);
  // A flow with a concurrency limit starts under a lock with a read of its own: nothing to save.
  if (!head.definition.concurrency?.limit) deps.flows?.set(t.namespace, t.flowId, head);
  return createExecution(pool, deps, newExecution(head, await withInputs(pool, deps, head, t)));
}

/** triggerFlow inside the caller's transaction (see createExecutionWith). */
export async function triggerFlowWith(c: Client, deps: StartDeps, t: TriggerRequest): Promise<{ id: string; followUps: FollowUp[] }> {
  const head = await readFlow(c, t);
  return createExecutionWith(c, deps, newExecution(head, await withInputs(c, deps, head, t)));
}

/** `t` with its input templates rendered into `inputs` (see TriggerRequest.inputTemplates). */
async function withInputs(c: Client | pg.Pool, deps: StartDeps, head: FlowHead, t: TriggerRequest): Promise<TriggerRequest> {
  if (!t.inputTemplates) return t;
  const { trigger } = t.inputTemplates;
  const templates = Object.fromEntries(Object.entries(t.inputTemplates.templates).map(([k, src]) => [k, parseTemplate(src)]));
  const id = t.id ?? newId();
  const date = triggerDateOf(t.triggerPayload);
  const scope: TemplateScope = {
    flow: { id: t.flowId, namespace: t.namespace },
    execution: { id, namespace: t.namespace, flow_id: t.flowId, start_date: startDateOf(null, deps.config.now()) },
    ...(trigger || date ? { trigger: { ...(trigger ?? {}), ...(date ? { date } : {}) } } : {}),
  };
  // Variables are loaded only when a template reads them, as for a task (spec.ts).
  if (Object.values(templates).some((p) => p.roots.includes('vars'))) {
    scope.vars = await executionVars(c, deps.storage, { namespace: t.namespace, snapshot_id: head.snapshot_id!, definition: head.definition });
  }
  // A template that reads secret() is stored masked, with its recipe in the
  // trigger payload for the tasks that read the input (defer-secrets.ts).
  const plain = Object.fromEntries(Object.entries(templates).filter(([, p]) => !p.secretKeys.length));
  const inputs = renderTemplateMap(plain, scope).values as Record<string, unknown>;
  const recipes: Record<string, string> = {};
  for (const [k, p] of Object.entries(templates)) {
    if (!p.secretKeys.length) continue;
    const d = deferSecrets(p, scope);
    Object.defineProperty(inputs, k, { value: d.masked, enumerable: true, writable: true, configurable: true });
    Object.defineProperty(recipes, k, { value: d.recipe, enumerable: true, writable: true, configurable: true });
  }
  const triggerPayload = Object.keys(recipes).length ? { ...(t.triggerPayload ?? {}), [SECRET_INPUTS_KEY]: recipes } : t.triggerPayload;
  return { ...t, id, inputs, ...(triggerPayload ? { triggerPayload } : {}) };
}

async function readFlow(c: Client | pg.Pool, t: TriggerRequest): Promise<FlowHead> {
  const r = await c.query<FlowHead>({
    name: 'svc-trigger-flow',
    text: FLOW_HEAD_SQL,
    values: [t.namespace, t.flowId],
  });
  const flow = r.rows[0];
  if (!flow || !flow.snapshot_id) throw new FlowNotFoundError(`no flow ${t.namespace}/${t.flowId}`);
  if (!flow.enabled) throw new FlowDisabledError(`flow ${t.namespace}/${t.flowId} is disabled`);
  return flow;
}

function newExecution(flow: FlowHead, t: TriggerRequest): NewExecution {
  const inputs = resolveInputs(flow.definition.inputs, t.inputs);
  return {
    ...(t.id ? { id: t.id } : {}),
    namespace: t.namespace,
    flowId: t.flowId,
    flowRevisionId: flow.revision_id,
    gitSha: flow.git_sha,
    definition: flow.definition,
    snapshotId: flow.snapshot_id!,
    snapshotVersion: flow.version,
    inputs,
    labels: { ...(flow.definition.labels ?? {}), ...(t.labels ?? {}) },
    triggerType: t.triggerType,
    triggerId: t.triggerId ?? null,
    triggerPayload: t.triggerPayload ?? {},
    createdBy: t.createdBy,
    parentExecutionId: t.parentExecutionId ?? null,
    parentTaskRunId: t.parentTaskRunId ?? null,
    chainDepth: t.chainDepth ?? 0,
    ...(t.audit ? { audit: t.audit } : {}),
  };
}
