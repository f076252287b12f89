// saveChanges: one atomic change set → one new version.
//
// Outside the transaction: paths are checked and normalised, contents decoded,
// size-checked, hashed and uploaded (content-addressed, so an upload of a
// rolled-back save is harmless and re-used), and every `*.flow.yaml` put is
// validated. Inside it, under a row lock on the namespace: the base version is
// compared with the head, the changes are applied to the head manifest, the
// snapshot and version rows are written, and the flows the files define are
// created, revised, moved or deleted. Two saves on the same base version
// therefore serialize and exactly one wins.
import type pg from 'pg';
import { assertNever } from '@svc/assert';
import { inTransaction, newId } from '@svc/db';

export { inTransaction };
import { validateFlow } from '@svc/flow-schema';
import type { ObjectStore } from '@svc/storage';
import { ChangeError, FlowFilesInvalidError, NamespaceNotFoundError, NamespaceReadOnlyError, TooLargeError, VersionConflictError, type FieldProblem } from './errors.js';
import { syncFlows } from './flows-sync.js';
import { contentHash, fileObjectKey, manifestBytes, manifestHash, pathClash, type Manifest } from './manifest.js';
import { validateNamespaceFile } from './namespace-file.js';
import { isFlowFile, NAMESPACE_FILE, normalizePath } from './paths.js';
import { loadManifest } from './read.js';

export interface FileChange {
  op: 'put' | 'delete' | 'rename';
  path: string;
  content?: string;
  content_base64?: string;
  executable?: boolean;
  new_path?: string;
}

export interface SaveRequest {
  namespace: string;
  baseVersion?: number;
  changes: FileChange[];
  message: string;
  author: string;
  /**
   * Set by the git sync only: the commit the files come from (kept as the
   * version's `git_sha`). It is also what lets a write into a namespace
   * mapped from a git source through; every other write gets
   * NamespaceReadOnlyError.
   */
  git?: { sha: string };
}

export interface VersionRow {
  id: string;
  namespace: string;
  version: number;
  author: string;
  message: string;
  created_at: Date;
  file_count: number;
  manifest_hash: string;
  snapshot_id: string;
  git_sha: string | null;
}

export interface SaveDeps {
  pool: pg.Pool;
  storage: ObjectStore;
  now: () => Date;
  maxFileBytes: number;
  maxBundleBytes: number;
}

