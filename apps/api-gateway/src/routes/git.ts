// Git sources (admin CRUD, sync requests, sync runs), the git view and the
// branch push of a namespace, and the push webhook POST /hooks/git/{sourceId}.
// Syncs are not run here: a request writes a queued run and notifies the sync
// workers (the scheduler app), which take the source's lease and run it.
// The push webhook's signature is checked over the raw body before it is
// parsed (mountOperations' verifySignature); a wrong or missing one is 401
// and requests nothing. Before any of the body is read, gitWebhook's gate
// looks the source up (404 for an unknown one) and then reads at most
// GIT_WEBHOOK_MAX_BYTES (413 past it): an unsigned request costs one lookup
// and a bounded read, not a body of SVC_MAX_BODY_BYTES.
// A branch push is audited (`git.push`) with the source, branch, sha and
// every repository path it writes.
// The credential and the webhook secret of a source name platform secrets
// (docs/operating/security.md), which no flow can resolve: a setting that names anything else
// (a global or namespace secret, or nothing) is 422 naming the field.
import type { NextFunction, Request, Response } from 'express';
import type { MasterKey } from '@svc/config';
import type { Db } from '@svc/db';
import {
  createGitSource,
  deleteGitSource,
  getGitSource,
  gitSourceBody,
  gitSyncRunBody,
  GitCommandError,
  GitCredentialError,
  GitSourceConflictError,
  GitSourceInvalidError,
  GitSourceNotFoundError,
  listGitSources,
  listGitSyncRuns,
  NamespaceNotMappedError,
  parseGitSourceInput,
  pushedBranch,
  pushNamespaceBranch,
  requestSync,
  sourceOfNamespace,
  updateGitSource,
  verifyPushSignature,
  type GitSourceRecord,
} from '@svc/git-sources';
import { conflict, createRawBodyReader, HttpError, notFound, reply, unauthorized, validationFailed, type HandlerContext, type OperationHandlers } from '@svc/http';
import { recordAudit } from '@svc/identity';
import { getNamespace } from '@svc/namespaces';
import { PlatformSecretStore } from '@svc/secrets';
import type { ObjectStore } from '@svc/storage';
import type { AuthPrincipal } from '../identity/principal.js';
import { auditContext } from './audit.js';
import { namespaceError } from './namespaces.js';
import type { Answer, RequestBody, Schemas } from '@svc/api-spec';

export interface GitRouteDeps {
  db: Db;
  storage: ObjectStore;
  now: () => Date;
  publicUrl: string;
  masterKeys: readonly MasterKey[];
  maxFileBytes: number;
  maxBundleBytes: number;
}

/** The one place git source errors become HTTP errors (namespace errors go on to namespaceError). */
function gitError(err: unknown): never {
  if (err instanceof GitSourceNotFoundError) throw notFound(err.message);
  if (err instanceof NamespaceNotMappedError) throw notFound(err.message);
  if (err instanceof GitSourceConflictError) throw conflict('conflict', err.message);
  if (err instanceof GitSourceInvalidError) throw validationFailed(err.details);
  // Both messages are redacted at the source: they name keys and hosts, never credentials.
  if (err instanceof GitCommandError || err instanceof GitCredentialError) throw new HttpError(502, 'git_failed', err.message);
  return namespaceError(err);
}

async function guard<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    return gitError(err);
  }
}

async function settingsOf(body: RequestBody<'createGitSource'>, credentials: PlatformSecretStore) {
  const parsed = parseGitSourceInput(body);
  if (!parsed.ok) throw validationFailed(parsed.problems);
  const s = parsed.settings;
  const problems: Schemas['ErrorDetail'][] = [];
  for (const [field, name] of [
    ['credential_secret_key', s.credentialSecretKey],
    ['webhook_secret_key', s.webhookSecretKey],
  ] as const) {
    const problem = name ? await credentials.settingProblem(name) : null;
    if (problem) problems.push({ field, message: problem });
  }
  if (problems.length) throw validationFailed(problems);
  return s;
}

/**
 * Bytes of a push notification read at most before its signature is checked
 * (1 MiB; GitHub, GitLab and Gitea push payloads of a usual push are a few
 * KiB). Past it the delivery is 413 and the source's poll is the backstop.
 */
