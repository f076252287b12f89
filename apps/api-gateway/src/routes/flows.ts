// Flows as their files define them: list, get, enable/disable, revisions, diffs.
import type { Db } from '@svc/db';
import { boundedPatch, findFlow, findFlowRevision, listFlowRevisions, listFlows, setFlowEnabled, type FlowRow, type RevisionRow } from '@svc/namespaces';
import type { MasterKey } from '@svc/config';
import { notFound, roleAtLeast, validationFailed, type OperationHandlers } from '@svc/http';
import { recordAudit } from '@svc/identity';
import type { AuthPrincipal } from '../identity/principal.js';
import { readScope } from '../identity/namespace-roles.js';
import { auditContext } from './audit.js';
import { triggersWithWebhookKeys } from './webhook-keys.js';
import type { Answer, Schemas } from '@svc/api-spec';

function summary(f: FlowRow): Schemas['FlowSummary'] {
  const def = f.definition as { triggers?: { id: string; type: string }[]; tasks?: unknown[] } | null;
  return {
    namespace: f.namespace,
    id: f.flow_id,
    path: f.path,
    enabled: f.enabled,
    description: f.description,
    labels: f.labels,
    revision: f.revision,
    revision_id: f.current_revision_id,
    task_count: def?.tasks?.length ?? 0,
    triggers: (def?.triggers ?? []).map((t) => ({ id: t.id, type: t.type })),
    created_at: f.created_at.toISOString(),
    updated_at: f.updated_at.toISOString(),
  };
}

function revisionBody(r: RevisionRow): Schemas['FlowRevision'] {
  return {
    id: r.id,
    revision: r.revision,
    hash: r.hash,
    namespace_version: r.namespace_version,
    created_by: r.created_by,
    created_at: r.created_at.toISOString(),
    source: r.source_yaml,
    // The flow as it was saved, so it passed the flow schema (@svc/flow-schema).
    definition: r.definition as Schemas['FlowFile'],
  };
}

/** The live flow, or 404 `not_found`. */
export async function requireFlow(db: Db, namespace: string, flowId: string): Promise<FlowRow> {
  const f = await findFlow(db.prisma, namespace, flowId);
  if (!f) throw notFound(`no flow ${namespace}/${flowId}`);
  return f;
}

export function flowHandlers(deps: { db: Db; now: () => Date; masterKeys?: readonly MasterKey[]; publicUrl?: string }) {
  const { db } = deps;
  const flowOrThrow = (namespace: string, flowId: string) => requireFlow(db, namespace, flowId);

  async function revisionById(namespace: string, flowId: string, id: string): Promise<RevisionRow> {
    const r = await findFlowRevision(db.prisma, namespace, flowId, id);
    if (!r) throw notFound(`no revision ${id} of flow ${namespace}/${flowId}`);
    return r;
  }

  return {
    async listFlows({ query, cursor: after, principal, encodeCursor }) {
      const q = query;
      const within = await readScope(db.pool, principal);
      const rows = await listFlows(db.prisma, {
        limit: q.limit,
        ...(within ? { within } : {}),
        ...(q.namespace !== undefined ? { namespace: q.namespace } : {}),
        ...(q.q !== undefined ? { q: q.q } : {}),
        ...(after ? { after } : {}),
      });
      const page = rows.slice(0, q.limit);
      const last = page[page.length - 1];
      return {
        items: page.map(summary),
        ...(rows.length > q.limit && last ? { next_cursor: encodeCursor({ namespace: last.namespace, flow_id: last.flow_id }) } : {}),
      } satisfies Answer<'listFlows'>;
    },

    async getFlow({ params, principal }) {
      const f = await flowOrThrow(params.namespace, params.flowId);
      const view = summary(f);
      // Editors see the key and URL of each webhook trigger (see webhook-keys.ts).
      const triggers = roleAtLeast(principal.role, 'editor')
        ? await triggersWithWebhookKeys(
            { pool: db.pool, masterKeys: deps.masterKeys ?? [], publicUrl: deps.publicUrl ?? '', now: deps.now },
            f.namespace,
            f.flow_id,
            view.triggers ?? [],
          )
        : view.triggers;
      // A flow without a current revision has no text and no definition: both are left out, not null.
      return {
        ...view,
        triggers,
        ...(f.definition ? { definition: f.definition as Schemas['FlowFile'] } : {}),
        ...(f.source_yaml !== null ? { source: f.source_yaml } : {}),
      } satisfies Answer<'getFlow'>;
    },

    async updateFlow(ctx) {
      const { params } = ctx;
      const { enabled } = ctx.body;
      await flowOrThrow(params.namespace, params.flowId);
      const now = deps.now();
      await setFlowEnabled(db.prisma, params.namespace, params.flowId, enabled, now);
      await recordAudit(db.prisma, {
        action: enabled ? 'flow.enable' : 'flow.disable',
        ...auditContext(ctx),
        targetType: 'flow',
        targetId: `${params.namespace}/${params.flowId}`,
        details: { namespace: params.namespace, flow_id: params.flowId },
        at: now,
      });
      return summary(await flowOrThrow(params.namespace, params.flowId));
    },

    async listFlowRevisions({ params, query, cursor, encodeCursor }) {
      const q = query;
      await flowOrThrow(params.namespace, params.flowId);
      const before = cursor?.revision ?? null;
      const rows = await listFlowRevisions(db.prisma, params.namespace, params.flowId, { limit: q.limit, ...(before !== null ? { beforeRevision: before } : {}) });
      const page = rows.slice(0, q.limit);
      return {
        items: page.map((x) => ({ ...revisionBody(x), source: undefined, definition: undefined })),
        ...(rows.length > q.limit ? { next_cursor: encodeCursor({ revision: page[page.length - 1].revision }) } : {}),
      } satisfies Answer<'listFlowRevisions'>;
    },

    getFlowRevision: async ({ params }) => revisionBody(await revisionById(params.namespace, params.flowId, params.revisionId)),

    async diffFlowRevisions({ params, query }) {
      const q = query;
      const f = await flowOrThrow(params.namespace, params.flowId);
      const to = q.to ?? f.current_revision_id;
      if (!to) throw validationFailed([{ field: 'to', message: 'the flow has no revision' }]);
      const [a, b] = [await revisionById(params.namespace, params.flowId, q.from), await revisionById(params.namespace, params.flowId, to)];
      const diff = await boundedPatch(`a/${f.path}`, `b/${f.path}`, a.source_yaml, b.source_yaml, `revision ${a.revision}`, `revision ${b.revision}`);
      return {
        from: { id: a.id, revision: a.revision },
        to: { id: b.id, revision: b.revision },
        ...(diff === undefined ? { too_large: true } : { diff }),
      } satisfies Answer<'diffFlowRevisions'>;
    },
  } satisfies OperationHandlers<AuthPrincipal>;
}
