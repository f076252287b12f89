// Namespaces, their files and versions.
import type { Request } from 'express';
import type { Db } from '@svc/db';
import { conflict, HttpError, notFound, reply, validationFailed, type HandlerContext, type OperationHandlers } from '@svc/http';
import { recordAudit } from '@svc/identity';
import {
  ChangeError,
  contentHash,
  createNamespace,
  deleteNamespace,
  diffVersions,
  FileNotFoundError,
  FlowFilesInvalidError,
  getNamespace,
  isText,
  listNamespaces,
  listVersions,
  loadManifest,
  NamespaceBusyError,
  NamespaceExistsError,
  NamespaceNotFoundError,
  NamespaceReadOnlyError,
  normalizePath,
  readFile,
  resolveVersion,
  revertVersion,
  saveChanges,
  TooLargeError,
  VersionConflictError,
  VersionNotFoundError,
  versionChanges,
  type FileChange,
  type NamespaceInfo,
  type VersionRow,
} from '@svc/namespaces';
import type { ObjectStore } from '@svc/storage';
import type { AuthPrincipal } from '../identity/principal.js';
import { readScope } from '../identity/namespace-roles.js';
import { auditContext } from './audit.js';
import type { Answer, Schemas } from '@svc/api-spec';

export interface NamespaceRouteDeps {
  db: Db;
  storage: ObjectStore;
  now: () => Date;
  maxFileBytes: number;
  maxBundleBytes: number;
}

type Ctx = HandlerContext<AuthPrincipal>;

/** The one place namespace errors become HTTP errors. */
export function namespaceError(err: unknown): never {
  if (err instanceof NamespaceNotFoundError) throw notFound(err.message);
  if (err instanceof FileNotFoundError || err instanceof VersionNotFoundError) throw notFound(err.message);
  if (err instanceof NamespaceExistsError) throw conflict('conflict', err.message);
  if (err instanceof NamespaceBusyError) throw conflict('conflict', err.message);
  if (err instanceof NamespaceReadOnlyError) throw conflict('namespace_read_only', err.message);
  if (err instanceof VersionConflictError) throw conflict('version_conflict', err.message);
  if (err instanceof ChangeError) throw validationFailed(err.details);
  if (err instanceof FlowFilesInvalidError) throw new HttpError(422, 'flow_invalid', 'a flow file is invalid', { details: err.details });
  if (err instanceof TooLargeError) throw new HttpError(413, 'too_large', err.message);
  throw err;
}

export function versionBody(v: VersionRow): Schemas['NamespaceVersion'] {
  return {
    id: v.id,
    version: v.version,
    author: v.author,
    message: v.message,
    created_at: v.created_at.toISOString(),
    file_count: v.file_count,
    manifest_hash: v.manifest_hash,
    snapshot_id: v.snapshot_id,
    ...(v.git_sha ? { git_sha: v.git_sha } : {}),
  };
}

export function namespaceBody(n: NamespaceInfo): Schemas['Namespace'] {
  return {
    name: n.name,
    description: n.description,
    parent: n.parent,
    depth: n.depth,
    children: n.children,
    head_version: n.head_version,
    file_count: n.file_count,
    flow_count: n.flow_count,
    read_only: n.read_only,
    created_by: n.created_by,
    allowed_callers: n.allowed_callers,
    created_at: n.created_at.toISOString(),
    updated_at: n.updated_at.toISOString(),
  };
}

