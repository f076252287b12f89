// Alert rules (docs/using/alerts.md; beyond the spec's operation index, see
// EXTENSION_OPERATION_IDS): CRUD on alert_rules and the deliveries that
// @svc/alerts' scanner and deliverer (run by maintenance) made of them, with their
// attempts. A channel names secrets (the webhook's signing key, the Slack
// URL), never holds one; changes are audited with the rule's fields, which
// are names and addresses only. An email channel sends as an organization's
// verified sender, so it may name only an organization that lists the rule's
// namespace (@svc/alerts ruleProblems; the deliverer checks again before
// sending), and a namespace holds at most SVC_ALERT_RULES_PER_NAMESPACE rules.
import type { Db } from '@svc/db';
import { newId } from '@svc/db';
import { alertDeliveryPage, createAlertRule, deleteAlertRule, lockAndCountAlertRules, ruleProblems, updateAlertRule } from '@svc/alerts';
import type { components } from '@svc/api-spec';
import { notFound, reply, validationFailed, type HandlerContext, type OperationHandlers } from '@svc/http';
import { recordAudit } from '@svc/identity';
import { inNamespaces, namespaceExists } from '@svc/namespaces';
import type { AuthPrincipal } from '../identity/principal.js';
import { readScope } from '../identity/namespace-roles.js';
import { auditContext } from './audit.js';

type Ctx = HandlerContext<AuthPrincipal>;
type AlertRule = components['schemas']['AlertRule'];
type AlertChannel = AlertRule['channels'][number];
type AlertDelivery = components['schemas']['AlertDelivery'];

export interface AlertRouteDeps {
  db: Db;
  now: () => Date;
  /** SVC_ALERT_ALLOW_PRIVATE_TARGETS: a webhook URL may name a loopback or private address. */
  allowPrivateTargets: boolean;
  /** SVC_ALERT_RULES_PER_NAMESPACE: rules one namespace may hold. */
  rulesPerNamespace: number;
}

interface RuleRow {
  id: string;
  name: string;
  namespace: string;
  flowId: string | null;
  events: string[];
  lateAfterSeconds: number | null;
  scheduleGraceSeconds: number | null;
  channels: unknown;
  rateLimitPerHour: number;
  enabled: boolean;
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
}

function ruleBody(r: RuleRow): AlertRule {
  return {
    id: r.id,
    name: r.name,
    namespace: r.namespace,
    flow_id: r.flowId,
    events: r.events as AlertRule['events'],
    late_after_seconds: r.lateAfterSeconds,
    schedule_grace_seconds: r.scheduleGraceSeconds,
    channels: r.channels as AlertChannel[],
    rate_limit_per_hour: r.rateLimitPerHour,
    enabled: r.enabled,
    created_by: r.createdBy,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
  };
}

/** 422 with every problem @svc/alerts finds in a rule (ruleProblems: what the schema cannot say). */
async function check(
  db: Db,
  allowPrivateTargets: boolean,
  r: { namespace: string; events: string[]; late_after_seconds: number | null; schedule_grace_seconds: number | null; channels: AlertChannel[] },
  judgeOrganizations = true,
): Promise<void> {
  const problems = await ruleProblems(db.prisma, allowPrivateTargets, r, judgeOrganizations);
  if (problems.length) throw validationFailed(problems);
}

/** 422 on `namespace` when it does not exist: the cap counts rules per namespace, and only admins make namespaces. */
async function namespaceOrThrow(db: Db, namespace: string): Promise<void> {
  if (!(await namespaceExists(db.prisma, namespace))) throw validationFailed([{ field: 'namespace', message: `no namespace ${namespace}` }]);
}

