// pushNamespaceBranch: a change set on a mapped namespace becomes a commit on
// top of the mapped branch's head, pushed to a new branch named from the
// message and a short id, so a user can open a pull request. The namespace
// itself is not written: it changes when the pull request is merged and the
// branch syncs. The change set is checked as saveChanges checks one (paths,
// contents, flow files) before anything is fetched, and the push is
// recorded as a sync run with trigger `push`. The paths it writes are checked
// against the source's push rules first (push-paths.ts: never CI
// configuration, and only the source's push_paths when it has some).
import crypto from 'node:crypto';
import path from 'node:path';
import { newId } from '@svc/db';
import { finishGitSyncRun, insertRunningGitSyncRun } from './sync-queue.js';
import { validateFlow } from '@svc/flow-schema';
import { ChangeError, FlowFilesInvalidError, isFlowFile, NAMESPACE_FILE, normalizePath, validateNamespaceFile, type FieldProblem, type FileChange } from '@svc/namespaces';
import { GitCommandError, NamespaceNotMappedError } from './errors.js';
import { pushPathRefusal } from './push-paths.js';
import { openAuth, type AuthType } from './git/auth.js';
import { ScratchRepo } from './git/repo.js';
import { sourceOfNamespace, type SourceDeps } from './sources.js';
import { sourceCredential, type SyncDeps } from './sync.js';

export interface PushRequest {
  namespace: string;
  changes: FileChange[];
  message: string;
  /** Who asks (the principal's email): the commit author. */
  author: string;
}

export interface PushResult {
  branch: string;
  sha: string;
  /** The head of the mapped branch the commit is made on. */
  base_sha: string;
  source_id: string;
  /** Repository paths the commit writes or deletes (for the audit log). */
  paths: string[];
}

/** `svc/<words of the message>-<6 hex>`: readable in a pull request list, unique enough to never collide. */
export function branchName(message: string, shortId: string): string {
  const slug = message
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return `svc/${slug || 'change'}-${shortId}`;
}

interface PreparedPut {
  path: string;
  body: Buffer;
  executable?: boolean;
}

/** Checks the change set as saveChanges does; the normalised changes and the put contents. */
function prepare(changes: FileChange[]): { ops: { op: FileChange['op']; path: string; newPath?: string; executable?: boolean; put?: PreparedPut }[] } {
  const problems: FieldProblem[] = [];
  const invalid: FieldProblem[] = [];
  const ops: ReturnType<typeof prepare>['ops'] = [];
  changes.forEach((c, i) => {
    const at = `changes[${i}]`;
    const p = normalizePath(c.path);
    if (!p.ok) return void problems.push({ field: `${at}.path`, message: p.message });
    if (c.op === 'put') {
      if ((c.content === undefined) === (c.content_base64 === undefined))
        return void problems.push({ field: `${at}.content`, message: 'a put needs exactly one of content or content_base64' });
      const body = c.content !== undefined ? Buffer.from(c.content, 'utf8') : Buffer.from(c.content_base64!, 'base64');
      const text = body.toString('utf8');
      if (isFlowFile(p.path)) for (const e of validateFlow(text).errors) invalid.push({ field: `${p.path}:${e.pointer}`, message: e.message });
      if (p.path === NAMESPACE_FILE) for (const e of validateNamespaceFile(text)) invalid.push({ field: `${p.path}:${e.pointer}`, message: e.message });
      ops.push({ op: 'put', path: p.path, ...(c.executable !== undefined ? { executable: c.executable } : {}), put: { path: p.path, body } });
    } else if (c.op === 'rename') {
      const np = c.new_path === undefined ? { ok: false as const, message: 'is required for rename' } : normalizePath(c.new_path);
      if (!np.ok) return void problems.push({ field: `${at}.new_path`, message: np.message });
      if (isFlowFile(np.path) && !isFlowFile(p.path)) invalid.push({ field: `${np.path}:`, message: 'a renamed file becomes a flow file: put it with its content instead' });
      ops.push({ op: 'rename', path: p.path, newPath: np.path, ...(c.executable !== undefined ? { executable: c.executable } : {}) });
    } else ops.push({ op: 'delete', path: p.path });
  });
  if (problems.length) throw new ChangeError(problems);
  if (invalid.length) throw new FlowFilesInvalidError(invalid);
  return { ops };
}

