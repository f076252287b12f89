// The admin view of the organization email interface (docs/using/emails.md; beyond the
// spec's operation index, see EXTENSION_OPERATION_IDS): organizations, their
// `svc_live_` keys, verified senders, daily quotas, the namespaces whose alert
// rules may send as them, and sent emails. The rows
// and rules are @svc/identity's, the ones `svc org` writes on the database and
// the email endpoint reads. A new key is in createOrganizationKey's answer
// only (stored as its hash); the audit events name keys by id and prefix.
import type { Db } from '@svc/db';
import { conflict, notFound, reply, validationFailed, type HandlerContext, type OperationHandlers } from '@svc/http';
import {
  addOrganizationSender,
  createOrganization,
  createOrganizationKey,
  listOrganizationEmails,
  listOrganizations,
  normalizeOrganizationNamespaces,
  OrganizationError,
  parseSenderRule,
  recordAudit,
  removeOrganizationSender,
  revokeOrganizationKey,
  setOrganizationDailyQuota,
  setOrganizationNamespaces,
  type OrganizationRow,
} from '@svc/identity';
import type { AuthPrincipal } from '../identity/principal.js';
import { auditContext } from './audit.js';
import type { Answer } from '@svc/api-spec';

type Ctx = HandlerContext<AuthPrincipal>;

export interface OrganizationRouteDeps {
  db: Db;
  now: () => Date;
  /** SVC_ORG_DAILY_QUOTA: the quota of an organization without its own. */
  dailyQuota: number;
  /** SVC_ORG_RATE_LIMIT: the rate of an organization without its own. */
  rateLimit: number;
}

/** The one place organization errors become HTTP errors. */
function orgError(err: unknown, field: string): never {
  if (err instanceof OrganizationError) {
    switch (err.code) {
      case 'not_found':
        throw notFound(err.message);
      case 'exists':
        throw conflict('conflict', err.message);
      case 'invalid_name':
      case 'invalid_sender':
      case 'invalid_quota':
      case 'invalid_namespace':
        throw validationFailed([{ field, message: err.message }]);
    }
  }
  throw err;
}

async function guard<T>(field: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    return orgError(err, field);
  }
}

