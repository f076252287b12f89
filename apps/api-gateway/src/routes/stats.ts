// The dashboard and a flow's charts: figures the engine computes in SQL
// (packages/engine/src/systems/dashboards.ts). Viewers may read them all; a
// `none` caller's dashboard without a namespace covers only the namespaces it
// may read (docs/operating/roles.md, "The role `none`"), with one namespace the role check decided.
import type { Db } from '@svc/db';
import type { Engine } from '@svc/engine';
import type { OperationHandlers } from '@svc/http';
import type { AuthPrincipal } from '../identity/principal.js';
import { readScope } from '../identity/namespace-roles.js';
import { requireFlow } from './flows.js';

export function statsHandlers(deps: { db: Db; engine: Engine }) {
  const { engine } = deps;
  const flowOrThrow = (namespace: string, flowId: string) => requireFlow(deps.db, namespace, flowId);
  return {
    // `range` is checked by the operation's schema (24h, 7d or 30d; another is 422 on field range).
    async getDashboard({ query, principal }) {
      const q = query;
      // Null (no query) for a role of viewer or more: the dashboard as before.
      const within = q.namespace === undefined ? await readScope(deps.db.pool, principal) : null;
      return engine.dashboards.dashboard(within ? { range: q.range, within } : { range: q.range, namespace: q.namespace });
    },

    async getFlowStats({ params }) {
      await flowOrThrow(params.namespace, params.flowId);
      return engine.dashboards.flowStats(params.namespace, params.flowId);
    },

    // `metric` is required and `agg` one of sum, avg, max: both checked by the operation's schema (422 naming the field).
    async getFlowMetrics({ params, query }) {
      const q = query;
      await flowOrThrow(params.namespace, params.flowId);
      return engine.dashboards.flowMetrics(params.namespace, params.flowId, { metric: q.metric, groupBy: q.group_by, agg: q.agg });
    },
  } satisfies OperationHandlers<AuthPrincipal>;
}
