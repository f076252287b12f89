// One sync of a git source: fetch the branch head, and for each mapping
// write the files under its `repo_path` into its namespace as one new
// version carrying the commit (git_sha, message), when they differ from the
// namespace's head. Every mapping is read and checked before anything is
// written: flow files and namespace.yaml validated, paths, sizes and
// file/folder clashes checked. One problem anywhere fails the sync with the
// details and leaves every namespace as it was; so does a new or changed flow
// that names what its namespace may not reach (a subflow or flow trigger into
// another namespace, a secret provider that does not serve it).
// Writes go through
// saveChanges, the path of every other save (flows, triggers, snapshots).
import type pg from 'pg';
import { validateFlow, type FlowDefinition } from '@svc/flow-schema';
import {
  contentHash,
  createNamespace,
  isFlowFile,
  loadManifest,
  NAMESPACE_FILE,
  namespaceExists,
  normalizePath,
  pathClash,
  reachProblems,
  saveChanges,
  validateNamespaceFile,
  type FileChange,
  type Manifest,
  type SaveDeps,
} from '@svc/namespaces';
import type { PlatformSecretStore } from '@svc/secrets';
import { GitCommandError, GitCredentialError } from './errors.js';
import { openAuth, type AuthType } from './git/auth.js';
import { ScratchRepo } from './git/repo.js';
import { Redactor } from './redact.js';
import type { GitSourceRecord } from './sources.js';

export interface SyncDeps extends SaveDeps {
  /** Where credential_secret_key is read: the platform secrets, which no flow can resolve. */
  credentials: PlatformSecretStore;
  /** Longest a git command may run, in ms. Default 300 000. */
  gitTimeoutMs?: number;
  /** Aborted when the service stops: running git commands are killed and the run ends failed. Default: none. */
  signal?: AbortSignal;
}

export interface SyncProblem {
  namespace: string;
  field: string;
  message: string;
}

export interface SyncOutcome {
  status: 'success' | 'no_change' | 'failed';
  /** The commit synced (or found); '' when the fetch failed. */
  sha: string;
  /** Redacted: never a credential. '' on success. */
  error: string;
  details: {
    message?: string;
    namespaces?: { namespace: string; version: number | null; version_id: string | null; changes: number }[];
    problems?: SyncProblem[];
    skipped?: { namespace: string; path: string; reason: string }[];
  };
}

/** The credential of a source, from the platform secret it names ('' for auth none). */
export async function sourceCredential(credentials: PlatformSecretStore, s: Pick<GitSourceRecord, 'authType' | 'credentialSecretKey'>): Promise<string> {
  if (s.authType === 'none') return '';
  try {
    return await credentials.read(s.credentialSecretKey);
  } catch (err) {
    throw new GitCredentialError(`the credential of auth_type ${s.authType} could not be read from the platform secret ${s.credentialSecretKey}: ${(err as Error).name}`);
  }
}

const VERSION_MESSAGE_MAX = 500;

/** The version message: the commit message (its first 500 chars), or the short commit when empty. */
export function versionMessage(commitMessage: string, sha: string): string {
  const m = commitMessage.trim() || `git ${sha.slice(0, 12)}`;
  return m.length <= VERSION_MESSAGE_MAX ? m : `${m.slice(0, VERSION_MESSAGE_MAX - 1)}…`;
}

interface Planned {
  namespace: string;
  changes: FileChange[];
}