interface PreparedChange {
  op: FileChange['op'];
  path: string;
  newPath?: string;
  executable?: boolean;
  hash?: string;
  size?: number;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Checks and decodes the changes; uploads new contents. Returns the prepared changes and the decoded puts by hash. */
async function prepare(deps: SaveDeps, changes: FileChange[]): Promise<{ prepared: PreparedChange[]; contents: Map<string, Buffer> }> {
  const problems: FieldProblem[] = [];
  const prepared: PreparedChange[] = [];
  const contents = new Map<string, Buffer>();
  changes.forEach((c, i) => {
    const at = `changes[${i}]`;
    const p = normalizePath(c.path);
    if (!p.ok) {
      problems.push({ field: `${at}.path`, message: p.message });
      return;
    }
    const out: PreparedChange = { op: c.op, path: p.path, ...(c.executable !== undefined ? { executable: c.executable } : {}) };
    if (c.op === 'put') {
      if (c.new_path !== undefined) problems.push({ field: `${at}.new_path`, message: 'is only for rename' });
      if ((c.content === undefined) === (c.content_base64 === undefined)) {
        problems.push({ field: `${at}.content`, message: 'a put needs exactly one of content or content_base64' });
        return;
      }
      let body: Buffer;
      if (c.content !== undefined) body = Buffer.from(c.content, 'utf8');
      else {
        const b64 = c.content_base64!.replace(/\s+/g, '');
        if (b64.length % 4 !== 0 || !BASE64.test(b64)) {
          problems.push({ field: `${at}.content_base64`, message: 'is not valid base64' });
          return;
        }
        body = Buffer.from(b64, 'base64');
      }
      if (body.length > deps.maxFileBytes) {
        throw new TooLargeError(`${at} (${p.path}) is ${body.length} bytes; SVC_MAX_FILE_BYTES allows ${deps.maxFileBytes}`);
      }
      out.hash = contentHash(body);
      out.size = body.length;
      contents.set(out.hash, body);
    } else {
      if (c.content !== undefined || c.content_base64 !== undefined) problems.push({ field: `${at}.content`, message: `is only for put, not ${c.op}` });
      if (c.op === 'rename') {
        const np = c.new_path === undefined ? { ok: false as const, message: 'is required for rename' } : normalizePath(c.new_path);
        if (!np.ok) problems.push({ field: `${at}.new_path`, message: np.message });
        else out.newPath = np.path;
      } else if (c.new_path !== undefined) problems.push({ field: `${at}.new_path`, message: 'is only for rename' });
    }
    prepared.push(out);
  });
  if (problems.length) throw new ChangeError(problems);

  // Flow files and namespace.yaml are validated before anything is written.
  const invalid: FieldProblem[] = [];
  for (const c of prepared) {
    const target = c.op === 'rename' ? c.newPath! : c.path;
    if (c.op !== 'put') continue;
    const text = contents.get(c.hash!)!.toString('utf8');
    if (isFlowFile(target)) for (const e of validateFlow(text).errors) invalid.push({ field: `${target}:${e.pointer}`, message: withPlace(e.message, e.line, e.column) });
    if (target === NAMESPACE_FILE) for (const e of validateNamespaceFile(text)) invalid.push({ field: `${target}:${e.pointer}`, message: e.message });
  }
  if (invalid.length) throw new FlowFilesInvalidError(invalid);

  // Upload contents the store does not have yet (content-addressed: idempotent).
  const known = new Set((await deps.pool.query<{ hash: string }>(`SELECT hash FROM file_objects WHERE hash = ANY($1)`, [[...contents.keys()]])).rows.map((r) => r.hash));
  await Promise.all([...contents].filter(([h]) => !known.has(h)).map(([h, body]) => deps.storage.put(fileObjectKey(h), body, { contentType: 'application/octet-stream' })));
  return { prepared, contents };
}

const withPlace = (message: string, line?: number, column?: number) => (line !== undefined ? `${message} (line ${line}, column ${column ?? 1})` : message);

/** Applies prepared changes to a manifest, in order; problems name the change at fault. */
export function applyChanges(head: Manifest, changes: PreparedChange[]): Manifest {
  const m: Manifest = new Map(head);
  const problems: FieldProblem[] = [];
  changes.forEach((c, i) => {
    const at = `changes[${i}]`;
    const existing = m.get(c.path);
    switch (c.op) {
      case 'put':
        m.set(c.path, { hash: c.hash!, size: c.size!, executable: c.executable ?? existing?.executable ?? false });
        break;
      case 'delete':
        if (!existing) problems.push({ field: `${at}.path`, message: `no file ${c.path} to delete` });
        else m.delete(c.path);
        break;
      case 'rename':
        if (!existing) problems.push({ field: `${at}.path`, message: `no file ${c.path} to rename` });
        else if (m.has(c.newPath!)) problems.push({ field: `${at}.new_path`, message: `${c.newPath} exists already` });
        else {
          m.delete(c.path);
          m.set(c.newPath!, { ...existing, executable: c.executable ?? existing.executable });
        }
        break;
      default:
        assertNever(c.op, 'op');
    }
  });
  const clash = pathClash(m);
  if (clash) problems.push({ field: 'changes', message: `${clash[0]} would be both a file and the folder of ${clash[1]}` });
  if (problems.length) throw new ChangeError(problems);
  return m;
}

/** Writes a snapshot for a manifest, or re-uses this namespace's snapshot of the same files. */
export async function snapshotFor(
  c: pg.PoolClient,
  namespace: string,
  m: Manifest,
  now: Date,
  uploaded?: { storage: ObjectStore; contents: Map<string, Buffer> },
): Promise<string> {
  const hash = manifestHash(m);
  const existing = await c.query<{ id: string }>(`SELECT id FROM snapshots WHERE namespace = $1 AND manifest_hash = $2 LIMIT 1`, [namespace, hash]);
  if (existing.rows[0]) {
    await c.query(`UPDATE snapshots SET last_used_at = $2 WHERE id = $1`, [existing.rows[0].id, now]);
    return existing.rows[0].id;
  }
  const id = newId();
  const paths = [...m.keys()].sort();
  const entries = paths.map((p) => m.get(p)!);
  // File object rows first (the snapshot refers to them); a row already there is
  // touched. One row per distinct content: two paths may share it.
  const distinct = new Map(entries.map((e) => [e.hash, e.size]));
  await c.query(
    `INSERT INTO file_objects (hash, size, created_at, last_used_at)
     SELECT h, s, $3, $3 FROM unnest($1::text[], $2::bigint[]) AS t(h, s)
     ON CONFLICT (hash) DO UPDATE SET last_used_at = EXCLUDED.last_used_at`,
    [[...distinct.keys()], [...distinct.values()], now],
  );
  // Storage cleanup deletes objects that have no row and are over an hour old.
  // Content this save uploaded could be such an object's twin, deleted between
  // the upload and the row insert above: put back any that is missing now
  // that the rows exist (the bytes are still in memory).
  if (uploaded) {
    for (const [hash, body] of uploaded.contents) {
      if (!distinct.has(hash)) continue;
      if (!(await uploaded.storage.exists(fileObjectKey(hash)))) await uploaded.storage.put(fileObjectKey(hash), body, { contentType: 'application/octet-stream' });
    }
  }
  await c.query(`INSERT INTO snapshots (id, namespace, manifest_hash, file_count, total_bytes, created_at, last_used_at) VALUES ($1, $2, $3, $4, $5, $6, $6)`, [
    id,
    namespace,
    hash,
    paths.length,
    manifestBytes(m),
    now,
  ]);
  await c.query(
    `INSERT INTO snapshot_files (snapshot_id, path, file_hash, executable)
     SELECT $1, p, h, x FROM unnest($2::text[], $3::text[], $4::boolean[]) AS t(p, h, x)`,
    [id, paths, entries.map((e) => e.hash), entries.map((e) => e.executable)],
  );
  return id;
}

/** Writes a new version whose files are `m`, under the namespace lock held by `c`. */
export async function writeVersion(
  c: pg.PoolClient,
  deps: Pick<SaveDeps, 'storage' | 'now' | 'maxBundleBytes'>,
  ns: { name: string; headVersion: number; headVersionId: string | null },
  head: Manifest,
  m: Manifest,
  meta: { author: string; message: string; changes: unknown; contents: Map<string, Buffer>; gitSha?: string },
): Promise<VersionRow> {
  const bytes = manifestBytes(m);
  if (bytes > deps.maxBundleBytes) throw new TooLargeError(`the namespace's files would total ${bytes} bytes; SVC_MAX_BUNDLE_BYTES allows ${deps.maxBundleBytes}`);
  const now = deps.now();
  const snapshotId = await snapshotFor(c, ns.name, m, now, { storage: deps.storage, contents: meta.contents });
  const version = ns.headVersion + 1;
  const id = newId();
  const row = (
    await c.query<VersionRow>(
      `INSERT INTO namespace_versions (id, namespace, version, author, message, snapshot_id, manifest_hash, file_count, parent_id, changes, created_at, git_sha)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
       RETURNING id, namespace, version, author, message, created_at, file_count, manifest_hash, snapshot_id, git_sha`,
      [id, ns.name, version, meta.author, meta.message, snapshotId, manifestHash(m), m.size, ns.headVersionId, JSON.stringify(meta.changes), now, meta.gitSha ?? null],
    )
  ).rows[0];
  await c.query(`UPDATE namespaces SET head_version = $2, head_version_id = $3, updated_at = $4 WHERE name = $1`, [ns.name, version, id, now]);
  await syncFlows(c, { storage: deps.storage, now }, { namespace: ns.name, versionId: id, author: meta.author, before: head, after: m, contents: meta.contents });
  return row;
}

/** Locks the namespace row for the rest of the transaction. */
export async function lockNamespace(c: pg.PoolClient, name: string): Promise<{ name: string; headVersion: number; headVersionId: string | null }> {
  const r = await c.query<{ head_version: number; head_version_id: string | null }>(`SELECT head_version, head_version_id FROM namespaces WHERE name = $1 FOR UPDATE`, [name]);
  if (!r.rows[0]) throw new NamespaceNotFoundError(name);
  return { name, headVersion: r.rows[0].head_version, headVersionId: r.rows[0].head_version_id };
}

/**
 * Refuses a write into a namespace mapped from a git source (call under the
 * namespace lock: a mapping is created or removed with its source, and the
 * check and the write then see the same mapping).
 */
export async function assertWritable(c: pg.PoolClient | pg.Pool, namespace: string): Promise<void> {
  const r = await c.query<{ name: string }>(`SELECT s.name FROM git_source_mappings m JOIN git_sources s ON s.id = m.git_source_id WHERE m.namespace = $1`, [namespace]);
  if (r.rows[0]) throw new NamespaceReadOnlyError(namespace, r.rows[0].name);
}

export async function saveChanges(deps: SaveDeps, req: SaveRequest): Promise<VersionRow> {
  const exists = await deps.pool.query(`SELECT 1 FROM namespaces WHERE name = $1`, [req.namespace]);
  if (!exists.rowCount) throw new NamespaceNotFoundError(req.namespace);
  // Checked again under the lock; refusing here first spares the uploads.
  if (!req.git) await assertWritable(deps.pool, req.namespace);
  const { prepared, contents } = await prepare(deps, req.changes);
  return inTransaction(deps.pool, async (c) => {
    const ns = await lockNamespace(c, req.namespace);
    if (!req.git) await assertWritable(c, req.namespace);
    if (req.baseVersion !== undefined && req.baseVersion !== ns.headVersion) throw new VersionConflictError(req.baseVersion, ns.headVersion);
    const head = await loadManifest(c, ns.headVersionId);
    const next = applyChanges(head, prepared);
    const summary = prepared.map((p) => ({ op: p.op, path: p.path, ...(p.newPath ? { new_path: p.newPath } : {}) }));
    return writeVersion(c, deps, ns, head, next, { author: req.author, message: req.message, changes: summary, contents, ...(req.git ? { gitSha: req.git.sha } : {}) });
  });
}
