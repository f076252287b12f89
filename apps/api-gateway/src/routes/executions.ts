// Executions: trigger, read, list, cancel, rerun, restart. Engine errors
// (unknown flow, disabled flow, bad inputs, ended execution...) become the
// envelope in the one error middleware (engine-errors.ts).
import type { Db } from '@svc/db';
import type { Engine } from '@svc/engine';
import { HttpError, notFound, reply, validationFailed, type OperationHandlers } from '@svc/http';
import { recordAudit } from '@svc/identity';
import type { AuthPrincipal } from '../identity/principal.js';
import { readScope } from '../identity/namespace-roles.js';
import { auditContext, startAudit } from './audit.js';
import type { Answer } from '@svc/api-spec';

export interface ExecutionRouteDeps {
  db: Db;
  now: () => Date;
  engine: Engine;
}

export function executionHandlers(deps: ExecutionRouteDeps) {
  const { db, engine } = deps;
  const one = async (id: string) => {
    const [e] = await engine.executions.load([id]);
    if (!e) throw notFound(`no execution ${id}`, 'execution_not_found');
    return e;
  };

  return {
    async triggerFlow(ctx) {
      const { params, principal } = ctx;
      const b = ctx.body ?? {};
      const started = await engine.executions.trigger({
        namespace: params.namespace,
        flowId: params.flowId,
        inputs: b.inputs,
        labels: b.labels,
        triggerType: 'manual',
        createdBy: principal.email,
        // Input names only: a value may be a secret.
        audit: startAudit(ctx, 'execution.trigger', {
          namespace: params.namespace,
          flow_id: params.flowId,
          trigger_type: 'manual',
          input_keys: Object.keys(b.inputs ?? {}).sort(),
        }),
      });
      // The start statement's own result, when it created and started the execution alone (no second read).
      return reply(201, started.execution ?? (await one(started.id)));
    },

    getExecution: ({ params }) => one(params.executionId),

    async listExecutions({ query, cursor: after, principal, encodeCursor }) {
      const q = query;
      // Every `label=key:value` (or key=value) must match.
      const labels: Record<string, string> = {};
      for (const l of q.label ?? []) {
        const m = /^([^=:]+)[=:](.*)$/.exec(l);
        if (!m) throw validationFailed([{ field: 'label', message: 'must be key:value' }]);
        labels[m[1]] = m[2]!;
      }
      const flow = q.flow?.includes('/') ? q.flow.split('/') : null;
      const within = await readScope(db.pool, principal);
      const rows = await engine.executions.listIds({
        ...(within ? { within } : {}),
        state: q.state,
        namespace: q.namespace,
        flowId: flow ? flow[1] : q.flow,
        flowNamespace: flow ? flow[0] : undefined,
        labels,
        after,
        limit: q.limit + 1,
      });
      const page = rows.slice(0, q.limit);
      const last = page[page.length - 1];
      return {
        items: await engine.executions.load(page.map((x) => x.id)),
        ...(rows.length > q.limit && last ? { next_cursor: encodeCursor({ created_at: last.created_at.toISOString(), id: last.id }) } : {}),
      } satisfies Answer<'listExecutions'>;
    },

    async cancelExecution(ctx) {
      const id = ctx.params.executionId;
      const out = await engine.executions.cancel(id, ctx.principal.email);
      const e = await one(id);
      await recordAudit(db.pool, {
        action: 'execution.cancel',
        ...auditContext(ctx),
        targetType: 'execution',
        targetId: id,
        details: { namespace: e.namespace, flow_id: e.flow_id, state: out.state },
        at: deps.now(),
      });
      return e;
    },

    async rerunExecution(ctx) {
      const id = ctx.params.executionId;
      const created = await engine.executions.rerun(id, ctx.principal.email);
      const e = await one(created.id);
      await recordAudit(db.pool, {
        action: 'execution.rerun',
        ...auditContext(ctx),
        targetType: 'execution',
        targetId: id,
        details: { namespace: e.namespace, flow_id: e.flow_id, new_execution_id: created.id },
        at: deps.now(),
      });
      return reply(201, e);
    },

    async restartExecution(ctx) {
      const id = ctx.params.executionId;
      const created = await engine.executions.restart(id, ctx.principal.email);
      const e = await one(created.id);
      await recordAudit(db.pool, {
        action: 'execution.restart',
        ...auditContext(ctx),
        targetType: 'execution',
        targetId: id,
        details: { namespace: e.namespace, flow_id: e.flow_id, new_execution_id: created.id },
        at: deps.now(),
      });
      return reply(201, e);
    },
  } satisfies OperationHandlers<AuthPrincipal>;
}

export { HttpError };
