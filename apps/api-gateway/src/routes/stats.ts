// The dashboard and a flow's charts: figures the engine computes in SQL
// (packages/engine/src/stats.ts). Viewers may read them all.
import type { Db } from '@svc/db';
import type { DashboardRange, Engine } from '@svc/engine';
import type { HandlerContext, OperationHandlers } from '@svc/http';
import type { AuthPrincipal } from '../identity/principal.js';
import { requireFlow } from './flows.js';

type Ctx = HandlerContext<AuthPrincipal>;

export function statsHandlers(deps: { db: Db; engine: Engine }): OperationHandlers<AuthPrincipal> {
  const { engine } = deps;
  const flowOrThrow = (namespace: string, flowId: string) => requireFlow(deps.db, namespace, flowId);
  return {
    // `range` is checked by the operation's schema (24h, 7d or 30d; another is 422 on field range).
    getDashboard: ({ query }: Ctx) => {
      const q = query as { range: DashboardRange; namespace?: string };
      return engine.dashboard({ range: q.range, namespace: q.namespace });
    },

    async getFlowStats({ params }: Ctx) {
      await flowOrThrow(params.namespace, params.flowId);
      return engine.flowStats(params.namespace, params.flowId);
    },

    // `metric` is required and `agg` one of sum, avg, max: both checked by the operation's schema (422 naming the field).
    async getFlowMetrics({ params, query }: Ctx) {
      const q = query as { metric: string; group_by?: string; agg: 'sum' | 'avg' | 'max' };
      await flowOrThrow(params.namespace, params.flowId);
      return engine.flowMetrics(params.namespace, params.flowId, { metric: q.metric, groupBy: q.group_by, agg: q.agg });
    },
  };
}
