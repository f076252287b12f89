// Triggering a flow by name: the flow's current revision and the namespace's
// current snapshot, inputs coerced, labels merged (the request's win).
import type pg from 'pg';
import type { FlowDefinition } from '@svc/flow-schema';
import { FlowDisabledError, FlowNotFoundError, createExecution, createExecutionWith, type Created, type NewExecution, type StartDeps } from './executions.js';
import type { Client } from './db.js';
import type { FollowUp } from './advance.js';
import { resolveInputs } from './inputs.js';

export interface TriggerRequest {
  namespace: string;
  flowId: string;
  inputs?: Record<string, unknown>;
  labels?: Record<string, string>;
  triggerType: string;
  triggerId?: string;
  triggerPayload?: Record<string, unknown>;
  createdBy: string;
  parentExecutionId?: string;
  parentTaskRunId?: string;
  chainDepth?: number;
}

/**
 * Triggers a flow: one read for the flow, then createExecution (one statement
 * when the flow has no concurrency limit).
 */
export async function triggerFlow(pool: pg.Pool, deps: StartDeps, t: TriggerRequest): Promise<Created> {
  return createExecution(pool, deps, await newExecutionOf(pool, t));
}

/** triggerFlow inside the caller's transaction (see createExecutionWith). */
export async function triggerFlowWith(c: Client, deps: StartDeps, t: TriggerRequest): Promise<{ id: string; followUps: FollowUp[] }> {
  return createExecutionWith(c, deps, await newExecutionOf(c, t));
}

async function newExecutionOf(c: Client | pg.Pool, t: TriggerRequest): Promise<NewExecution> {
  const r = await c.query<{ enabled: boolean; revision_id: string; definition: FlowDefinition; snapshot_id: string | null; version: number }>({
    name: 'svc-trigger-flow',
    text: `SELECT f.enabled, r.id AS revision_id, r.definition, v.snapshot_id, n.head_version AS version
     FROM flows f JOIN flow_revisions r ON r.id = f.current_revision_id JOIN namespaces n ON n.name = f.namespace
     LEFT JOIN namespace_versions v ON v.id = n.head_version_id
     WHERE f.namespace = $1 AND f.flow_id = $2 AND f.deleted_at IS NULL`,
    values: [t.namespace, t.flowId],
  });
  const flow = r.rows[0];
  if (!flow || !flow.snapshot_id) throw new FlowNotFoundError(`no flow ${t.namespace}/${t.flowId}`);
  if (!flow.enabled) throw new FlowDisabledError(`flow ${t.namespace}/${t.flowId} is disabled`);
  const inputs = resolveInputs(flow.definition.inputs, t.inputs);
  return {
    namespace: t.namespace,
    flowId: t.flowId,
    flowRevisionId: flow.revision_id,
    definition: flow.definition,
    snapshotId: flow.snapshot_id,
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
  };
}
