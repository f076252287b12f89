// A real database with namespaces and flows saved through @svc/namespaces
// (so `flows` and `flow_triggers` are written as the gateway writes them),
// and schedulers driven with an injected clock.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '@svc/db/testing';
import { createNamespace, saveChanges, type SaveDeps } from '@svc/namespaces';
import { FileObjectStore } from '@svc/storage';
import { testEngine } from '@svc/engine/internal';
import { Scheduler, type SchedulerDeps } from '../src/index.js';

export interface World {
  pool: pg.Pool;
  save(ns: string, files: Record<string, string | null>): Promise<void>;
  /** A scheduler on its own pool (as another instance would be). */
  scheduler(opts?: Partial<SchedulerDeps>): Scheduler;
  close(): Promise<void>;
}

export const silent = { info: () => undefined, warn: () => undefined };

/** A flow file's text (JSON is valid YAML) with one `true` command task. */
export function flowFile(id: string, triggers: Record<string, unknown>[], extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ id, triggers, tasks: [{ id: 't', type: 'command', command: ['true'] }], ...extra });
}

export async function startWorld(): Promise<World> {
  const tdb: TestDatabase = await createTestDatabase();
  const pool = new pg.Pool({ connectionString: tdb.url, max: 4 });
  // Dropping the database at the end ends idle connections: not an error of the test.
  pool.on('error', () => undefined);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-scheduler-'));
  const storage = await FileObjectStore.open(path.join(dir, 'objects'));
  const deps: SaveDeps = { pool, storage, now: () => new Date(), maxFileBytes: 1 << 20, maxBundleBytes: 10 << 20 };
  const namespaces = new Set<string>();
  const pools: pg.Pool[] = [pool];
  return {
    pool,
    async save(ns, files) {
      if (!namespaces.has(ns)) {
        await createNamespace(pool, { name: ns, createdBy: 'test', now: new Date() });
        namespaces.add(ns);
      }
      await saveChanges(deps, {
        namespace: ns,
        message: 'test',
        author: 'test',
        changes: Object.entries(files).map(([p, content]) => (content === null ? { op: 'delete' as const, path: p } : { op: 'put' as const, path: p, content })),
      });
    },
    scheduler(opts = {}) {
      const own = new pg.Pool({ connectionString: tdb.url, max: 4 });
      own.on('error', () => undefined);
      pools.push(own);
      return new Scheduler({ pool: own, log: silent, engine: testEngine({ pool: own, storage }), ...opts });
    },
    async close() {
      await Promise.all(pools.map((p) => p.end()));
      await tdb.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `iso` plus `seconds`. */
export const at = (iso: string, seconds = 0) => new Date(Date.parse(iso) + seconds * 1000);

/** Executions started by schedules: trigger id and fire time, oldest fire first. */
export async function scheduledRuns(
  pool: pg.Pool,
  where = 'true',
  params: unknown[] = [],
): Promise<{ id: string; namespace: string; flow_id: string; trigger_id: string; fire_time: string; created_by: string; state: string }[]> {
  const r = await pool.query(
    `SELECT id, namespace, flow_id, trigger_id, trigger_payload->>'fire_time' AS fire_time, created_by, state FROM executions
     WHERE trigger_type = 'schedule' AND ${where} ORDER BY trigger_payload->>'fire_time', namespace, flow_id, trigger_id`,
    params,
  );
  return r.rows;
}
