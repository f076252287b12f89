// Flow triggers: when an execution of `<namespace>/<flow_id>` ends in one of a
// trigger's `states`, the downstream flow starts with `trigger.outputs` (the
// upstream outputs), `trigger_type` `flow`, `chain_depth` one more than the
// upstream's. A firing row (unique per upstream execution, downstream flow and
// trigger) is written in the same transaction as the downstream execution, so
// each trigger fires exactly once per upstream execution, whichever instance
// (or the scheduler's sweep) gets there first. Past MAX_CHAIN_DEPTH the firing
// is recorded without an execution and the reason logged: a loop stops. So
// is a firing whose downstream flow's namespace may not listen to the
// upstream's (issue #40, @svc/namespaces reach.ts): the trigger does not fire.
import type pg from 'pg';
import { TemplateError, type FlowTrigger } from '@svc/flow-schema';
import { mayReach } from '@svc/namespaces';
import type { FollowUp } from './advance.js';
import { MAX_CHAIN_DEPTH } from '../constants.js';
import { inTx, type Conn } from '../db.js';
import { FlowDisabledError, FlowNotFoundError, type StartDeps } from './start.js';
import { InputsInvalidError } from '../planning/inputs.js';
import { triggerFlowWith } from './trigger.js';
import { runFollowUps } from './followups.js';
import { FIRING_EXECUTION_SQL, INSERT_FIRING_SQL, TRIGGERS_OF_END_SQL, UNFIRED_ENDS_SQL, UPSTREAM_SQL } from '../sql/flow-triggers.js';

export interface FlowTriggerResult {
  namespace: string;
  flowId: string;
  triggerId: string;
  executionId: string | null;
  /** Why no execution started: chain_depth_exceeded, namespace_not_allowed, flow_disabled, template_error, inputs_invalid, flow_not_found. */
  skipped?: string;
}

export async function fireFlowTriggers(pool: Conn, deps: StartDeps, upstreamId: string): Promise<{ fired: FlowTriggerResult[]; followUps: FollowUp[] }> {
  const up = (
    await pool.query<{ id: string; namespace: string; flow_id: string | null; state: string; outputs: Record<string, unknown> | null; chain_depth: number }>(UPSTREAM_SQL, [
      upstreamId,
    ])
  ).rows[0];
  if (!up?.flow_id) return { fired: [], followUps: [] };
  const triggers = (
    await pool.query<{ namespace: string; flow_id: string; trigger_id: string; definition: FlowTrigger }>(TRIGGERS_OF_END_SQL, [up.namespace, up.flow_id, up.state])
  ).rows;
  const fired: FlowTriggerResult[] = [];
  const followUps: FollowUp[] = [];
  for (const t of triggers) {
    const r = await inTx(pool, async (c) => {
      const ins = await c.query(INSERT_FIRING_SQL, [up.id, t.namespace, t.flow_id, t.trigger_id, deps.config.now()]);
      if (!ins.rowCount) return null; // fired already
      const res: FlowTriggerResult = { namespace: t.namespace, flowId: t.flow_id, triggerId: t.trigger_id, executionId: null };
      if (up.chain_depth + 1 > MAX_CHAIN_DEPTH) return { ...res, skipped: 'chain_depth_exceeded' };
      // A flow may listen only to its own namespace and its children unless the upstream's allowed callers cover it
      // (checked at save too; a flow saved before, or an allowance removed since, is stopped here): no execution starts.
      if (!(await mayReach(c, t.namespace, up.namespace))) return { ...res, skipped: 'namespace_not_allowed' };
      try {
        const created = await triggerFlowWith(c, deps, {
          namespace: t.namespace,
          flowId: t.flow_id,
          inputTemplates: { templates: t.definition.inputs ?? {}, trigger: { outputs: up.outputs ?? {} } },
          triggerType: 'flow',
          triggerId: t.trigger_id,
          triggerPayload: { upstream_execution_id: up.id, upstream_namespace: up.namespace, upstream_flow_id: up.flow_id, upstream_state: up.state, outputs: up.outputs ?? {} },
          createdBy: `trigger:${t.trigger_id}`,
          chainDepth: up.chain_depth + 1,
        });
        await c.query(FIRING_EXECUTION_SQL, [up.id, t.namespace, t.flow_id, t.trigger_id, created.id]);
        followUps.push(...created.followUps);
        return { ...res, executionId: created.id };
      } catch (err) {
        if (err instanceof TemplateError) return { ...res, skipped: 'template_error' };
        if (err instanceof FlowDisabledError) return { ...res, skipped: 'flow_disabled' };
        if (err instanceof InputsInvalidError) return { ...res, skipped: 'inputs_invalid' };
        if (err instanceof FlowNotFoundError) return { ...res, skipped: 'flow_not_found' };
        throw err;
      }
    });
    if (r) fired.push(r);
  }
  return { fired, followUps };
}

/**
 * The backstop: executions that ended recently and whose flow triggers have
 * not fired (a follow-up lost to a crash) are fired now. Idempotent.
 */
export async function sweepFlowTriggers(pool: pg.Pool, deps: StartDeps, since: Date): Promise<FlowTriggerResult[]> {
  const ids = (await pool.query<{ id: string }>(UNFIRED_ENDS_SQL, [since])).rows;
  const out: FlowTriggerResult[] = [];
  for (const { id } of ids) {
    const r = await fireFlowTriggers(pool, deps, id);
    out.push(...r.fired);
    // What the started executions need next (a start that ended at once, say), as for any trigger.
    await runFollowUps(pool, deps, r.followUps);
  }
  return out;
}
