// Pieces shared by the engine's statements.
import { INSTANCE_ONLINE_MS } from '../constants.js';

/** The execution columns the engine reads to plan and start (ExecutionRow). */
export const EXECUTION_COLUMNS = `id, state, namespace, flow_id, definition, inputs, labels, trigger_payload, parent_execution_id, parent_task_run_id,
  started_at, created_at, concurrency_key, chain_depth, paused_at`;

/**
 * SQL: whether an online dispatcher serves the pool and executor type given
 * as SQL expressions; `$online` is the parameter holding the oldest heartbeat
 * that still counts as online.
 */
// Heartbeats are written with the database's clock; \`online\` comes from the
// planning process's clock (tests move it). The earlier of the two limits is
// used, so a planner whose clock runs ahead never takes a live dispatcher for
// gone (the reason is only a label: claims do not read it).
export const servedSql = (pool: string, type: string, online: string) =>
  `EXISTS (SELECT 1 FROM instances i WHERE i.kind = 'dispatcher' AND i.stopped_at IS NULL
     AND i.last_heartbeat_at > LEAST(${online}::timestamptz, now() - ${INSTANCE_ONLINE_MS} * interval '1 millisecond')
     AND ${pool} = ANY(i.pools) AND ${type} = ANY(i.executors))`;

/** SQL, in a RETURNING of an ended execution `ex`: whether a flow trigger fires on this end. */
export const HAS_FLOW_TRIGGERS = `ex.flow_id IS NOT NULL AND EXISTS (SELECT 1 FROM flow_triggers ft WHERE ft.type = 'flow'
  AND ft.upstream_namespace = ex.namespace AND ft.upstream_flow_id = ex.flow_id AND ex.state = ANY(ft.states)) AS has_flow_triggers`;

/** The oldest heartbeat of an instance still online at `now`. */
export const onlineSince = (now: Date) => new Date(now.getTime() - INSTANCE_ONLINE_MS);

/**
 * SQL for the oldest heartbeat of an instance still online: `onlineSince` of
 * a test's clock given as the parameter `param`, else of the database's clock
 * (which wrote the heartbeats).
 */
export const onlineSinceSql = (param: string) => `COALESCE(${param}::timestamptz, now() - ${INSTANCE_ONLINE_MS} * interval '1 millisecond')`;
