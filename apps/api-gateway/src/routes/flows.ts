// Flows as their files define them: list, get, enable/disable, revisions, diffs.
import type { Db } from '@svc/db';
import { boundedPatch } from '@svc/namespaces';
import type { MasterKey } from '@svc/config';
import { encodeCursor, notFound, roleAtLeast, validationFailed, type HandlerContext, type OperationHandlers } from '@svc/http';
import { recordAudit } from '@svc/identity';
import type { AuthPrincipal } from '../identity/principal.js';
import { auditContext } from './audit.js';
import { triggersWithWebhookKeys } from './webhook-keys.js';

type Ctx = HandlerContext<AuthPrincipal>;

interface FlowRow {
  namespace: string;
  flow_id: string;
  path: string;
  enabled: boolean;
  description: string;
  labels: Record<string, string>;
  revision_count: number;
  current_revision_id: string | null;
  created_at: Date;
  updated_at: Date;
  revision: number | null;
  definition: Record<string, unknown> | null;
  source_yaml: string | null;
}

interface RevisionRow {
  id: string;
  revision: number;
  source_yaml: string;
  definition: Record<string, unknown>;
  hash: string;
  namespace_version: number | null;
  created_by: string;
  created_at: Date;
}

const FLOW_SELECT = `SELECT f.namespace, f.flow_id, f.path, f.enabled, f.description, f.labels, f.revision_count, f.current_revision_id,
                            f.created_at, f.updated_at, r.revision, r.definition, r.source_yaml
                     FROM flows f LEFT JOIN flow_revisions r ON r.id = f.current_revision_id`;