/** Reads one mapping's files from the commit and compares them with the namespace head. */
async function planMapping(
  deps: SyncDeps,
  repo: ScratchRepo,
  sha: string,
  m: { namespace: string; repoPath: string },
  problems: SyncProblem[],
  skipped: NonNullable<SyncOutcome['details']['skipped']>,
): Promise<Planned> {
  const listing = await repo.listTree(sha, m.repoPath);
  for (const s of listing.skipped)
    skipped.push({ namespace: m.namespace, path: s.path, reason: s.mode === '120000' ? 'symbolic link' : s.mode === '160000' ? 'submodule' : `mode ${s.mode}` });
  // Sizes come with the listing: nothing too large is read into memory.
  const total = listing.files.reduce((n, f) => n + f.size, 0);
  if (total > deps.maxBundleBytes) {
    problems.push({ namespace: m.namespace, field: m.repoPath || '/', message: `the files total ${total} bytes; SVC_MAX_BUNDLE_BYTES allows ${deps.maxBundleBytes}` });
    return { namespace: m.namespace, changes: [] };
  }
  const tooLarge = listing.files.filter((f) => f.size > deps.maxFileBytes);
  for (const f of tooLarge) problems.push({ namespace: m.namespace, field: f.repoPath, message: `is ${f.size} bytes; SVC_MAX_FILE_BYTES allows ${deps.maxFileBytes}` });
  if (tooLarge.length) return { namespace: m.namespace, changes: [] };
  const blobs = await repo.readBlobs(listing.files.map((f) => f.oid));
  const want: Manifest = new Map();
  const contents = new Map<string, Buffer>();
  for (const f of listing.files) {
    const p = normalizePath(f.path);
    if (!p.ok || p.path !== f.path) {
      problems.push({ namespace: m.namespace, field: f.repoPath, message: p.ok ? `is not a normal path (would be ${p.path})` : p.message });
      continue;
    }
    const body = blobs.get(f.oid)!;
    const text = body.toString('utf8');
    if (isFlowFile(f.path))
      for (const e of validateFlow(text).errors)
        problems.push({
          namespace: m.namespace,
          field: `${f.path}:${e.pointer}`,
          message: e.line !== undefined ? `${e.message} (line ${e.line}, column ${e.column ?? 1})` : e.message,
        });
    if (f.path === NAMESPACE_FILE) for (const e of validateNamespaceFile(text)) problems.push({ namespace: m.namespace, field: `${f.path}:${e.pointer}`, message: e.message });
    const hash = contentHash(body);
    want.set(f.path, { hash, size: body.length, executable: f.mode === '100755' });
    contents.set(f.path, body);
  }
  const clash = pathClash(want);
  if (clash) problems.push({ namespace: m.namespace, field: clash[1], message: `${clash[0]} is both a file and a folder` });

  const head = (await namespaceExists(deps.pool, m.namespace)) ? await loadManifest(deps.pool, await headVersionId(deps.pool, m.namespace)) : (new Map() as Manifest);
  const changes: FileChange[] = [];
  for (const [path, e] of [...want].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const had = head.get(path);
    if (had && had.hash === e.hash && had.executable === e.executable) continue;
    changes.push({ op: 'put', path, content_base64: contents.get(path)!.toString('base64'), executable: e.executable });
  }
  for (const path of [...head.keys()].sort()) if (!want.has(path)) changes.push({ op: 'delete', path });
  // New and changed flows may name only what the namespace reaches (subflows, flow triggers, secret
  // providers: @svc/namespaces reach.ts); a refusal fails the sync like an invalid file, before anything is written.
  const written: { path: string; definition: FlowDefinition }[] = [];
  for (const c of changes) {
    if (c.op !== 'put' || !isFlowFile(c.path)) continue;
    const { flow } = validateFlow(contents.get(c.path)!.toString('utf8'));
    if (flow) written.push({ path: c.path, definition: flow });
  }
  for (const p of await reachProblems(deps.pool, m.namespace, written)) problems.push({ namespace: m.namespace, ...p });
  return { namespace: m.namespace, changes };
}

async function headVersionId(pool: pg.Pool, namespace: string): Promise<string | null> {
  const r = await pool.query<{ head_version_id: string | null }>(`SELECT head_version_id FROM namespaces WHERE name = $1`, [namespace]);
  return r.rows[0]?.head_version_id ?? null;
}

