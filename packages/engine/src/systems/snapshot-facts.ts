// What a start reads of a snapshot: its `namespace.yaml` executor defaults,
// read once per snapshot and process (snapshots never change).
import type pg from 'pg';
import { fileObjectKey, parseNamespaceFile } from '@svc/namespaces';
import type { Client } from '../db.js';
import type { NamespaceFile } from '../planning/executor.js';
import { namespaceFileHash } from '../sql/start-reads.js';

/**
 * Facts of snapshots kept per process. Snapshots never change, so their
 * `namespace.yaml` executor defaults can be read once (bounded, oldest
 * forgotten first).
 */
export class SnapshotFacts {
  private readonly files = new Map<string, Promise<NamespaceFile>>();
  constructor(private readonly max = 1000) {}
  namespaceFile(snapshotId: string, load: () => Promise<NamespaceFile>): Promise<NamespaceFile> {
    let f = this.files.get(snapshotId);
    if (!f) {
      if (this.files.size >= this.max) this.files.delete(this.files.keys().next().value!);
      f = load();
      f.catch(() => this.files.delete(snapshotId));
      this.files.set(snapshotId, f);
    }
    return f;
  }
}

/** The snapshot's namespace.yaml executor part: null without an object store or the file (or when it does not parse). */
export async function namespaceFileOf(
  c: Client | pg.Pool,
  deps: { storage?: { getBuffer(k: string): Promise<Buffer> }; snapshots?: SnapshotFacts },
  snapshotId: string,
): Promise<NamespaceFile> {
  const storage = deps.storage;
  if (!storage) return null;
  const load = async (): Promise<NamespaceFile> => {
    const hash = await namespaceFileHash(c, { snapshotId });
    if (hash === undefined) return null;
    try {
      return parseNamespaceFile((await storage.getBuffer(fileObjectKey(hash))).toString('utf8'));
    } catch {
      return null;
    }
  };
  return deps.snapshots ? deps.snapshots.namespaceFile(snapshotId, load) : load();
}
