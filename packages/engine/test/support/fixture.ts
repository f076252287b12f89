// The engine tests' common ground: a database of their own, a pool on it, a
// file object store, and one namespace holding the flows they run, saved
// through @svc/namespaces as users save them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createTestDatabase } from '@svc/db/testing';
import { createNamespace, saveChanges } from '@svc/namespaces';
import { FileObjectStore } from '@svc/storage';
import type { StartDeps } from '../../src/internal.js';

export interface EngineFixture {
  /** The first pool on the database. */
  pool: pg.Pool;
  deps: StartDeps;
  /** Another pool on the same database (another process, say); ended by close(). */
  newPool(): pg.Pool;
  close(): Promise<void>;
}

/** A fresh database with namespace `namespace` holding `flows` (file path → flow definition). */
export async function engineFixture(namespace: string, flows: Record<string, unknown>): Promise<EngineFixture> {
  const tdb = await createTestDatabase();
  const pools: pg.Pool[] = [];
  const newPool = () => {
    const p = new pg.Pool({ connectionString: tdb.url, max: 6 });
    p.on('error', () => undefined);
    pools.push(p);
    return p;
  };
  const pool = newPool();
  const storage = await FileObjectStore.open(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'svc-engine-')), 'objects'));
  const deps: StartDeps = { config: { defaultExecutor: 'process', now: () => new Date() }, storage };
  await createNamespace(pool, { name: namespace, createdBy: 'test', now: new Date() });
  await saveChanges(
    { pool, storage, now: () => new Date(), maxFileBytes: 1 << 20, maxBundleBytes: 10 << 20 },
    {
      namespace,
      message: 'test',
      author: 'test',
      changes: Object.entries(flows).map(([file, def]) => ({ op: 'put' as const, path: file, content: JSON.stringify(def) })),
    },
  );
  return {
    pool,
    deps,
    newPool,
    async close() {
      await Promise.all(pools.map((p) => p.end()));
      await tdb.drop();
    },
  };
}
