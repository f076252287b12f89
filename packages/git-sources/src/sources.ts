// Git source rows: create, read, replace, delete, and the API object.
// Ordinary reads and writes through Prisma; a sync request is the
// hand-written statement of @svc/db (requestGitSync), so the API and the
// push webhook queue syncs the same way.
import type pg from 'pg';
import { inTransaction, newId, Prisma, type Db } from '@svc/db';
import { requestGitSync, type GitSyncRunRow } from './sync-queue.js';
import { createNamespace, namespaceExists } from '@svc/namespaces';
import { GitSourceConflictError, GitSourceNotFoundError } from './errors.js';
import type { GitSourceSettings } from './settings.js';

export interface GitSourceRecord {
  id: string;
  name: string;
  repoUrl: string;
  branch: string;
  authType: string;
  credentialSecretKey: string;
  knownHosts: string;
  webhookSecretKey: string;
  pollInterval: number;
  pushPaths: string[];
  enabled: boolean;
  lastError: string;
  lastSyncStatus: string;
  lastSyncedSha: string;
  lastSyncAt: Date | null;
  mappings: { namespace: string; repoPath: string }[];
}

const INCLUDE = { mappings: { orderBy: { position: 'asc' as const }, select: { namespace: true, repoPath: true } } };

export interface SourceDeps {
  db: Pick<Db, 'prisma' | 'pool'>;
  now: () => Date;
}

/** The Git source object of the API (every field of the spec's table; `webhook_url` from SVC_PUBLIC_URL). */
export function gitSourceBody(s: GitSourceRecord, publicUrl: string) {
  return {
    id: s.id,
    name: s.name,
    repo_url: s.repoUrl,
    branch: s.branch,
    auth_type: s.authType,
    credential_secret_key: s.credentialSecretKey,
    known_hosts: s.knownHosts,
    webhook_secret_key: s.webhookSecretKey,
    webhook_url: `${publicUrl.replace(/\/+$/, '')}/hooks/git/${s.id}`,
    poll_interval: s.pollInterval,
    push_paths: s.pushPaths,
    last_error: s.lastError,
    last_sync_status: s.lastSyncStatus,
    last_synced_sha: s.lastSyncedSha,
    last_sync_at: s.lastSyncAt ? s.lastSyncAt.toISOString() : null,
    mappings: s.mappings.map((m) => ({ namespace: m.namespace, repo_path: m.repoPath })),
  };
}

/** A sync run as the API shows it. */
export function gitSyncRunBody(r: GitSyncRunRow) {
  return {
    id: r.id,
    source_id: r.git_source_id,
    trigger: r.trigger,
    requested_by: r.requested_by,
    status: r.status,
    sha: r.sha,
    error: r.error,
    details: r.details,
    started_at: r.started_at.toISOString(),
    ended_at: r.ended_at ? r.ended_at.toISOString() : null,
  };
}

export async function getGitSource(deps: SourceDeps, id: string): Promise<GitSourceRecord> {
  const s = await deps.db.prisma.gitSource.findUnique({ where: { id }, include: INCLUDE });
  if (!s) throw new GitSourceNotFoundError(id);
  return s;
}

/** Sources by id; one more than `limit` tells the caller another page follows. */
export async function listGitSources(deps: SourceDeps, q: { limit: number; afterId?: string }): Promise<GitSourceRecord[]> {
  return deps.db.prisma.gitSource.findMany({
    where: q.afterId ? { id: { gt: q.afterId } } : {},
    orderBy: { id: 'asc' },
    take: q.limit + 1,
    include: INCLUDE,
  });
}

/** Runs of a source, newest first, before the cursor (started_at, id). */
export async function listGitSyncRuns(deps: SourceDeps, sourceId: string, q: { limit: number; before?: { at: Date; id: string } }): Promise<GitSyncRunRow[]> {
  await getGitSource(deps, sourceId);
  const r = await deps.db.pool.query<GitSyncRunRow>(
    `SELECT id, git_source_id, trigger, requested_by, status, sha, error, details, started_at, ended_at FROM git_sync_runs
      WHERE git_source_id = $1 AND ($2::timestamptz IS NULL OR (started_at, id) < ($2, $3))
      ORDER BY started_at DESC, id DESC LIMIT $4`,
    [sourceId, q.before?.at ?? null, q.before?.id ?? '', q.limit + 1],
  );
  return r.rows;
}

/** Mapped namespaces that another source maps already. */
async function assertMappingsFree(deps: SourceDeps, s: GitSourceSettings, selfId: string | null): Promise<void> {
  const taken = await deps.db.prisma.gitSourceMapping.findMany({
    where: { namespace: { in: s.mappings.map((m) => m.namespace) }, ...(selfId ? { gitSourceId: { not: selfId } } : {}) },
    select: { namespace: true, gitSource: { select: { name: true } } },
  });
  if (taken.length) throw new GitSourceConflictError(taken.map((t) => `namespace ${t.namespace} is mapped by git source ${t.gitSource.name}`).join('; '));
  const named = await deps.db.prisma.gitSource.findFirst({ where: { name: s.name, ...(selfId ? { id: { not: selfId } } : {}) }, select: { id: true } });
  if (named) throw new GitSourceConflictError(`a git source named ${s.name} exists`);
}

