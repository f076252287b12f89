// Reading namespaces: manifests of versions, files, versions, diffs.
import type pg from 'pg';
import { createTwoFilesPatch } from 'diff';
import type { Queryable } from '@svc/db';
import type { ObjectStore } from '@svc/storage';
import { FileNotFoundError, NamespaceNotFoundError, VersionNotFoundError } from './errors.js';
import { fileObjectKey, type Manifest, type ManifestEntry } from './manifest.js';

/** The files of a version (by its id); an empty manifest for a namespace with no version yet. */
export async function loadManifest(db: Queryable | pg.PoolClient, versionId: string | null): Promise<Manifest> {
  if (!versionId) return new Map();
  const r = await db.query<{ path: string; file_hash: string; executable: boolean; size: string }>(
    `SELECT sf.path, sf.file_hash, sf.executable, fo.size
     FROM namespace_versions v JOIN snapshot_files sf ON sf.snapshot_id = v.snapshot_id JOIN file_objects fo ON fo.hash = sf.file_hash
     WHERE v.id = $1`,
    [versionId],
  );
  return new Map(r.rows.map((x) => [x.path, { hash: x.file_hash, executable: x.executable, size: Number(x.size) }]));
}

export interface ResolvedVersion {
  namespace: string;
  version: number;
  id: string | null;
  snapshotId: string | null;
  /** The git commit the version's files came from (a sync); null when a user saved it. */
  gitSha: string | null;
}

/** A version of a namespace: the head when `version` is undefined (version 0 is the empty namespace). */
export async function resolveVersion(db: Queryable, namespace: string, version?: number): Promise<ResolvedVersion> {
  const ns = await db.query<{ head_version: number; head_version_id: string | null }>(`SELECT head_version, head_version_id FROM namespaces WHERE name = $1`, [namespace]);
  if (!ns.rows[0]) throw new NamespaceNotFoundError(namespace);
  const v = version ?? ns.rows[0].head_version;
  if (v === 0) return { namespace, version: 0, id: null, snapshotId: null, gitSha: null };
  const r = await db.query<{ id: string; snapshot_id: string; git_sha: string | null }>(
    `SELECT id, snapshot_id, git_sha FROM namespace_versions WHERE namespace = $1 AND version = $2`,
    [namespace, v],
  );
  if (!r.rows[0]) throw new VersionNotFoundError(v);
  return { namespace, version: v, id: r.rows[0].id, snapshotId: r.rows[0].snapshot_id, gitSha: r.rows[0].git_sha };
}

/** Whether the snapshot holds a file at `path`. */
export async function snapshotHasFile(db: Queryable, snapshotId: string, path: string): Promise<boolean> {
  return ((await db.query(`SELECT 1 FROM snapshot_files WHERE snapshot_id = $1 AND path = $2`, [snapshotId, path])).rowCount ?? 0) > 0;
}

/** Text when the bytes are UTF-8 without NUL (what editors show), else binary. */
export function isText(b: Buffer): boolean {
  if (b.subarray(0, 8000).includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(b);
    return true;
  } catch {
    return false;
  }
}

export interface FileRead {
  path: string;
  version: number;
  entry: ManifestEntry;
  content: Buffer;
}

export async function readFile(db: Queryable, storage: ObjectStore, namespace: string, path: string, version?: number): Promise<FileRead> {
  const v = await resolveVersion(db, namespace, version);
  const m = await loadManifest(db, v.id);
  const entry = m.get(path);
  if (!entry) throw new FileNotFoundError(path, v.version);
  return { path, version: v.version, entry, content: await storage.getBuffer(fileObjectKey(entry.hash)) };
}

// A type, not an interface, so it fits the document's FileDiff (an open object) as the answer of diffVersions.
export type FileDiff = {
  path: string;
  status: 'added' | 'deleted' | 'modified' | 'mode_changed';
  binary: boolean;
  executable: { from: boolean | null; to: boolean | null };
  /** Unified diff (absent for binary files, mode-only changes and `too_large` ones). */
  diff?: string;
  /** The texts were too large, or too different, for a line diff within the bounds of `boundedPatch`. */
  too_large?: true;
};

/** Texts larger than this (either side) get no line diff. */
export const MAX_DIFF_BYTES = 1024 * 1024;
/** The most text one request diffs, over all its files; files past it get no line diff. */
export const MAX_DIFF_BYTES_PER_REQUEST = 8 * 1024 * 1024;
/** A line diff gives up past this many edits, or after this many milliseconds. */
const DIFF_LIMITS = { maxEditLength: 20_000, timeout: 2_000 };

/**
 * A unified diff of two texts, bounded and off the event loop's critical
 * path: jsdiff's async mode yields between steps, so other requests keep
 * being served, and it gives up (undefined) past DIFF_LIMITS, as it does at
 * once for texts past MAX_DIFF_BYTES. Any viewer can ask for diffs of files
 * up to SVC_MAX_FILE_BYTES: unbounded, one request held the event loop.
 */
export function boundedPatch(oldName: string, newName: string, a: string, b: string, oldHeader: string, newHeader: string): Promise<string | undefined> {
  if (Buffer.byteLength(a) > MAX_DIFF_BYTES || Buffer.byteLength(b) > MAX_DIFF_BYTES) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    createTwoFilesPatch(oldName, newName, a, b, oldHeader, newHeader, { ...DIFF_LIMITS, callback: (patch: string | undefined) => resolve(patch) });
  });
}

/** Per-file unified diffs between two versions; files whose bytes and mode are equal are left out. */
export async function diffVersions(db: Queryable, storage: ObjectStore, namespace: string, from: number, to?: number, onlyPath?: string) {
  const a = await resolveVersion(db, namespace, from);
  const b = await resolveVersion(db, namespace, to);
  const [ma, mb] = [await loadManifest(db, a.id), await loadManifest(db, b.id)];
  const paths = [...new Set([...ma.keys(), ...mb.keys()])].filter((p) => onlyPath === undefined || p === onlyPath).sort();
  const files: FileDiff[] = [];
  let budget = MAX_DIFF_BYTES_PER_REQUEST;
  for (const path of paths) {
    const x = ma.get(path);
    const y = mb.get(path);
    if (x && y && x.hash === y.hash && x.executable === y.executable) continue;
    const status: FileDiff['status'] = !x ? 'added' : !y ? 'deleted' : x.hash === y.hash ? 'mode_changed' : 'modified';
    const [bx, by] = await Promise.all([x ? storage.getBuffer(fileObjectKey(x.hash)) : Buffer.alloc(0), y ? storage.getBuffer(fileObjectKey(y.hash)) : Buffer.alloc(0)]);
    const binary = !isText(bx) || !isText(by);
    const d: FileDiff = { path, status, binary, executable: { from: x?.executable ?? null, to: y?.executable ?? null } };
    if (!binary && status !== 'mode_changed') {
      budget -= bx.length + by.length;
      const patch =
        budget < 0
          ? undefined
          : await boundedPatch(
              x ? `a/${path}` : '/dev/null',
              y ? `b/${path}` : '/dev/null',
              bx.toString('utf8'),
              by.toString('utf8'),
              `version ${a.version}`,
              `version ${b.version}`,
            );
      if (patch === undefined) d.too_large = true;
      else d.diff = patch;
    }
    files.push(d);
  }
  return { namespace, from: a.version, to: b.version, files };
}