export async function pushNamespaceBranch(deps: SyncDeps & SourceDeps, req: PushRequest): Promise<PushResult> {
  const mapped = await sourceOfNamespace(deps, req.namespace);
  if (!mapped) throw new NamespaceNotMappedError(req.namespace);
  const { source, repoPath } = mapped;
  const { ops } = prepare(req.changes);
  const inRepo = (p: string) => (repoPath ? path.posix.join(repoPath, p) : p);
  const refused: FieldProblem[] = [];
  const paths: string[] = [];
  ops.forEach((o, i) => {
    for (const [field, p] of [['path', o.path], ...(o.newPath !== undefined ? [['new_path', o.newPath]] : [])] as const) {
      paths.push(inRepo(p));
      const why = pushPathRefusal(inRepo(p), source.pushPaths);
      if (why) refused.push({ field: `changes[${i}].${field}`, message: why });
    }
  });
  if (refused.length) throw new ChangeError(refused);
  const run = await insertRunningGitSyncRun(deps.db.pool, { id: newId(), sourceId: source.id, trigger: 'push', requestedBy: req.author, now: deps.now() });
  const finish = (status: 'success' | 'failed', sha: string, error: string, details: Record<string, unknown>) =>
    finishGitSyncRun(deps.db.pool, { id: run.id, status, sha, error, details: { namespace: req.namespace, ...details }, now: deps.now() });
  let auth: ReturnType<typeof openAuth> | undefined;
  try {
    const credential = await sourceCredential(deps.credentials, source);
    auth = openAuth({ authType: source.authType as AuthType, credential, knownHosts: source.knownHosts });
    const repo = await ScratchRepo.create(auth, deps.gitTimeoutMs);
    const base = await repo.fetchHead({ url: source.repoUrl, branch: source.branch });
    const tree = new Map((await repo.listTree(base.sha, repoPath)).files.map((f) => [f.path, f]));
    const puts = ops.filter((o) => o.put);
    const oids = await repo.writeBlobs(puts.map((o) => o.put!.body));
    const putOid = new Map(puts.map((o, i) => [o, oids[i]]));
    const updates: { repoPath: string; mode: string; oid: string | null }[] = [];
    const problems: FieldProblem[] = [];
    ops.forEach((o, i) => {
      const had = tree.get(o.path);
      const mode = (x: boolean | undefined, fallback: string) => (x === undefined ? fallback : x ? '100755' : '100644');
      if (o.op === 'put') {
        const entry = { path: o.path, repoPath: inRepo(o.path), mode: mode(o.executable, had?.mode ?? '100644'), oid: putOid.get(o)!, size: o.put!.body.length };
        tree.set(o.path, entry);
        updates.push({ repoPath: entry.repoPath, mode: entry.mode, oid: entry.oid });
      } else if (!had) problems.push({ field: `changes[${i}].path`, message: `no file ${o.path} in ${source.branch} at ${base.sha.slice(0, 12)}` });
      else if (o.op === 'delete') {
        tree.delete(o.path);
        updates.push({ repoPath: inRepo(o.path), mode: had.mode, oid: null });
      } else {
        if (tree.has(o.newPath!)) return void problems.push({ field: `changes[${i}].new_path`, message: `${o.newPath} exists already` });
        tree.delete(o.path);
        const moved = { ...had, path: o.newPath!, repoPath: inRepo(o.newPath!), mode: mode(o.executable, had.mode) };
        tree.set(o.newPath!, moved);
        updates.push({ repoPath: inRepo(o.path), mode: had.mode, oid: null }, { repoPath: moved.repoPath, mode: moved.mode, oid: moved.oid });
      }
    });
    if (problems.length) throw new ChangeError(problems);
    const sha = await repo.commitOnto(base.sha, updates, { message: req.message, authorName: req.author, authorEmail: req.author });
    if (!sha) throw new ChangeError([{ field: 'changes', message: `the changes leave ${source.branch} as it is` }]);
    const branch = branchName(req.message, crypto.randomBytes(3).toString('hex'));
    await repo.pushNewBranch(source.repoUrl, sha, branch);
    await finish('success', sha, '', { branch, base_sha: base.sha });
    return { branch, sha, base_sha: base.sha, source_id: source.id, paths };
  } catch (err) {
    const message = err instanceof GitCommandError ? err.message : auth ? auth.redactor.redact((err as Error).message) : (err as Error).message;
    await finish('failed', '', message, {}).catch(() => undefined);
    throw err;
  } finally {
    auth?.close();
  }
}