export function alertHandlers(deps: AlertRouteDeps) {
  const prisma = deps.db.prisma;
  /** Refuses a rule the namespace has no room for; run in the transaction that writes the rule. */
  const withinCap = async (tx: Parameters<typeof lockAndCountAlertRules>[0], namespace: string, exceptId?: string) => {
    const n = await lockAndCountAlertRules(tx, namespace, exceptId);
    if (n >= deps.rulesPerNamespace)
      throw validationFailed([
        {
          field: 'namespace',
          message: `namespace ${namespace} holds ${n} alert rules, the most SVC_ALERT_RULES_PER_NAMESPACE allows (${deps.rulesPerNamespace}): delete one first`,
        },
      ]);
  };
  const find = async (id: string): Promise<RuleRow> => {
    const r = await prisma.alertRule.findUnique({ where: { id } });
    if (!r) throw notFound(`no alert rule ${id}`);
    return r;
  };
  const audit = (ctx: Ctx, action: string, r: RuleRow) =>
    recordAudit(deps.db.pool, {
      action,
      ...auditContext(ctx),
      targetType: 'alert_rule',
      targetId: r.id,
      details: { name: r.name, namespace: r.namespace, flow_id: r.flowId, events: r.events, channels: r.channels, enabled: r.enabled },
      at: deps.now(),
    });

  return {
    async listAlertRules({ query, cursor: c, principal, encodeCursor }) {
      const { limit } = query;
      // A caller who may read only some namespaces (through role bindings, docs/operating/roles.md) sees only their rules.
      const within = await readScope(deps.db.pool, principal);
      const rows = await prisma.alertRule.findMany({
        where: {
          AND: [c ? { OR: [{ createdAt: { lt: new Date(c.created_at) } }, { createdAt: new Date(c.created_at), id: { lt: c.id } }] } : {}, within ? inNamespaces(within) : {}],
        },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        take: limit + 1,
      });
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      return { items: page.map(ruleBody), ...(rows.length > limit && last ? { next_cursor: encodeCursor({ created_at: last.createdAt.toISOString(), id: last.id }) } : {}) };
    },

    async createAlertRule(ctx) {
      const b = ctx.body;
      const fields = {
        namespace: b.namespace,
        events: b.events,
        late_after_seconds: b.late_after_seconds ?? null,
        schedule_grace_seconds: b.schedule_grace_seconds ?? null,
        channels: b.channels,
      };
      await namespaceOrThrow(deps.db, b.namespace);
      await check(deps.db, deps.allowPrivateTargets, fields);
      const now = deps.now();
      const r = await createAlertRule(
        prisma,
        {
          id: newId(),
          name: b.name,
          namespace: b.namespace,
          flowId: b.flow_id ?? null,
          events: b.events,
          lateAfterSeconds: fields.late_after_seconds,
          scheduleGraceSeconds: fields.schedule_grace_seconds,
          channels: b.channels,
          rateLimitPerHour: b.rate_limit_per_hour ?? 20,
          enabled: b.enabled ?? true,
          createdBy: ctx.principal?.userId ?? '',
          createdAt: now,
          updatedAt: now,
        },
        (tx) => withinCap(tx, b.namespace),
      );
      await audit(ctx, 'alert_rule.create', r);
      return reply(201, ruleBody(r));
    },

    async getAlertRule({ params }) {
      return ruleBody(await find(params.ruleId));
    },

    async updateAlertRule(ctx) {
      const { ruleId } = ctx.params;
      const b = ctx.body;
      const old = await find(ruleId);
      const merged = {
        namespace: b.namespace ?? old.namespace,
        events: b.events ?? old.events,
        late_after_seconds: b.late_after_seconds !== undefined ? b.late_after_seconds : old.lateAfterSeconds,
        schedule_grace_seconds: b.schedule_grace_seconds !== undefined ? b.schedule_grace_seconds : old.scheduleGraceSeconds,
        channels: b.channels ?? (old.channels as AlertChannel[]),
      };
      const moved = merged.namespace !== old.namespace;
      if (moved) await namespaceOrThrow(deps.db, merged.namespace);
      // A rule whose organization no longer allows its namespace can still be disabled or renamed: maintenance sends nothing for it anyway.
      await check(deps.db, deps.allowPrivateTargets, merged, moved || b.channels !== undefined);
      const r = await updateAlertRule(
        prisma,
        ruleId,
        {
          ...(b.name !== undefined ? { name: b.name } : {}),
          ...(b.namespace !== undefined ? { namespace: b.namespace } : {}),
          ...(b.flow_id !== undefined ? { flowId: b.flow_id } : {}),
          events: merged.events,
          lateAfterSeconds: merged.late_after_seconds,
          scheduleGraceSeconds: merged.schedule_grace_seconds,
          channels: merged.channels,
          ...(b.rate_limit_per_hour !== undefined ? { rateLimitPerHour: b.rate_limit_per_hour } : {}),
          ...(b.enabled !== undefined ? { enabled: b.enabled } : {}),
          updatedAt: deps.now(),
        },
        moved ? (tx) => withinCap(tx, merged.namespace, ruleId) : undefined,
      );
      await audit(ctx, 'alert_rule.update', r);
      return ruleBody(r);
    },

    async deleteAlertRule(ctx) {
      const { ruleId } = ctx.params;
      const r = await find(ruleId);
      if (!(await deleteAlertRule(prisma, ruleId))) throw notFound(`no alert rule ${ruleId}`);
      await audit(ctx, 'alert_rule.delete', r);
      return reply(204);
    },

    async listAlertDeliveries({ params, query, cursor: c, encodeCursor }) {
      const { ruleId } = params;
      const { limit } = query;
      await find(ruleId);
      // The page's keys by hand-written SQL (the cursor keeps microseconds, which a Prisma `where` cannot), its rows by Prisma.
      const keys = await alertDeliveryPage(deps.db.pool, ruleId, limit + 1, c);
      const shown = keys.slice(0, limit);
      const last = shown[shown.length - 1];
      const page = await prisma.alertDelivery.findMany({
        where: { id: { in: shown.map((k) => k.id) } },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        include: { attemptsLog: { orderBy: { number: 'asc' } } },
      });
      const items: AlertDelivery[] = page.map((d) => ({
        id: d.id,
        rule_id: d.ruleId,
        event: d.event as AlertDelivery['event'],
        subject: d.subject,
        execution_id: d.executionId,
        namespace: d.namespace,
        flow_id: d.flowId,
        channel: d.channel,
        channel_type: d.channelType as AlertDelivery['channel_type'],
        target: d.target,
        status: d.status as AlertDelivery['status'],
        attempts: d.attempts,
        error: d.error,
        next_attempt_at: d.status === 'pending' ? d.nextAttemptAt.toISOString() : null,
        created_at: d.createdAt.toISOString(),
        delivered_at: d.deliveredAt?.toISOString() ?? null,
        attempt_log: d.attemptsLog.map((a) => ({
          number: a.number,
          at: a.at.toISOString(),
          ok: a.ok,
          http_status: a.httpStatus,
          detail: a.detail,
          duration_ms: a.durationMs,
          instance_id: a.instanceId,
        })),
      }));
      return { items, ...(keys.length > limit && last ? { next_cursor: encodeCursor({ created_at: last.created_key, id: last.id }) } : {}) };
    },
  } satisfies OperationHandlers<AuthPrincipal>;
}