/**
 * Syncs a source to its branch head. Never throws for a failure of the
 * remote, the credential or the files: the outcome says `failed` with a
 * redacted error. `knownSha`: the commit the last sync wrote, for the
 * caller's decision whether to fetch at all (see worker.ts).
 */
export async function syncSource(deps: SyncDeps, source: GitSourceRecord): Promise<SyncOutcome> {
  let credential: string;
  try {
    credential = await sourceCredential(deps.credentials, source);
  } catch (err) {
    return { status: 'failed', sha: '', error: (err as Error).message, details: {} };
  }
  const redactor = new Redactor([credential]);
  const auth = openAuth({ authType: source.authType as AuthType, credential, knownHosts: source.knownHosts });
  try {
    const repo = await ScratchRepo.create(auth, deps.gitTimeoutMs, deps.signal);
    const commit = await repo.fetchHead({ url: source.repoUrl, branch: source.branch });
    const problems: SyncProblem[] = [];
    const skipped: NonNullable<SyncOutcome['details']['skipped']> = [];
    const plans: Planned[] = [];
    for (const m of source.mappings) plans.push(await planMapping(deps, repo, commit.sha, m, problems, skipped));
    const message = versionMessage(commit.message, commit.sha);
    if (problems.length) {
      const first = problems
        .slice(0, 3)
        .map((p) => `${p.namespace} ${p.field}: ${p.message}`)
        .join('; ');
      return {
        status: 'failed',
        sha: commit.sha,
        error: redactor.redact(`commit ${commit.sha.slice(0, 12)} has ${problems.length} invalid file${problems.length === 1 ? '' : 's'}; nothing was changed: ${first}`),
        details: { message, problems: problems.map((p) => ({ ...p, message: redactor.redact(p.message) })), ...(skipped.length ? { skipped } : {}) },
      };
    }
    const namespaces: NonNullable<SyncOutcome['details']['namespaces']> = [];
    for (const plan of plans) {
      if (!(await namespaceExists(deps.pool, plan.namespace))) {
        await createNamespace(deps.pool, { name: plan.namespace, description: `Synced from git source ${source.name}`, createdBy: `git:${source.name}`, now: deps.now() }).catch(
          (err: unknown) => {
            if ((err as Error).name !== 'NamespaceExistsError') throw err;
          },
        );
      }
      if (!plan.changes.length) {
        namespaces.push({ namespace: plan.namespace, version: null, version_id: null, changes: 0 });
        continue;
      }
      const v = await saveChanges(deps, {
        namespace: plan.namespace,
        changes: plan.changes,
        message,
        author: commit.authorEmail || `git:${source.name}`,
        git: { sha: commit.sha },
      });
      namespaces.push({ namespace: plan.namespace, version: v.version, version_id: v.id, changes: plan.changes.length });
    }
    const changed = namespaces.some((n) => n.changes > 0);
    return { status: changed ? 'success' : 'no_change', sha: commit.sha, error: '', details: { message, namespaces, ...(skipped.length ? { skipped } : {}) } };
  } catch (err) {
    if (err instanceof GitCommandError) return { status: 'failed', sha: '', error: err.message, details: {} };
    // Anything else (database, store): annotated, redacted, recorded.
    return { status: 'failed', sha: '', error: redactor.redact(`sync failed: ${(err as Error).message}`), details: {} };
  } finally {
    auth.close();
  }
}

/** The branch head on the remote without fetching (polls: unchanged means nothing to do). */
export async function remoteHead(deps: SyncDeps, source: GitSourceRecord): Promise<string | null> {
  const credential = await sourceCredential(deps.credentials, source);
  const auth = openAuth({ authType: source.authType as AuthType, credential, knownHosts: source.knownHosts });
  try {
    const repo = await ScratchRepo.create(auth, deps.gitTimeoutMs, deps.signal);
    return await repo.remoteHead({ url: source.repoUrl, branch: source.branch });
  } finally {
    auth.close();
  }
}
