// Replay (an extension, docs/using/executions.md#replay): a new execution of
// an ended one with inputs and labels changed, from a task, on the pinned or
// the latest revision; `dry_run` answers the plan. The role check (operator
// on the execution's namespace, role bindings included) is the catalogue's,
// before the handler runs; engine errors become the envelope in the one
// error middleware (engine-errors.ts).
import type { Db } from '@svc/db';
import type { Engine, ReplayPlan } from '@svc/engine';
import { notFound, reply, type OperationHandlers } from '@svc/http';
import { recordAudit } from '@svc/identity';
import type { Answer } from '@svc/api-spec';
import type { AuthPrincipal } from '../identity/principal.js';
import { auditContext } from './audit.js';

export interface ReplayRouteDeps {
  db: Db;
  now: () => Date;
  engine: Engine;
}

/** The API's plan: the engine's without the original's namespace and flow. */
const apiPlan = (p: ReplayPlan): Answer<'replayExecution', 200> => ({
  reuse: p.reuse,
  run: p.run,
  inputs: p.inputs,
  labels: p.labels,
  changed_inputs: p.changed_inputs,
  revision: p.revision,
});

export function replayHandlers(deps: ReplayRouteDeps) {
  const { db, engine } = deps;
  return {
    async replayExecution(ctx) {
      const id = ctx.params.executionId;
      const { dry_run, ...req } = ctx.body ?? {};
      const actor = ctx.principal.email;
      if (dry_run) return apiPlan(await engine.executions.planReplay(id, req, actor));
      const started = await engine.executions.replay(id, req, actor);
      const [e] = started.execution ? [started.execution] : await engine.executions.load([started.id]);
      if (!e) throw notFound(`no execution ${started.id}`, 'execution_not_found');
      // Which inputs changed, never their values (one may come from a secret).
      await recordAudit(db.pool, {
        action: 'execution.replay',
        ...auditContext(ctx),
        targetType: 'execution',
        targetId: id,
        details: {
          namespace: started.plan.namespace,
          flow_id: started.plan.flow_id,
          new_execution_id: started.id,
          revision: started.plan.revision.kind,
          ...(req.from !== undefined ? { from: req.from } : {}),
          changed_inputs: started.plan.changed_inputs,
          reused_tasks: started.plan.reuse.map((r) => r.task_id),
        },
        at: deps.now(),
      });
      return reply(201, e);
    },
  } satisfies OperationHandlers<AuthPrincipal>;
}