export const GIT_WEBHOOK_MAX_BYTES = 1024 * 1024;

async function webhookSource(deps: Pick<GitRouteDeps, 'db' | 'now'>, idParam: unknown): Promise<GitSourceRecord> {
  // Express gives path parameters as strings.
  const id = typeof idParam === 'string' ? idParam : '';
  // Checked before the lookup: PostgreSQL refuses a NUL in text, and no source id holds one.
  if (id.includes('\u0000')) throw notFound(`no git source ${JSON.stringify(id)}`);
  try {
    return await getGitSource({ db: deps.db, now: deps.now }, id);
  } catch (err) {
    return gitError(err);
  }
}

/**
 * The push webhook in two steps. `gate` (express middleware, mounted on
 * POST /hooks/git/:sourceId before the operations) finds the source before
 * reading anything and reads the body with a cap; mountOperations' own read
 * then finds it read. `verify` (mountOperations' verifySignature) checks the
 * signature over it; the source it resolves is the handler's principal.
 */
export function gitWebhook(deps: Pick<GitRouteDeps, 'db' | 'masterKeys' | 'now'>) {
  const credentials = new PlatformSecretStore({ db: deps.db.pool, keys: deps.masterKeys });
  const seen = new WeakMap<Request, GitSourceRecord>();
  const readCapped = createRawBodyReader({ limit: GIT_WEBHOOK_MAX_BYTES });
  const gate = (req: Request, res: Response, next: NextFunction) => {
    res.locals.route = '/hooks/git/{sourceId}';
    webhookSource(deps, req.params.sourceId)
      .then(async (source) => {
        seen.set(req, source);
        await readCapped(req, res);
        next();
      })
      .catch(next);
  };
  const verify = async (req: Request, raw: Buffer): Promise<GitSourceRecord> => {
    const source = seen.get(req) ?? (await webhookSource(deps, req.params.sourceId));
    let secret = '';
    if (source.webhookSecretKey) {
      try {
        secret = await credentials.read(source.webhookSecretKey);
      } catch {
        secret = ''; // a missing secret verifies nothing
      }
    }
    const check = verifyPushSignature(req.headers, raw, secret);
    if (!check.ok) throw unauthorized(`the push notification is not signed with this source's webhook secret: ${check.reason}`);
    return source;
  };
  return { gate, verify };
}

