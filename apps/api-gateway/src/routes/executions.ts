// Executions: trigger, read, list, cancel, rerun, restart.
import type { Db } from '@svc/db';
import {
  cancelExecution,
  ExecutionEndedError,
  ExecutionNotFoundError,
  FlowDisabledError,
  FlowNotFoundError,
  InputsInvalidError,
  loadExecutions,
  NotRestartableError,
  rerunExecution,
  restartExecution,
  runFollowUps,
  triggerFlow,
  type StartDeps,
} from '@svc/engine';
import { conflict, encodeCursor, HttpError, notFound, reply, validationFailed, type HandlerContext, type OperationHandlers } from '@svc/http';
import { recordAudit } from '@svc/identity';
import type { AuthPrincipal } from '../identity/principal.js';
import { auditContext } from './audit.js';

type Ctx = HandlerContext<AuthPrincipal>;

export interface ExecutionRouteDeps {
  db: Db;
  now: () => Date;
  engine: StartDeps;
  log: { warn(msg: string, meta?: Record<string, unknown>): unknown };
}

function engineError(err: unknown): never {
  if (err instanceof FlowNotFoundError) throw notFound(err.message);
  if (err instanceof FlowDisabledError) throw conflict('flow_disabled', err.message);
  if (err instanceof InputsInvalidError) throw validationFailed(err.problems);
  if (err instanceof ExecutionNotFoundError) throw notFound(err.message, 'execution_not_found');
  if (err instanceof ExecutionEndedError) throw conflict('execution_ended', err.message);
  if (err instanceof NotRestartableError) throw conflict('not_restartable', err.message);
  throw err;
}

export function executionHandlers(deps: ExecutionRouteDeps): OperationHandlers<AuthPrincipal> {
  const { db } = deps;
  const one = async (id: string) => {
    const [e] = await loadExecutions(db.pool, [id]);
    if (!e) throw notFound(`no execution ${id}`, 'execution_not_found');
    return e;
  };
  // Follow-ups were recorded with the change (the engine's outbox): run now, and on a failure left to the backstop of every dispatcher and the maintenance holder.
  const follow = (f: Parameters<typeof runFollowUps>[2]) =>
    f.length ? runFollowUps(db.pool, deps.engine, f).catch((err) => deps.log.warn('follow-up failed', { err })) : Promise.resolve();

  return {
    async triggerFlow({ params, body, principal }: Ctx) {
      const b = (body ?? {}) as { inputs?: Record<string, unknown>; labels?: Record<string, string> };
      let created;
      try {
        created = await triggerFlow(db.pool, deps.engine, { namespace: params.namespace, flowId: params.flowId, inputs: b.inputs, labels: b.labels, triggerType: 'manual', createdBy: principal!.email });
      } catch (err) {
        engineError(err);
      }
      await follow(created.followUps);
      // The start statement's own result, when it created and started the execution alone (no second read).
      return reply(201, created.execution && !created.followUps.length ? created.execution : await one(created.id));
    },

    getExecution: ({ params }: Ctx) => one(params.executionId as string),

    async listExecutions({ query, cursor }: Ctx) {
      const q = query as { limit: number; state?: string; namespace?: string; flow?: string; label?: string[] };
      const after = cursor as { created_at: string; id: string } | undefined;
      // Every `label=key:value` (or key=value) must match.
      const labels: Record<string, string> = {};
      for (const l of q.label ?? []) {
        const m = /^([^=:]+)[=:](.*)$/.exec(l);
        if (!m) throw validationFailed([{ field: 'label', message: 'must be key:value' }]);
        labels[m[1]!] = m[2]!;
      }
      const flow = q.flow?.includes('/') ? q.flow.split('/') : null;
      const r = await db.pool.query<{ id: string; created_at: Date }>(
        `SELECT id, created_at FROM executions
         WHERE ($1::text IS NULL OR state = $1)
           AND ($2::text IS NULL OR namespace = $2 OR namespace LIKE $2 || '.%')
           AND ($3::text IS NULL OR (flow_id = $3 AND ($4::text IS NULL OR namespace = $4)))
           AND labels @> $5::jsonb
           AND ($6::timestamptz IS NULL OR (created_at, id) < ($6, $7))
         ORDER BY created_at DESC, id DESC LIMIT $8`,
        [q.state ?? null, q.namespace ?? null, flow ? flow[1] : (q.flow ?? null), flow ? flow[0] : null, JSON.stringify(labels), after?.created_at ?? null, after?.id ?? null, q.limit + 1],
      );
      const page = r.rows.slice(0, q.limit);
      const last = page[page.length - 1];
      return {
        items: await loadExecutions(db.pool, page.map((x) => x.id)),
        ...(r.rows.length > q.limit && last ? { next_cursor: encodeCursor({ created_at: last.created_at.toISOString(), id: last.id }) } : {}),
      };
    },

    async cancelExecution(ctx: Ctx) {
      const id = ctx.params.executionId as string;
      let out;
      try {
        out = await cancelExecution(db.pool, id, ctx.principal!.email, deps.now);
      } catch (err) {
        engineError(err);
      }
      await recordAudit(db.pool, { action: 'execution.cancel', ...auditContext(ctx), targetType: 'execution', targetId: id, details: { state: out.state }, at: deps.now() });
      await follow(out.followUps);
      return one(id);
    },

    async rerunExecution(ctx: Ctx) {
      const id = ctx.params.executionId as string;
      let created;
      try {
        created = await rerunExecution(db.pool, deps.engine, id, ctx.principal!.email);
      } catch (err) {
        engineError(err);
      }
      await recordAudit(db.pool, { action: 'execution.rerun', ...auditContext(ctx), targetType: 'execution', targetId: id, details: { new_execution_id: created.id }, at: deps.now() });
      await follow(created.followUps);
      return reply(201, await one(created.id));
    },

    async restartExecution(ctx: Ctx) {
      const id = ctx.params.executionId as string;
      let created;
      try {
        created = await restartExecution(db.pool, deps.engine, id, ctx.principal!.email);
      } catch (err) {
        engineError(err);
      }
      await recordAudit(db.pool, { action: 'execution.restart', ...auditContext(ctx), targetType: 'execution', targetId: id, details: { new_execution_id: created.id }, at: deps.now() });
      await follow(created.followUps);
      return reply(201, await one(created.id));
    },
  };
}

export { HttpError };
