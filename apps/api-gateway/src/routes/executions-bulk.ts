// bulkExecutions: cancel, rerun or restart the executions a filter selects,
// among those whose namespace the caller holds the operator role on (the role
// check lets in whoever holds it somewhere: @svc/http roles.ts), or count them
// with a dry run. The selection reads listExecutions' filter; the action is
// bulk-actions.ts. Each changed execution gets the audit event its single
// action writes, and the request one `execution.bulk` event.
import { newId, type Db } from '@svc/db';
import type { Engine, ExecutionFilter } from '@svc/engine';
import { validationFailed, ValidationFailedError, type OperationHandlers } from '@svc/http';
import { namespacesWithRole, recordAudits, type AuditRecord } from '@svc/identity';
import { schemas, type Answer, type Schemas } from '@svc/api-spec';
import type { AuthPrincipal } from '../identity/principal.js';
import { roleSubject } from '../identity/namespace-roles.js';
import { refusal, runBulk, selectForBulk, type BulkDone } from '../bulk-actions.js';
import { auditContext } from './audit.js';

export interface BulkRouteDeps {
  db: Db;
  now: () => Date;
  engine: Engine;
}

/** The engine's filter from the request's, within the namespaces the caller may act on; a 422 for an empty filter or a reversed range. */
export function engineFilter(f: Schemas['BulkExecutionFilter'], within: string[] | null): ExecutionFilter {
  const labels = f.labels ?? {};
  const given = [f.namespace, f.flow_id, f.from, f.to].some((v) => v !== undefined) || (f.state?.length ?? 0) > 0 || Object.keys(labels).length > 0;
  if (!given)
    throw validationFailed([{ field: 'filter', message: 'is empty: name a namespace, a flow, states, labels or a time range (an empty filter would act on every execution)' }]);
  const from = f.from === undefined ? undefined : new Date(f.from);
  const to = f.to === undefined ? undefined : new Date(f.to);
  if (from && to && from >= to) throw validationFailed([{ field: 'filter.to', message: 'must be after filter.from' }]);
  // `namespace/flow` is one namespace's flow; a bare id, that flow in every namespace selected (as listExecutions' `flow`).
  const slash = f.flow_id?.indexOf('/') ?? -1;
  return {
    ...(within ? { within } : {}),
    ...(f.state?.length ? { states: f.state } : {}),
    ...(f.namespace !== undefined ? { namespace: f.namespace } : {}),
    ...(f.flow_id !== undefined ? (slash >= 0 ? { flowNamespace: f.flow_id.slice(0, slash), flowId: f.flow_id.slice(slash + 1) } : { flowId: f.flow_id }) : {}),
    labels,
    ...(from ? { createdFrom: from } : {}),
    ...(to ? { createdTo: to } : {}),
  };
}

export function bulkExecutionHandlers(deps: BulkRouteDeps) {
  const { db, engine } = deps;
  const limit = schemas.BULK_EXECUTIONS_LIMIT;
  return {
    async bulkExecutions(ctx) {
      const { action, filter } = ctx.body;
      const dryRun = ctx.body.dry_run === true;
      // Null: the caller holds operator everywhere; else the namespaces (with their children) where it does.
      const within = await namespacesWithRole(db.pool, roleSubject(ctx.principal), 'operator');
      const f = engineFilter(filter, within);
      const sel = await selectForBulk(engine, action, f, limit);
      if (dryRun) {
        return {
          action,
          dry_run: true,
          matched: sel.matched,
          limit,
          eligible: sel.eligible,
          ineligible: sel.rows.flatMap((r) => {
            const no = refusal(action, r.state);
            return no ? [{ execution_id: r.id, namespace: r.namespace, flow_id: r.flow_id, state: r.state, reason: no.code, message: no.message }] : [];
          }),
        } satisfies Answer<'bulkExecutions'>;
      }
      if (sel.matched > limit) {
        const n = sel.matched.toLocaleString('en');
        throw new ValidationFailedError(
          [{ field: 'filter', message: `matches ${n} executions, more than the ${limit.toLocaleString('en')} one bulk action may take: narrow it (states, labels, a time range)` }],
          `The filter matches ${n} executions; a bulk action takes at most ${limit.toLocaleString('en')}`,
        );
      }
      const bulkId = newId();
      const at = () => deps.now();
      const who = auditContext(ctx);
      const audit = (done: BulkDone[]) =>
        recordAudits(
          db.pool,
          done.map(({ row, outcome }): AuditRecord => ({
            action: `execution.${action}`,
            ...who,
            targetType: 'execution',
            targetId: row.id,
            // As the single action's event, with the bulk request it was part of.
            details: {
              namespace: row.namespace,
              flow_id: row.flow_id,
              ...(outcome.state ? { state: outcome.state } : {}),
              ...(outcome.new_execution_id ? { new_execution_id: outcome.new_execution_id } : {}),
              bulk_id: bulkId,
            },
            at: at(),
          })),
        );
      const results = await runBulk(engine, { action, rows: sel.rows, actor: ctx.principal.email, log: ctx.log, audit });
      const ok = results.filter((r) => r.ok).length;
      await recordAudits(db.pool, [
        {
          id: bulkId,
          action: 'execution.bulk',
          ...who,
          details: { action, filter, matched: sel.matched, succeeded: ok, failed: results.length - ok },
          at: at(),
        },
      ]);
      return { action, dry_run: false, matched: sel.matched, limit, eligible: sel.eligible, results } satisfies Answer<'bulkExecutions'>;
    },
  } satisfies OperationHandlers<AuthPrincipal>;
}
