// Flow triggers (systems/flow-triggers.ts): the triggers an ended execution
// fires, the firing rows that make each fire once, and the backstop's pick.

/** The ended upstream execution $1 as its flow triggers read it. */
export const UPSTREAM_SQL = `SELECT id, namespace, flow_id, state, outputs, chain_depth FROM executions WHERE id = $1`;

/** The flow triggers of live flows that fire when flow $1/$2 ends in state $3. */
export const TRIGGERS_OF_END_SQL = `SELECT ft.namespace, ft.flow_id, ft.trigger_id, ft.definition FROM flow_triggers ft
     JOIN flows f ON f.namespace = ft.namespace AND f.flow_id = ft.flow_id AND f.deleted_at IS NULL
     WHERE ft.type = 'flow' AND ft.upstream_namespace = $1 AND ft.upstream_flow_id = $2 AND $3 = ANY(ft.states)`;

/** The firing of trigger $4 of flow $2/$3 for upstream execution $1 at $5; no row returned when it fired already. */
export const INSERT_FIRING_SQL = `INSERT INTO flow_trigger_firings (upstream_execution_id, namespace, flow_id, trigger_id, created_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT DO NOTHING RETURNING 1`;

/** The execution ($5) a firing started. */
export const FIRING_EXECUTION_SQL = `UPDATE flow_trigger_firings SET execution_id = $5 WHERE upstream_execution_id = $1 AND namespace = $2 AND flow_id = $3 AND trigger_id = $4`;

/** Executions ended since $1 with a flow trigger that has not fired (the backstop). */
export const UNFIRED_ENDS_SQL = `SELECT DISTINCT e.id FROM executions e
     JOIN flow_triggers ft ON ft.type = 'flow' AND ft.upstream_namespace = e.namespace AND ft.upstream_flow_id = e.flow_id AND e.state = ANY(ft.states)
     WHERE e.ended_at >= $1
       AND NOT EXISTS (SELECT 1 FROM flow_trigger_firings x WHERE x.upstream_execution_id = e.id AND x.namespace = ft.namespace AND x.flow_id = ft.flow_id AND x.trigger_id = ft.trigger_id)
     LIMIT 200`;
