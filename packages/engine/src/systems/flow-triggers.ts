// Flow triggers: when an execution of `<namespace>/<flow_id>` ends in one of a
// trigger's `states`, the downstream flow starts with `trigger.outputs` (the
// upstream outputs), `trigger_type` `flow`, `chain_depth` one more than the
// upstream's. A firing row (unique per upstream execution, downstream flow and
// trigger) is written in the same transaction as the downstream execution, so
// each trigger fires exactly once per upstream execution, whichever instance
// (or the scheduler's sweep) gets there first. Past MAX_CHAIN_DEPTH the firing
// is recorded without an execution and the reason logged: a loop stops. So
// is a firing whose downstream flow's namespace may not listen to the
// upstream's (@svc/namespaces reach.ts): the trigger does not fire. With
// tracing on, a downstream execution is created in a span `fire flow trigger`
// that continues the upstream's stored trace, so it stores that trace too and
// the chain shows as one trace (docs/operating/tracing.md).
import type pg from 'pg';
import { TemplateError } from '@svc/flow-schema';
import { continueTrace } from '@svc/logging';
import { mayReach } from '@svc/namespaces';
import { MAX_CHAIN_DEPTH } from '../constants.js';
import { inTx, type Conn } from '../db.js';
import { FlowDisabledError, FlowNotFoundError, InputsInvalidError } from '../errors.js';
import type { FollowUpRunner } from '../peers.js';
import { insertFiring, setFiringExecution, triggersOfEnd, unfiredEnds, upstream } from '../sql/flow-triggers.js';
import type { FollowUp } from '../types.js';
import type { Triggers } from './trigger.js';

export interface FlowTriggerResult {
  namespace: string;
  flowId: string;
  triggerId: string;
  executionId: string | null;
  /** Why no execution started: chain_depth_exceeded, namespace_not_allowed, flow_disabled, template_error, inputs_invalid, flow_not_found. */
  skipped?: string;
}

/** Fires flow triggers: after an end (its follow-up), and the backstop's sweep. */
export class FlowTriggers {
  constructor(
    private readonly pool: pg.Pool,
    private readonly triggers: Triggers,
    /** Runs what the started executions need next (peers.ts: the follow-ups run flow triggers in turn). */
    private readonly followUps: Pick<FollowUpRunner, 'run'>,
    private readonly now: () => Date,
  ) {}

  /** Fires the triggers of upstream execution `upstreamId`'s end (on the pool, or in the caller's transaction). */
  async fire(upstreamId: string, db: Conn = this.pool): Promise<{ fired: FlowTriggerResult[]; followUps: FollowUp[] }> {
    const up = await upstream(db, { id: upstreamId });
    if (!up?.flow_id) return { fired: [], followUps: [] };
    const triggers = await triggersOfEnd(db, { namespace: up.namespace, flowId: up.flow_id, state: up.state });
    const fired: FlowTriggerResult[] = [];
    const followUps: FollowUp[] = [];
    for (const t of triggers) {
      const firing = { upstreamId: up.id, namespace: t.namespace, flowId: t.flow_id, triggerId: t.trigger_id };
      const r = await inTx(db, async (c) => {
        if (!(await insertFiring(c, { ...firing, at: this.now() }))) return null; // fired already
        const res: FlowTriggerResult = { namespace: t.namespace, flowId: t.flow_id, triggerId: t.trigger_id, executionId: null };
        if (up.chain_depth + 1 > MAX_CHAIN_DEPTH) return { ...res, skipped: 'chain_depth_exceeded' };
        // A flow may listen only to its own namespace and its children unless the upstream's allowed callers cover it
        // (checked at save too; a flow saved before, or an allowance removed since, is stopped here): no execution starts.
        if (!(await mayReach(c, t.namespace, up.namespace))) return { ...res, skipped: 'namespace_not_allowed' };
        try {
          const attributes = { 'svc.upstream_execution_id': up.id, 'svc.namespace': t.namespace, 'svc.flow_id': t.flow_id, 'svc.trigger_id': t.trigger_id };
          const created = await continueTrace(up.traceparent, 'fire flow trigger', attributes, () =>
            this.triggers.triggerWith(c, {
              namespace: t.namespace,
              flowId: t.flow_id,
              inputTemplates: { templates: t.definition.inputs ?? {}, trigger: { outputs: up.outputs ?? {} } },
              triggerType: 'flow',
              triggerId: t.trigger_id,
              triggerPayload: { upstream_execution_id: up.id, upstream_namespace: up.namespace, upstream_flow_id: up.flow_id, upstream_state: up.state, outputs: up.outputs ?? {} },
              createdBy: `trigger:${t.trigger_id}`,
              chainDepth: up.chain_depth + 1,
            }),
          );
          await setFiringExecution(c, { ...firing, executionId: created.id });
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
  async sweep(since: Date): Promise<FlowTriggerResult[]> {
    const out: FlowTriggerResult[] = [];
    for (const id of await unfiredEnds(this.pool, { since })) {
      const r = await this.fire(id);
      out.push(...r.fired);
      // What the started executions need next (a start that ended at once, say), as for any trigger.
      await this.followUps.run(r.followUps);
    }
    return out;
  }
}