function summary(f: FlowRow) {
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

function revisionBody(r: RevisionRow) {
  return {
    id: r.id,
    revision: r.revision,
    hash: r.hash,
    namespace_version: r.namespace_version,
    created_by: r.created_by,
    created_at: r.created_at.toISOString(),
    source: r.source_yaml,
    definition: r.definition,
  };
}

export function flowHandlers(deps: { db: Db; now: () => Date; masterKeys?: readonly MasterKey[]; publicUrl?: string }): OperationHandlers<AuthPrincipal> {
  const { db } = deps;

  async function flowOrThrow(namespace: string, flowId: string): Promise<FlowRow> {
    const r = await db.pool.query<FlowRow>(`${FLOW_SELECT} WHERE f.namespace = $1 AND f.flow_id = $2 AND f.deleted_at IS NULL`, [namespace, flowId]);
    if (!r.rows[0]) throw notFound(`no flow ${namespace}/${flowId}`);
    return r.rows[0];
  }

  async function revisionById(namespace: string, flowId: string, id: string): Promise<RevisionRow> {
    const r = await db.pool.query<RevisionRow>(
      `SELECT r.id, r.revision, r.source_yaml, r.definition, r.hash, v.version AS namespace_version, r.created_by, r.created_at
       FROM flow_revisions r LEFT JOIN namespace_versions v ON v.id = r.namespace_version_id
       WHERE r.namespace = $1 AND r.flow_id = $2 AND (r.id = $3 OR r.revision::text = $3)`,
      [namespace, flowId, id],
    );
    if (!r.rows[0]) throw notFound(`no revision ${id} of flow ${namespace}/${flowId}`);
    return r.rows[0];
  }

  return {
    async listFlows({ query, cursor }: Ctx) {
      const q = query as { limit: number; namespace?: string; q?: string };
      const after = cursor as { namespace: string; flow_id: string } | undefined;
      const r = await db.pool.query<FlowRow>(
        `${FLOW_SELECT}
         WHERE f.deleted_at IS NULL
           AND ($1::text IS NULL OR f.namespace = $1 OR f.namespace LIKE $1 || '.%')
           AND ($2::text IS NULL OR f.flow_id ILIKE '%' || $2 || '%' OR f.description ILIKE '%' || $2 || '%')
           AND ($3::text IS NULL OR (f.namespace, f.flow_id) > ($3, $4))
         ORDER BY f.namespace, f.flow_id LIMIT $5`,
        [q.namespace ?? null, q.q ?? null, after?.namespace ?? null, after?.flow_id ?? null, q.limit + 1],
      );
      const page = r.rows.slice(0, q.limit);
      const last = page[page.length - 1];
      return { items: page.map(summary), ...(r.rows.length > q.limit && last ? { next_cursor: encodeCursor({ namespace: last.namespace, flow_id: last.flow_id }) } : {}) };
    },

    async getFlow({ params, principal }: Ctx) {
      const f = await flowOrThrow(params.namespace, params.flowId);
      const view = summary(f);
      // Editors see the key and URL of each webhook trigger (see webhook-keys.ts).
      const triggers = roleAtLeast(principal!.role, 'editor')
        ? await triggersWithWebhookKeys({ pool: db.pool, masterKeys: deps.masterKeys ?? [], publicUrl: deps.publicUrl ?? '', now: deps.now }, f.namespace, f.flow_id, view.triggers)
        : view.triggers;
      return { ...view, triggers, definition: f.definition, source: f.source_yaml };
    },

    async updateFlow(ctx: Ctx) {
      const { params } = ctx;
      const { enabled } = ctx.body as { enabled: boolean };
      await flowOrThrow(params.namespace, params.flowId);
      const now = deps.now();
      await db.pool.query(`UPDATE flows SET enabled = $3, updated_at = $4 WHERE namespace = $1 AND flow_id = $2`, [params.namespace, params.flowId, enabled, now]);
      await recordAudit(db.pool, { action: enabled ? 'flow.enable' : 'flow.disable', ...auditContext(ctx), targetType: 'flow', targetId: `${params.namespace}/${params.flowId}`, at: now });
      return summary(await flowOrThrow(params.namespace, params.flowId));
    },

    async listFlowRevisions({ params, query, cursor }: Ctx) {
      const q = query as { limit: number };
      await flowOrThrow(params.namespace, params.flowId);
      const before = (cursor as { revision?: number } | undefined)?.revision ?? null;
      const r = await db.pool.query<RevisionRow>(
        `SELECT r.id, r.revision, r.source_yaml, r.definition, r.hash, v.version AS namespace_version, r.created_by, r.created_at
         FROM flow_revisions r LEFT JOIN namespace_versions v ON v.id = r.namespace_version_id
         WHERE r.namespace = $1 AND r.flow_id = $2 AND ($3::int IS NULL OR r.revision < $3) ORDER BY r.revision DESC LIMIT $4`,
        [params.namespace, params.flowId, before, q.limit + 1],
      );
      const page = r.rows.slice(0, q.limit);
      return {
        items: page.map((x) => ({ ...revisionBody(x), source: undefined, definition: undefined })),
        ...(r.rows.length > q.limit ? { next_cursor: encodeCursor({ revision: page[page.length - 1]!.revision }) } : {}),
      };
    },

    getFlowRevision: async ({ params }: Ctx) => revisionBody(await revisionById(params.namespace, params.flowId, params.revisionId as string)),

    async diffFlowRevisions({ params, query }: Ctx) {
      const q = query as { from: string; to?: string };
      const f = await flowOrThrow(params.namespace, params.flowId);
      const to = q.to ?? f.current_revision_id;
      if (!to) throw validationFailed([{ field: 'to', message: 'the flow has no revision' }]);
      const [a, b] = [await revisionById(params.namespace, params.flowId, q.from), await revisionById(params.namespace, params.flowId, to)];
      const diff = await boundedPatch(`a/${f.path}`, `b/${f.path}`, a.source_yaml, b.source_yaml, `revision ${a.revision}`, `revision ${b.revision}`);
      return { from: { id: a.id, revision: a.revision }, to: { id: b.id, revision: b.revision }, ...(diff === undefined ? { too_large: true } : { diff }) };
    },
  };
}