// The webhook handler's principal is the verified source, the others' a user: the map is untyped.
export function gitHandlers(deps: GitRouteDeps) {
  const src = { db: deps.db, now: deps.now };
  const credentials = new PlatformSecretStore({ db: deps.db.pool, keys: deps.masterKeys });
  const pushDeps = { ...src, pool: deps.db.pool, storage: deps.storage, maxFileBytes: deps.maxFileBytes, maxBundleBytes: deps.maxBundleBytes, credentials };
  const body = (s: GitSourceRecord) => gitSourceBody(s, deps.publicUrl);

  return {
    // Every operation but the push webhook is called with a session or API token.
    ...({
      async listGitSources({ query, cursor, encodeCursor }) {
        const q = query;
        const rows = await listGitSources(src, { limit: q.limit, afterId: cursor?.id });
        const page = rows.slice(0, q.limit);
        return { items: page.map(body), ...(rows.length > q.limit ? { next_cursor: encodeCursor({ id: page[page.length - 1].id }) } : {}) } satisfies Answer<'listGitSources'>;
      },

      getGitSource: ({ params }) => guard(async () => body(await getGitSource(src, params.sourceId))),

      async createGitSource(ctx) {
        const s = await settingsOf(ctx.body, credentials);
        const created = await guard(() => createGitSource(src, s, ctx.principal.email));
        await recordAudit(deps.db.pool, {
          action: 'git_source.create',
          ...auditContext(ctx),
          targetType: 'git_source',
          targetId: created.id,
          details: { name: s.name },
          at: deps.now(),
        });
        return reply(201, body(created));
      },

      async updateGitSource(ctx) {
        const s = await settingsOf(ctx.body, credentials);
        const updated = await guard(() => updateGitSource(src, ctx.params.sourceId, s, ctx.principal.email));
        await recordAudit(deps.db.pool, {
          action: 'git_source.update',
          ...auditContext(ctx),
          targetType: 'git_source',
          targetId: updated.id,
          details: { name: s.name },
          at: deps.now(),
        });
        return body(updated);
      },

      async deleteGitSource(ctx) {
        await guard(() => deleteGitSource(src, ctx.params.sourceId));
        await recordAudit(deps.db.pool, {
          action: 'git_source.delete',
          ...auditContext(ctx),
          targetType: 'git_source',
          targetId: ctx.params.sourceId,
          details: {},
          at: deps.now(),
        });
        return reply(204);
      },

      async listGitSyncRuns({ params, query, cursor: c, encodeCursor }) {
        const q = query;
        const rows = await guard(() => listGitSyncRuns(src, params.sourceId, { limit: q.limit, ...(c ? { before: { at: new Date(c.started_at), id: c.id } } : {}) }));
        const page = rows.slice(0, q.limit);
        const last = page[page.length - 1];
        return {
          items: page.map(gitSyncRunBody),
          ...(rows.length > q.limit && last ? { next_cursor: encodeCursor({ started_at: last.started_at.toISOString(), id: last.id }) } : {}),
        } satisfies Answer<'listGitSyncRuns'>;
      },

      async syncGitSource(ctx) {
        const run = await guard(() => requestSync(deps.db.pool, { sourceId: ctx.params.sourceId, trigger: 'manual', requestedBy: ctx.principal.email, now: deps.now() }));
        return reply(202, gitSyncRunBody(run));
      },

      async getNamespaceGit({ params }) {
        await guard(() => getNamespace(deps.db.prisma, params.namespace));
        const mapped = await sourceOfNamespace(src, params.namespace);
        if (!mapped) return { read_only: false, source: null } satisfies Answer<'getNamespaceGit'>;
        const s = mapped.source;
        return {
          read_only: true,
          source: {
            id: s.id,
            name: s.name,
            repo_url: s.repoUrl,
            branch: s.branch,
            repo_path: mapped.repoPath,
            last_synced_sha: s.lastSyncedSha,
            last_sync_at: s.lastSyncAt ? s.lastSyncAt.toISOString() : null,
            last_sync_status: s.lastSyncStatus,
            last_error: s.lastError,
          },
        } satisfies Answer<'getNamespaceGit'>;
      },

      async pushNamespaceBranch(ctx) {
        const { params, principal } = ctx;
        const req = ctx.body;
        await guard(() => getNamespace(deps.db.prisma, params.namespace));
        const { paths, ...out } = await guard(() =>
          pushNamespaceBranch(pushDeps, { namespace: params.namespace, changes: req.changes, message: req.message, author: principal.email }),
        );
        await recordAudit(deps.db.pool, {
          action: 'git.push',
          ...auditContext(ctx),
          targetType: 'git_source',
          targetId: out.source_id,
          details: { namespace: params.namespace, branch: out.branch, sha: out.sha, base_sha: out.base_sha, paths },
          at: deps.now(),
        });
        return reply(201, out);
      },
    } satisfies OperationHandlers<AuthPrincipal>),

    async gitPushWebhook({ body: payload, principal: source, req }: HandlerContext<GitSourceRecord, 'gitPushWebhook'>) {
      if (String(req.headers['x-github-event'] ?? '') === 'ping') return reply(202, { requested: false, reason: 'ping' } satisfies Answer<'gitPushWebhook', 202>);
      const branch = pushedBranch(payload);
      // A push to another branch changes nothing this source syncs.
      if (branch !== undefined && branch !== source.branch)
        return reply(202, { requested: false, reason: `push to ${branch}, not ${source.branch}` } satisfies Answer<'gitPushWebhook', 202>);
      const run = await requestSync(deps.db.pool, { sourceId: source.id, trigger: 'webhook', requestedBy: 'webhook', now: deps.now() });
      return reply(202, { requested: true, run_id: run.id, status: run.status } satisfies Answer<'gitPushWebhook', 202>);
    },
  } satisfies OperationHandlers;
}