/** Reads an octet-stream body of at most `limit` bytes (413 too_large past it). */
async function readRawBody(req: Request, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw new HttpError(413, 'too_large', `the file is ${declared} bytes; SVC_MAX_FILE_BYTES allows ${limit}`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      req.unpipe();
      throw new HttpError(413, 'too_large', `the file is over SVC_MAX_FILE_BYTES (${limit} bytes)`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

export function namespaceHandlers(deps: NamespaceRouteDeps) {
  const { db } = deps;
  const saveDeps = { pool: db.pool, storage: deps.storage, now: deps.now, maxFileBytes: deps.maxFileBytes, maxBundleBytes: deps.maxBundleBytes };
  // Who changed what, after the change committed: the version, the paths it changed and their flows (never the content).
  const auditVersion = async (ctx: Ctx, action: 'namespace.save' | 'namespace.revert', v: VersionRow, extra: Record<string, unknown> = {}) => {
    const changes = await versionChanges(db.pool, v.namespace, v);
    await recordAudit(db.prisma, {
      action,
      ...auditContext(ctx),
      targetType: 'namespace',
      targetId: v.namespace,
      details: {
        namespace: v.namespace,
        version: v.version,
        ...extra,
        paths: changes.paths,
        ...(changes.more_paths ? { more_paths: changes.more_paths } : {}),
        flows: changes.flows,
      },
      at: v.created_at,
    });
  };
  const guard = async <T>(fn: () => Promise<T>) => {
    try {
      return await fn();
    } catch (err) {
      return namespaceError(err);
    }
  };

  return {
    async createNamespace(ctx) {
      const b = ctx.body;
      const now = deps.now();
      const row = await guard(() => createNamespace(db.prisma, { name: b.name, description: b.description, createdBy: ctx.principal.email, now }));
      await recordAudit(db.prisma, { action: 'namespace.create', ...auditContext(ctx), targetType: 'namespace', targetId: row.name, details: { namespace: row.name }, at: now });
      return reply(201, namespaceBody(await getNamespace(db.prisma, row.name)));
    },

    async listNamespaces({ query, cursor, principal, encodeCursor }) {
      const q = query;
      const within = await readScope(db.pool, principal);
      const rows = await listNamespaces(db.prisma, { parent: q.parent, limit: q.limit, after: cursor?.name, ...(within ? { within } : {}) });
      const page = rows.slice(0, q.limit);
      return {
        items: page.map(namespaceBody),
        ...(rows.length > q.limit ? { next_cursor: encodeCursor({ name: page[page.length - 1].name }) } : {}),
      } satisfies Answer<'listNamespaces'>;
    },

    getNamespace: ({ params }) => guard(async () => namespaceBody(await getNamespace(db.prisma, params.namespace))),

    async deleteNamespace(ctx) {
      const name = ctx.params.namespace;
      await guard(() => deleteNamespace(db.prisma, name));
      await recordAudit(db.prisma, { action: 'namespace.delete', ...auditContext(ctx), targetType: 'namespace', targetId: name, details: { namespace: name }, at: deps.now() });
      return reply(204);
    },

    async saveChanges(ctx) {
      const { params, principal } = ctx;
      const b = ctx.body;
      const v = await guard(() =>
        saveChanges(saveDeps, { namespace: params.namespace, baseVersion: b.base_version, changes: b.changes, message: b.message, author: principal.email }),
      );
      await auditVersion(ctx, 'namespace.save', v);
      return reply(201, versionBody(v));
    },

    async uploadFile(ctx) {
      const { req, params, query, principal } = ctx;
      const q = query;
      const p = normalizePath(q.path);
      if (!p.ok) throw validationFailed([{ field: 'path', message: p.message }]);
      const content = await readRawBody(req, deps.maxFileBytes);
      const change: FileChange = { op: 'put', path: p.path, content_base64: content.toString('base64'), ...(q.executable !== undefined ? { executable: q.executable } : {}) };
      const v = await guard(() => saveChanges(saveDeps, { namespace: params.namespace, changes: [change], message: q.message ?? `Upload ${p.path}`, author: principal.email }));
      await recordAudit(db.prisma, {
        action: 'file.upload',
        ...auditContext(ctx),
        targetType: 'file',
        targetId: `${v.namespace}/${p.path}`,
        details: { namespace: v.namespace, path: p.path, size: content.length, sha256: contentHash(content), version: v.version },
        at: v.created_at,
      });
      return reply(201, versionBody(v));
    },

    async listFiles({ params, query, cursor, encodeCursor }) {
      const q = query;
      return guard(async () => {
        const v = await resolveVersion(db.pool, params.namespace, q.version);
        const m = await loadManifest(db.pool, v.id);
        const after = cursor?.path;
        const paths = [...m.keys()].sort().filter((p) => after === undefined || p > after);
        const page = paths.slice(0, q.limit);
        return {
          version: v.version,
          items: page.map((path) => ({ path, size: m.get(path)!.size, executable: m.get(path)!.executable, sha256: m.get(path)!.hash })),
          ...(paths.length > q.limit ? { next_cursor: encodeCursor({ path: page[page.length - 1] }) } : {}),
        } satisfies Answer<'listFiles'>;
      });
    },

    async getFile({ params, query }) {
      const q = query;
      const p = normalizePath(q.path);
      if (!p.ok) throw validationFailed([{ field: 'path', message: p.message }]);
      const f = await guard(() => readFile(db.pool, deps.storage, params.namespace, p.path, q.version));
      const text = isText(f.content);
      return {
        path: f.path,
        version: f.version,
        size: f.entry.size,
        executable: f.entry.executable,
        sha256: f.entry.hash,
        encoding: text ? 'utf8' : 'base64',
        ...(text ? { content: f.content.toString('utf8') } : { content_base64: f.content.toString('base64') }),
      } satisfies Answer<'getFile'>;
    },

    async listVersions({ params, query, cursor, encodeCursor }) {
      const q = query;
      return guard(async () => {
        await resolveVersion(db.pool, params.namespace);
        const before = cursor?.version ?? null;
        const rows = await listVersions(db.prisma, params.namespace, { limit: q.limit, ...(before !== null ? { beforeVersion: before } : {}) });
        const page = rows.slice(0, q.limit);
        return {
          items: page.map(versionBody),
          ...(rows.length > q.limit ? { next_cursor: encodeCursor({ version: page[page.length - 1].version }) } : {}),
        } satisfies Answer<'listVersions'>;
      });
    },

    diffVersions: ({ params, query }) => {
      const q = query;
      return guard(() => diffVersions(db.pool, deps.storage, params.namespace, q.from, q.to, q.path));
    },

    async revertVersion(ctx) {
      const { params, principal } = ctx;
      const b = ctx.body;
      const v = await guard(() =>
        revertVersion(saveDeps, {
          namespace: params.namespace,
          version: b.version,
          message: b.message,
          author: principal.email,
          baseVersion: typeof b.base_version === 'number' ? b.base_version : undefined,
        }),
      );
      await auditVersion(ctx, 'namespace.revert', v, { to_version: b.version });
      return reply(201, versionBody(v));
    },
  } satisfies OperationHandlers<AuthPrincipal>;
}
