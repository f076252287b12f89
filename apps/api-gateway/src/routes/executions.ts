// Executions: trigger, read, list, cancel, rerun, restart; approve and reject
// a task at its approval gate, pause and resume (extensions). Engine errors
// (unknown flow, disabled flow, bad inputs, ended execution...) become the
// envelope in the one error middleware (engine-errors.ts).
import type { Db } from '@svc/db';
import type { ApprovalGateSeen, Engine } from '@svc/engine';
import { forbidden, HttpError, notFound, reply, validationFailed, type ErrorDetail, type Handler, type OperationHandlers } from '@svc/http';
import { namespaceRole, recordAudit, userGroups } from '@svc/identity';
import { roleAtLeast, type Role } from '@svc/api-spec';
import type { AuthPrincipal } from '../identity/principal.js';
import { readScope, roleSubject } from '../identity/namespace-roles.js';
import { auditContext, startAudit } from './audit.js';
import type { Answer } from '@svc/api-spec';

export interface ExecutionRouteDeps {
  db: Db;
  now: () => Date;
  engine: Engine;
}

export function executionHandlers(deps: ExecutionRouteDeps) {
  const { db, engine } = deps;
  /** The audit event of a change to execution `id`, with the request's actor and address. */
  const audit = (ctx: Parameters<typeof auditContext>[0], action: string, id: string, details: Record<string, unknown>) =>
    recordAudit(db.pool, { action, ...auditContext(ctx), targetType: 'execution', targetId: id, details, at: deps.now() });
  const one = async (id: string) => {
    const [e] = await engine.executions.load([id]);
    if (!e) throw notFound(`no execution ${id}`, 'execution_not_found');
    return e;
  };

  /**
   * A decision on a task's approval gate: the engine checks, under the
   * execution's lock, that the task waits, then this check runs (who may
   * decide, the form), then the decision applies and the execution is planned.
   */
  const decide = async (ctx: DecisionContext, kind: 'approve' | 'reject') => {
    const { executionId, taskKey } = ctx.params;
    const p = ctx.principal;
    const inputs = kind === 'approve' ? (ctx.body?.inputs ?? {}) : {};
    const comment = ctx.body?.comment ?? '';
    let gate: ApprovalGateSeen | undefined;
    await engine.executions.decide(executionId, taskKey, { kind, by: p.email, inputs, comment }, async (g) => {
      gate = g;
      await checkApprover(g, p);
      if (kind === 'approve') checkForm(g, inputs);
    });
    // Form field names and the comment's length only: the values stay on the task run.
    await audit(ctx, `execution.${kind}`, executionId, {
      namespace: gate!.namespace,
      flow_id: gate!.flowId,
      task: taskKey,
      input_keys: Object.keys(inputs).sort(),
      comment_length: comment.length,
    });
    return one(executionId);
  };

  /** Whether `p` may decide gate `g`: its role on the namespace reaches the gate's role, or it is in one of its groups; never who started it when the gate forbids it. */
  const checkApprover = async (g: ApprovalGateSeen, p: AuthPrincipal) => {
    if (g.approval.forbid_self_approval && g.startedBy === p.email) {
      throw forbidden('You started this execution, and its approval gate forbids self-approval: another approver must decide');
    }
    const need = g.approval.approvers.role as Role;
    const role = await namespaceRole(db.pool, roleSubject(p), g.namespace);
    if (roleAtLeast(role, need)) return;
    const groups = g.approval.approvers.groups;
    if (groups.length && (await userGroups(db.pool, p.userId)).some((x) => groups.includes(x))) return;
    throw forbidden(`Approving this task needs the ${need} role on namespace ${g.namespace}${groups.length ? ` or membership of ${groups.join(', ')}` : ''}`);
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

    async triggerFlowBatch(ctx) {
      const { params, principal } = ctx;
      const items = ctx.body.items;
      const dryRun = ctx.body.dry_run === true;
      const executions = await engine.executions.triggerBatch({
        dryRun,
        namespace: params.namespace,
        flowId: params.flowId,
        items,
        triggerType: 'manual',
        createdBy: principal.email,
        // One event per execution, as triggerFlow writes; input names only: a value may be a secret.
        audit: (i) =>
          startAudit(ctx, 'execution.trigger', {
            namespace: params.namespace,
            flow_id: params.flowId,
            trigger_type: 'manual',
            input_keys: Object.keys(items[i]?.inputs ?? {}).sort(),
            batch_size: items.length,
            batch_index: i,
          }),
      });
      const answer = { executions, dry_run: dryRun, count: items.length } as Answer<'triggerFlowBatch'>;
      return dryRun ? answer : reply(201, answer);
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
        ...(q.state ? { states: [q.state] } : {}),
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
        ...(rows.length > q.limit && last ? { next_cursor: encodeCursor({ created_at: last.created_key, id: last.id }) } : {}),
      } satisfies Answer<'listExecutions'>;
    },

    async cancelExecution(ctx) {
      const id = ctx.params.executionId;
      const out = await engine.executions.cancel(id, ctx.principal.email);
      const e = await one(id);
      await audit(ctx, 'execution.cancel', id, { namespace: e.namespace, flow_id: e.flow_id, state: out.state });
      return e;
    },

    async approveTaskRun(ctx) {
      return decide(ctx, 'approve');
    },

    async rejectTaskRun(ctx) {
      return decide(ctx, 'reject');
    },

    async pauseExecution(ctx) {
      const id = ctx.params.executionId;
      await engine.executions.pause(id, ctx.principal.email);
      const e = await one(id);
      await audit(ctx, 'execution.pause', id, { namespace: e.namespace, flow_id: e.flow_id });
      return e;
    },

    async resumeExecution(ctx) {
      const id = ctx.params.executionId;
      await engine.executions.resume(id);
      const e = await one(id);
      await audit(ctx, 'execution.resume', id, { namespace: e.namespace, flow_id: e.flow_id });
      return e;
    },

    async rerunExecution(ctx) {
      const id = ctx.params.executionId;
      const created = await engine.executions.rerun(id, ctx.principal.email);
      const e = await one(created.id);
      await audit(ctx, 'execution.rerun', id, { namespace: e.namespace, flow_id: e.flow_id, new_execution_id: created.id });
      return reply(201, e);
    },

    async restartExecution(ctx) {
      const id = ctx.params.executionId;
      const created = await engine.executions.restart(id, ctx.principal.email);
      const e = await one(created.id);
      await audit(ctx, 'execution.restart', id, { namespace: e.namespace, flow_id: e.flow_id, new_execution_id: created.id });
      return reply(201, e);
    },
  } satisfies OperationHandlers<AuthPrincipal>;
}

type DecisionContext = Parameters<Handler<AuthPrincipal, 'approveTaskRun'>>[0];

/** The form values of an approval against its form: required fields given, each of its field's type, no other field. */
function checkForm(g: ApprovalGateSeen, inputs: Record<string, unknown>): void {
  const problems: ErrorDetail[] = [];
  const fields = new Map(g.approval.form.map((f) => [f.id, f]));
  for (const f of g.approval.form) {
    const v = inputs[f.id];
    if (v === undefined || v === null || v === '') {
      if (f.required) problems.push({ field: `inputs.${f.id}`, message: `${f.id} is required` });
      continue;
    }
    if (typeof v !== f.type) problems.push({ field: `inputs.${f.id}`, message: `${f.id} must be a ${f.type}, got ${Array.isArray(v) ? 'array' : typeof v}` });
  }
  for (const k of Object.keys(inputs)) if (!fields.has(k)) problems.push({ field: `inputs.${k}`, message: `${k} is not a field of this approval's form` });
  if (problems.length) throw validationFailed(problems);
}

export { HttpError };