/** Mapped namespaces are created when missing, so getNamespaceGit and the sync find them. */
async function ensureNamespaces(deps: SourceDeps, s: GitSourceSettings): Promise<void> {
  for (const m of s.mappings) {
    if (await namespaceExists(deps.db.prisma, m.namespace)) continue;
    await createNamespace(deps.db.prisma, { name: m.namespace, description: `Synced from git source ${s.name}`, createdBy: `git:${s.name}`, now: deps.now() }).catch(
      (err: unknown) => {
        if ((err as Error).name !== 'NamespaceExistsError') throw err;
      },
    );
  }
}

function uniqueViolation(err: unknown, s: GitSourceSettings): never {
  if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002') {
    throw new GitSourceConflictError(`the name ${s.name} or a mapped namespace was taken meanwhile`);
  }
  throw err;
}

const columns = (s: GitSourceSettings) => ({
  name: s.name,
  repoUrl: s.repoUrl,
  branch: s.branch,
  authType: s.authType,
  credentialSecretKey: s.credentialSecretKey,
  knownHosts: s.knownHosts,
  webhookSecretKey: s.webhookSecretKey,
  pollInterval: s.pollInterval,
  pushPaths: s.pushPaths,
});

/** Queues a sync of the source (coalesced with one already queued). */
export async function requestSync(pool: pg.Pool, r: { sourceId: string; trigger: 'manual' | 'webhook'; requestedBy: string; now: Date }): Promise<GitSyncRunRow> {
  const out = await inTransaction(pool, (c) => requestGitSync(c, { ...r, runId: newId() }));
  if (!out) throw new GitSourceNotFoundError(r.sourceId);
  return out.run;
}

/** Creates a source and its mappings (and missing namespaces), and queues its first sync. */
export async function createGitSource(deps: SourceDeps, s: GitSourceSettings, by: string): Promise<GitSourceRecord> {
  await assertMappingsFree(deps, s, null);
  await ensureNamespaces(deps, s);
  const id = newId();
  const now = deps.now();
  try {
    await deps.db.prisma.gitSource.create({
      data: { id, ...columns(s), createdAt: now, updatedAt: now, mappings: { create: s.mappings.map((m, i) => ({ namespace: m.namespace, repoPath: m.repoPath, position: i })) } },
    });
  } catch (err) {
    uniqueViolation(err, s);
  }
  await requestSync(deps.db.pool, { sourceId: id, trigger: 'manual', requestedBy: by, now });
  return getGitSource(deps, id);
}

/**
 * Replaces the settings and mappings. A namespace no longer mapped becomes
 * writable and keeps its files. When what is synced changed (remote, branch
 * or mappings), the next sync compares every file again and one is queued.
 */
export async function updateGitSource(deps: SourceDeps, id: string, s: GitSourceSettings, by: string): Promise<GitSourceRecord> {
  const before = await getGitSource(deps, id);
  await assertMappingsFree(deps, s, id);
  await ensureNamespaces(deps, s);
  const now = deps.now();
  const resync =
    before.repoUrl !== s.repoUrl ||
    before.branch !== s.branch ||
    JSON.stringify(before.mappings) !== JSON.stringify(s.mappings.map((m) => ({ namespace: m.namespace, repoPath: m.repoPath })));
  try {
    await deps.db.prisma.$transaction([
      deps.db.prisma.gitSourceMapping.deleteMany({ where: { gitSourceId: id } }),
      deps.db.prisma.gitSource.update({
        where: { id },
        data: {
          ...columns(s),
          updatedAt: now,
          ...(resync ? { lastSyncedSha: '' } : {}),
          // A new interval counts from now.
          ...(s.pollInterval !== before.pollInterval ? { nextPollAt: null } : {}),
          mappings: { create: s.mappings.map((m, i) => ({ namespace: m.namespace, repoPath: m.repoPath, position: i })) },
        },
      }),
    ]);
  } catch (err) {
    uniqueViolation(err, s);
  }
  if (resync) await requestSync(deps.db.pool, { sourceId: id, trigger: 'manual', requestedBy: by, now });
  return getGitSource(deps, id);
}

/** Deletes a source; its namespaces become writable and keep their files; its sync runs stay. */
export async function deleteGitSource(deps: SourceDeps, id: string): Promise<void> {
  const r = await deps.db.prisma.gitSource.deleteMany({ where: { id } });
  if (r.count === 0) throw new GitSourceNotFoundError(id);
  // Nothing will take a queued sync of a source that is gone: end it, visibly.
  await deps.db.prisma.gitSyncRun.updateMany({
    where: { gitSourceId: id, status: 'queued' },
    data: { status: 'failed', error: 'the git source was deleted before this sync ran', endedAt: deps.now() },
  });
}

/** The source a namespace is mapped from, with its mapping; null when none. */
export async function sourceOfNamespace(deps: SourceDeps, namespace: string): Promise<{ source: GitSourceRecord; repoPath: string } | null> {
  const m = await deps.db.prisma.gitSourceMapping.findUnique({ where: { namespace }, select: { gitSourceId: true, repoPath: true } });
  if (!m) return null;
  return { source: await getGitSource(deps, m.gitSourceId), repoPath: m.repoPath };
}
