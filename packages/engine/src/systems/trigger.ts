// Triggering a flow by name: the flow's current revision and the namespace's
// current snapshot, inputs coerced, labels merged (the request's win).
import type pg from 'pg';
import { deferSecrets, parseTemplate, renderTemplateMap, type TemplateScope } from '@svc/flow-schema';
import { newId } from '@svc/db';
import { inTx, type Client } from '../db.js';
import { FlowDisabledError, FlowNotFoundError, InputsInvalidError, type EngineErrorDetail } from '../errors.js';
import { resolveInputs } from '../planning/inputs.js';
import { SECRET_INPUTS_KEY, startDateOf, triggerDateOf } from '../planning/trigger-date.js';
import { flowHead, type FlowHead } from '../sql/trigger-flow.js';
import type { BatchCreated, Created, FollowUp, NewExecution, TriggerBatchRequest, TriggerRequest } from '../types.js';
import type { FlowCache } from './flow-cache.js';
import type { Starts } from './start.js';
import { executionVars } from './vars.js';
import { checkBatchFiles } from './file-inputs.js';

export type { TriggerRequest } from '../types.js';

/** Most input problems a batch trigger's error lists. */
const MAX_PROBLEMS = 100;

/** Triggers flows by name: from the flow cache when it holds the flow, else after one read. */
export class Triggers {
  constructor(
    private readonly pool: pg.Pool,
    private readonly starts: Starts,
    private readonly deps: { now: () => Date; storage?: { getBuffer(k: string): Promise<Buffer> }; flows?: FlowCache },
  ) {}

  /**
   * Triggers a flow. From the cache (deps.flows), one statement that checks
   * the cached revision is still current; otherwise one read for the flow,
   * then Starts.create (one statement when the flow has no concurrency
   * limit).
   */
  async trigger(t: TriggerRequest): Promise<Created> {
    const { pool, deps } = this;
    const cached = deps.flows?.get(t.namespace, t.flowId);
    if (cached) {
      const created = await this.starts.createChecked(newExecution(cached, await withInputs(pool, deps, cached, t)));
      if (created) return created;
      deps.flows!.delete(t.namespace, t.flowId);
    }
    const head = await readFlow(pool, t);
    // A flow with a concurrency limit starts under a lock with a read of its own: nothing to save.
    if (!head.definition.concurrency?.limit) deps.flows?.set(t.namespace, t.flowId, head);
    return this.starts.create(newExecution(head, await withInputs(pool, deps, head, t)));
  }

  /**
   * Triggers one flow once per item, in one transaction: every item's inputs
   * are checked first (one InputsInvalidError naming each bad field as
   * `items[i].inputs.<id>`, nothing created), then Starts.createBatch creates
   * them all, the concurrency rule applied to each in order.
   */
  async triggerBatch(t: TriggerBatchRequest): Promise<{ created: BatchCreated[]; followUps: FollowUp[] }> {
    return inTx(this.pool, async (c) => {
      const head = await readFlow(c, t);
      const problems: EngineErrorDetail[] = [];
      const ns: NewExecution[] = [];
      for (const [i, item] of t.items.entries()) {
        const one: TriggerRequest = {
          namespace: t.namespace,
          flowId: t.flowId,
          inputs: item.inputs,
          labels: item.labels,
          triggerType: t.triggerType,
          createdBy: t.createdBy,
          ...(t.audit ? { audit: t.audit(i) } : {}),
        };
        try {
          ns.push(newExecution(head, one));
        } catch (e) {
          if (!(e instanceof InputsInvalidError)) throw e;
          for (const p of e.problems) problems.push({ ...p, field: `items[${i}].${p.field}` });
        }
      }
      // The first problems only: a thousand bad items would make an answer no one reads.
      if (problems.length > MAX_PROBLEMS) problems.splice(MAX_PROBLEMS, problems.length, { field: 'items', message: `${problems.length - MAX_PROBLEMS} more problems not listed` });
      if (problems.length) throw new InputsInvalidError(problems);
      // A dry run checks the file inputs too (createBatch checks them before it creates).
      if (t.dryRun) {
        await checkBatchFiles(c, ns);
        return { created: [], followUps: [] };
      }
      return this.starts.createBatch(c, ns);
    });
  }

  /** trigger() inside the caller's transaction (see Starts.createWith). */
  async triggerWith(c: Client, t: TriggerRequest): Promise<{ id: string; followUps: FollowUp[] }> {
    const head = await readFlow(c, t);
    return this.starts.createWith(c, newExecution(head, await withInputs(c, this.deps, head, t)));
  }
}

/** `t` with its input templates rendered into `inputs` (see TriggerRequest.inputTemplates). */
async function withInputs(
  c: Client | pg.Pool,
  deps: { now: () => Date; storage?: { getBuffer(k: string): Promise<Buffer> } },
  head: FlowHead,
  t: TriggerRequest,
): Promise<TriggerRequest> {
  if (!t.inputTemplates) return t;
  const { trigger } = t.inputTemplates;
  const templates = Object.fromEntries(Object.entries(t.inputTemplates.templates).map(([k, src]) => [k, parseTemplate(src)]));
  const id = t.id ?? newId();
  const date = triggerDateOf(t.triggerPayload);
  const scope: TemplateScope = {
    flow: { id: t.flowId, namespace: t.namespace },
    labels: { ...(head.definition.labels ?? {}), ...(t.labels ?? {}) },
    execution: { id, namespace: t.namespace, flow_id: t.flowId, start_date: startDateOf(null, deps.now()) },
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

async function readFlow(c: Client | pg.Pool, t: { namespace: string; flowId: string }): Promise<FlowHead> {
  const flow = await flowHead(c, { namespace: t.namespace, flowId: t.flowId });
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
