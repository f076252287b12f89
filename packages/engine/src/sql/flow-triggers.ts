// Flow triggers (systems/flow-triggers.ts): the triggers an ended execution
// fires, the firing rows that make each fire once, and the backstop's pick.
import type { Queryable } from '@svc/db';
import type { FlowTrigger } from '@svc/flow-schema';

/** An ended execution as its flow triggers read it. */
export interface UpstreamRow {
  id: string;
  namespace: string;
  flow_id: string | null;
  state: string;
  outputs: Record<string, unknown> | null;
  chain_depth: number;
  /** With tracing on, the context the upstream execution was created in: its flow triggers' executions continue it. */
  traceparent: string | null;
}

/** The ended upstream execution `id` as its flow triggers read it. */
export async function upstream(db: Queryable, p: { id: string }): Promise<UpstreamRow | undefined> {
  const r = await db.query<UpstreamRow>(`SELECT id, namespace, flow_id, state, outputs, chain_depth, traceparent FROM executions WHERE id = $1`, [p.id]);
  return r.rows[0];
}

/** A flow trigger that fires on an end. */
export interface TriggerOfEndRow {
  namespace: string;
  flow_id: string;
  trigger_id: string;
  definition: FlowTrigger;
}

/** The flow triggers of live flows that fire when flow `namespace`/`flowId` ends in `state`. */
export async function triggersOfEnd(db: Queryable, p: { namespace: string; flowId: string; state: string }): Promise<TriggerOfEndRow[]> {
  const r = await db.query<TriggerOfEndRow>(
    `SELECT ft.namespace, ft.flow_id, ft.trigger_id, ft.definition FROM flow_triggers ft
     JOIN flows f ON f.namespace = ft.namespace AND f.flow_id = ft.flow_id AND f.deleted_at IS NULL
     WHERE ft.type = 'flow' AND ft.upstream_namespace = $1 AND ft.upstream_flow_id = $2 AND $3 = ANY(ft.states)`,
    [p.namespace, p.flowId, p.state],
  );
  return r.rows;
}

/** One firing: a trigger of a downstream flow for an upstream execution. */
export interface Firing {
  upstreamId: string;
  namespace: string;
  flowId: string;
  triggerId: string;
}

/** The firing's row at `at`; false when it fired already. */
export async function insertFiring(db: Queryable, p: Firing & { at: Date }): Promise<boolean> {
  const r = await db.query(
    `INSERT INTO flow_trigger_firings (upstream_execution_id, namespace, flow_id, trigger_id, created_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT DO NOTHING RETURNING 1`,
    [p.upstreamId, p.namespace, p.flowId, p.triggerId, p.at],
  );
  return !!r.rowCount;
}

/** The execution a firing started. */
export async function setFiringExecution(db: Queryable, p: Firing & { executionId: string }): Promise<void> {
  await db.query(`UPDATE flow_trigger_firings SET execution_id = $5 WHERE upstream_execution_id = $1 AND namespace = $2 AND flow_id = $3 AND trigger_id = $4`, [
    p.upstreamId,
    p.namespace,
    p.flowId,
    p.triggerId,
    p.executionId,
  ]);
}

/** Executions ended since `since` with a flow trigger that has not fired (the backstop), at most 200. */
export async function unfiredEnds(db: Queryable, p: { since: Date }): Promise<string[]> {
  const r = await db.query<{ id: string }>(
    `SELECT DISTINCT e.id FROM executions e
     JOIN flow_triggers ft ON ft.type = 'flow' AND ft.upstream_namespace = e.namespace AND ft.upstream_flow_id = e.flow_id AND e.state = ANY(ft.states)
     WHERE e.ended_at >= $1
       AND NOT EXISTS (SELECT 1 FROM flow_trigger_firings x WHERE x.upstream_execution_id = e.id AND x.namespace = ft.namespace AND x.flow_id = ft.flow_id AND x.trigger_id = ft.trigger_id)
     LIMIT 200`,
    [p.since],
  );
  return r.rows.map((x) => x.id);
}