export function organizationHandlers(deps: OrganizationRouteDeps) {
  const pool = deps.db.pool;
  const body = (o: OrganizationRow) => ({
    id: o.id,
    name: o.name,
    created_at: o.created_at.toISOString(),
    daily_quota: { own: o.daily_quota, limit: o.daily_quota ?? deps.dailyQuota, used_today: o.used_today },
    rate_limit: { own: o.rate_limit, per_second: o.rate_limit ?? deps.rateLimit },
    senders: o.senders,
    namespaces: o.namespaces,
    keys: o.keys.map((k) => ({
      id: k.id,
      prefix: k.prefix,
      name: k.name,
      created_at: k.created_at.toISOString(),
      last_used_at: k.last_used_at?.toISOString() ?? null,
      revoked_at: k.revoked_at?.toISOString() ?? null,
    })),
  });
  /** The organization named in the path, else 404. Organizations are few: read whole (listOrganizations). */
  const find = async (name: string): Promise<OrganizationRow> => {
    const o = (await listOrganizations(pool)).find((x) => x.name === name);
    if (!o) throw notFound(`no organization ${name}`);
    return o;
  };
  const audit = (ctx: Ctx, action: string, o: { id: string }, details: Record<string, unknown>) =>
    recordAudit(pool, { action, ...auditContext(ctx), targetType: 'organization', targetId: o.id, details, at: deps.now() });

  return {
    async listOrganizations({ query, cursor, encodeCursor }) {
      const { limit } = query;
      const after = cursor?.name;
      const rows = (await listOrganizations(pool)).filter((o) => after === undefined || o.name > after);
      const page = rows.slice(0, limit);
      return { items: page.map(body), ...(rows.length > limit ? { next_cursor: encodeCursor({ name: page[page.length - 1].name }) } : {}) } satisfies Answer<'listOrganizations'>;
    },

    async createOrganization(ctx) {
      const { name } = ctx.body;
      const o = await guard('name', () => createOrganization(pool, name, deps.now()));
      await audit(ctx, 'organization.create', o, { name });
      return reply(201, body(await find(name)));
    },

    async updateOrganization(ctx) {
      const { organization } = ctx.params;
      const b = ctx.body;
      const o = await find(organization);
      const details: Record<string, unknown> = { name: organization };
      if (b.namespaces !== undefined) {
        // Checked before the quota is written, so a refused list changes nothing.
        let namespaces: string[] = [];
        try {
          namespaces = normalizeOrganizationNamespaces(b.namespaces);
        } catch (err) {
          orgError(err, 'namespaces');
        }
        details.namespaces_before = o.namespaces;
        details.namespaces = namespaces;
      }
      if (b.daily_quota !== undefined) {
        const quota = b.daily_quota;
        await guard('daily_quota', () => setOrganizationDailyQuota(pool, organization, quota));
        details.daily_quota = quota;
      }
      if (b.namespaces !== undefined) await guard('namespaces', () => setOrganizationNamespaces(pool, organization, b.namespaces!));
      await audit(ctx, 'organization.update', o, details);
      return body(await find(organization));
    },

    async createOrganizationKey(ctx) {
      const { organization } = ctx.params;
      const name = ctx.body?.name ?? '';
      const k = await guard('organization', () => createOrganizationKey(pool, organization, name, deps.now()));
      await audit(ctx, 'organization.key_create', { id: k.organization_id }, { name: organization, key_id: k.id, prefix: k.prefix });
      return reply(201, { id: k.id, key: k.key, prefix: k.prefix, name } satisfies Answer<'createOrganizationKey', 201>);
    },

    async revokeOrganizationKey(ctx) {
      const { organization, keyId } = ctx.params;
      const o = await find(organization);
      const key = o.keys.find((k) => k.id === keyId);
      if (!key) throw notFound(`organization ${organization} has no key ${keyId}`);
      await revokeOrganizationKey(pool, keyId, deps.now());
      await audit(ctx, 'organization.key_revoke', o, { name: organization, key_id: keyId, prefix: key.prefix });
      return reply(204);
    },

    async addOrganizationSender(ctx) {
      const { organization } = ctx.params;
      const { value } = ctx.body;
      const o = await find(organization);
      const rule = await guard('value', () => addOrganizationSender(pool, organization, value, deps.now()));
      await audit(ctx, 'organization.sender_add', o, { name: organization, sender: rule.value });
      return reply(201, rule);
    },

    async removeOrganizationSender(ctx) {
      const { organization, sender } = ctx.params;
      const o = await find(organization);
      if (!parseSenderRule(sender)) throw notFound(`organization ${organization} has no sender ${sender}`);
      const gone = await guard('sender', () => removeOrganizationSender(pool, organization, sender));
      if (!gone) throw notFound(`organization ${organization} has no sender ${sender}`);
      await audit(ctx, 'organization.sender_remove', o, { name: organization, sender });
      return reply(204);
    },

    async listOrganizationEmails({ params, query, cursor: c, encodeCursor }) {
      const { organization } = params;
      const { limit } = query;
      const o = await find(organization);
      const rows = await listOrganizationEmails(pool, o.id, { limit, ...(c ? { before: { at: c.created_at, id: c.id } } : {}) });
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      return {
        items: page.map((e) => ({
          id: e.id,
          key_id: e.key_id,
          from: e.from,
          to: e.to,
          subject: e.subject,
          status: e.status,
          attempts: e.attempts,
          error: e.error,
          created_at: e.created_at.toISOString(),
          sent_at: e.sent_at?.toISOString() ?? null,
        })),
        ...(rows.length > limit && last ? { next_cursor: encodeCursor({ created_at: last.created_key, id: last.id }) } : {}),
      } satisfies Answer<'listOrganizationEmails'>;
    },
  } satisfies OperationHandlers<AuthPrincipal>;
}
