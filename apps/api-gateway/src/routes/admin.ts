// listInstances and getStorageStatus (admin only; the role check is the
// operation's `auth`). Instances are few (rows go 24 hours after their last
// heartbeat), so they are read whole and paged in memory by id. The storage
// status lists the object store within a time budget and adds the record the
// maintenance lease holder writes after each storage cleanup.
import type { Db } from '@svc/db';
import { listInstances, readSetting, type InstanceRow } from '@svc/db';
import type { OperationHandlers } from '@svc/http';
import type { ObjectStore } from '@svc/storage';
import type { AuthPrincipal } from '../identity/principal.js';
import type { Answer, Schemas } from '@svc/api-spec';

/** The `settings` key under which apps/maintenance records the last storage cleanup (JSON). */
export const STORAGE_CLEANUP_SETTING = 'storage_cleanup';
/** The cleanup runs at most once in 24 hours (spec). */
const CLEANUP_INTERVAL_MS = 24 * 3_600_000;
/** Listing the store stops after this long; the counts are then marked incomplete. Default 5 s. */
export const STORAGE_SCAN_BUDGET_MS = 5_000;

export const OBJECT_KINDS = ['files', 'bundles', 'artifacts', 'logs', 'other'] as const;
export type ObjectKind = (typeof OBJECT_KINDS)[number];

export interface AdminRouteDeps {
  db: Db;
  storage: ObjectStore;
  now: () => Date;
  /** A test's clock for judging instances Online; default the database's clock (hosts' clocks may disagree). */
  clockOverride?: () => Date;
  /** See {@link STORAGE_SCAN_BUDGET_MS}. */
  scanBudgetMs?: number;
}

export function kindOfKey(key: string): ObjectKind {
  const top = key.split('/', 1)[0];
  return top === 'files' || top === 'bundles' || top === 'artifacts' || top === 'logs' ? top : 'other';
}

function instanceItem(i: InstanceRow): Schemas['Instance'] {
  return {
    id: i.id,
    hostname: i.hostname,
    version: i.version,
    kind: i.kind,
    pools: i.pools,
    executors: i.executors,
    started_at: i.startedAt.toISOString(),
    last_heartbeat_at: i.lastHeartbeatAt.toISOString(),
    stopped_at: i.stoppedAt?.toISOString() ?? null,
    online: i.online,
    status: i.online ? 'Online' : 'Offline',
  };
}

/** Counts and bytes of the store's objects by kind, listing for at most `budgetMs`. */
export async function scanStore(storage: ObjectStore, budgetMs: number): Promise<{ by_kind: Record<ObjectKind, { objects: number; bytes: number }>; complete: boolean }> {
  const by_kind = Object.fromEntries(OBJECT_KINDS.map((k) => [k, { objects: 0, bytes: 0 }])) as Record<ObjectKind, { objects: number; bytes: number }>;
  const deadline = performance.now() + budgetMs;
  for await (const o of storage.list('')) {
    const k = by_kind[kindOfKey(o.key)];
    k.objects += 1;
    k.bytes += o.size;
    if (performance.now() > deadline) return { by_kind, complete: false };
  }
  return { by_kind, complete: true };
}

/**
 * The cleanup record as apps/maintenance writes it (the StorageCleanup
 * object); a record without a readable `started_at` is none.
 */
function parseRecord(text: string | undefined): Schemas['StorageCleanup'] | null {
  if (!text) return null;
  try {
    const v: unknown = JSON.parse(text);
    if (!v || typeof v !== 'object' || Array.isArray(v)) return null;
    const startedAt = (v as { started_at?: unknown }).started_at;
    return typeof startedAt === 'string' && !Number.isNaN(Date.parse(startedAt)) ? (v as Schemas['StorageCleanup']) : null;
  } catch {
    return null;
  }
}

export function adminHandlers(deps: AdminRouteDeps) {
  return {
    async listInstances({ query, cursor, encodeCursor }) {
      const limit = query.limit;
      // Checked against the operation's cursor shape before the handler runs.
      const after = cursor?.id;
      const rows = (await listInstances(deps.db.pool, deps.clockOverride?.()))
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .filter((i) => after === undefined || i.id > after);
      const page = rows.slice(0, limit);
      const tail = page[page.length - 1];
      return {
        items: page.map(instanceItem),
        ...(rows.length > limit && tail ? { next_cursor: encodeCursor({ id: tail.id }) } : {}),
      } satisfies Answer<'listInstances'>;
    },

    async getStorageStatus() {
      const [scan, setting] = await Promise.all([scanStore(deps.storage, deps.scanBudgetMs ?? STORAGE_SCAN_BUDGET_MS), readSetting(deps.db.prisma, STORAGE_CLEANUP_SETTING)]);
      const last = parseRecord(setting);
      const startedAt = last ? Date.parse(last.started_at) : NaN;
      const total = Object.values(scan.by_kind).reduce((t, k) => ({ objects: t.objects + k.objects, bytes: t.bytes + k.bytes }), { objects: 0, bytes: 0 });
      return {
        store: deps.storage.kind,
        scanned_at: deps.now().toISOString(),
        complete: scan.complete,
        objects: scan.by_kind,
        total,
        last_cleanup: last,
        next_cleanup_after: Number.isNaN(startedAt) ? null : new Date(startedAt + CLEANUP_INTERVAL_MS).toISOString(),
      } satisfies Answer<'getStorageStatus'>;
    },
  } satisfies OperationHandlers<AuthPrincipal>;
}
