// An in-process dispatcher (the process and inline executors, as main.ts
// builds them) on a database and a file object store of the test's own, with
// seams to inject faults: a pool whose query fails once for a chosen
// statement, a store whose put or get fails once for a chosen key, and the
// dispatcher's own clock.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { loadConfig } from '@svc/config';
import { createDb, Notifier, registerInstance, setInstanceExecutors, type Db } from '@svc/db';
import { createTestDatabase, type TestDatabase } from '@svc/db/testing';
import { Engine } from '@svc/engine';
import { createTestLogger } from '@svc/logging';
import { createNamespace, saveChanges } from '@svc/namespaces';
import type { Clock } from '@svc/service';
import { FileObjectStore, type ObjectStore } from '@svc/storage';
import type { DispatcherContext } from '../src/context.js';
import { Dispatcher, type DispatcherOptions } from '../src/dispatcher.js';
import { inlineExecutor } from '../src/executors/inline.js';
import { processExecutor } from '../src/executors/process.js';
import type { Executor } from '../src/executors/types.js';

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export async function until<T>(what: string, fn: () => Promise<T | undefined | null | false> | T | undefined | null | false, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** Faults to inject: each matching call fails once (the first `times` matching calls). */
export interface Faults {
  /** Fails the next query whose text matches. */
  queryOnce(match: RegExp, times?: number): void;
  /** Fails the next storage put whose key matches. */
  putOnce(match: RegExp, times?: number): void;
  /** Fails the next storage get whose key matches. */
  getOnce(match: RegExp, times?: number): void;
  /** Faults injected so far, by kind. */
  fired: string[];
}

export class InjectedFault extends Error {
  constructor(what: string) {
    super(`injected fault: ${what}`);
    this.name = 'InjectedFault';
  }
}

/** The pool's statements, and those of the clients it lends (transactions), fail as `queries` say. */
function faultyPool(pool: pg.Pool, queries: [RegExp, number][], fired: string[]): pg.Pool {
  const faulty =
    (query: (...a: unknown[]) => unknown) =>
    (q: string | { text: string; statements?: { text: string }[] }, ...rest: unknown[]) => {
      // A pipeline (@svc/db) carries several statements: it fails when one of them would.
      const text = typeof q === 'string' ? q : q.statements ? q.statements.map((s) => s.text).join('\n') : q.text;
      const i = queries.findIndex(([re, n]) => n > 0 && re.test(text));
      if (i >= 0) {
        queries[i]![1]--;
        fired.push(`query ${queries[i]![0]}`);
        return Promise.reject(new InjectedFault(`query ${queries[i]![0]}`));
      }
      return query(q, ...rest);
    };
  const wrapped = new WeakSet<pg.PoolClient>();
  return new Proxy(pool, {
    get(target, prop, receiver) {
      if (prop === 'query') return faulty(target.query.bind(target) as (...a: unknown[]) => unknown);
      if (prop === 'connect') {
        return async () => {
          const c = await target.connect();
          if (!wrapped.has(c)) {
            wrapped.add(c);
            c.query = faulty(c.query.bind(c) as (...a: unknown[]) => unknown) as typeof c.query;
          }
          return c;
        };
      }
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

function faultyStore(store: ObjectStore, puts: [RegExp, number][], gets: [RegExp, number][], fired: string[]): ObjectStore {
  const take = (list: [RegExp, number][], key: string, kind: string) => {
    const i = list.findIndex(([re, n]) => n > 0 && re.test(key));
    if (i < 0) return false;
    list[i]![1]--;
    fired.push(`${kind} ${key}`);
    return true;
  };
  return new Proxy(store, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver);
      if (prop === 'put')
        return async (key: string, ...rest: unknown[]) => {
          if (take(puts, key, 'put')) throw new InjectedFault(`put ${key}`);
          return (v as (...a: unknown[]) => unknown).call(target, key, ...rest);
        };
      if (prop === 'get')
        return async (key: string, ...rest: unknown[]) => {
          if (take(gets, key, 'get')) throw new InjectedFault(`get ${key}`);
          return (v as (...a: unknown[]) => unknown).call(target, key, ...rest);
        };
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

export interface DispatcherEnv {
  db: Db;
  /** The pool the test itself reads with (no faults). */
  pool: pg.Pool;
  storage: FileObjectStore;
  /** An engine on the fault-free pool and store, for the test's own triggers. */
  engine: Engine;
  faults: Faults;
  ctx: DispatcherContext;
  dispatcher: Dispatcher;
  instanceId: string;
  logs: () => Record<string, unknown>[];
  trigger(flowId: string): Promise<string>;
  /** The execution once it ended, with its task runs (attempt order). */
  ended(
    executionId: string,
    ms?: number,
  ): Promise<{ state: string; runs: { id: string; attempt: number; state: string; reason: string; error: string; duration_ms: string | null }[] }>;
  close(): Promise<void>;
}

/**
 * A dispatcher on a fresh database whose namespace `ns` holds `files` (path →
 * content; flows as JSON), registered as run-service registers one.
 */
export async function startDispatcher(
  files: Record<string, string>,
  opts: {
    clock?: Clock;
    /** A migrated database of the test's own (left as it is at close). Default: a fresh test database, dropped at close. */
    databaseUrl?: string;
    dispatcher?: DispatcherOptions;
    /** First delay before the process's notifier re-opens a lost connection (doubling up to 10 s). Default 500 ms. */
    notifyReconnectMs?: number;
    /** Executors besides inline and process (a test's own). */
    extraExecutors?: (ctx: DispatcherContext) => Executor[];
  } = {},
): Promise<DispatcherEnv> {
  const tdb: TestDatabase | undefined = opts.databaseUrl ? undefined : await createTestDatabase();
  const url = opts.databaseUrl ?? tdb!.url;
  const db = createDb({ url, poolSize: 10 });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-dispatcher-'));
  const storage = await FileObjectStore.open(path.join(dir, 'objects'), { fsync: false });
  const now = () => new Date();
  await createNamespace(db.pool, { name: 'ns', createdBy: 't', now: now() });
  await saveChanges(
    { pool: db.pool, storage, now, maxFileBytes: 1 << 20, maxBundleBytes: 1 << 24 },
    { namespace: 'ns', message: 'flows', author: 't', changes: Object.entries(files).map(([p, content]) => ({ op: 'put' as const, path: p, content })) },
  );
  const queries: [RegExp, number][] = [];
  const puts: [RegExp, number][] = [];
  const gets: [RegExp, number][] = [];
  const fired: string[] = [];
  const faults: Faults = {
    queryOnce: (re, times = 1) => void queries.push([re, times]),
    putOnce: (re, times = 1) => void puts.push([re, times]),
    getOnce: (re, times = 1) => void gets.push([re, times]),
    fired,
  };
  const config = loadConfig({ SVC_DATABASE_URL: url, SVC_WORK_DIR: path.join(dir, 'work'), SVC_WORKER_SLOTS: '4' });
  const instanceId = `disp-${path.basename(dir)}`;
  // As run-service registers an instance (the heartbeat loop is not needed for the length of a test).
  await registerInstance(
    db.pool,
    { id: instanceId, kind: 'dispatcher', hostname: 'test', version: 'test', pools: config.pools, executors: ['inline', ...config.executors] },
    new Date(),
  );
  const { logger, lines } = createTestLogger({ level: 'debug' });
  const faultyStorage = faultyStore(storage, puts, gets, fired);
  const faultyDb = { ...db, pool: faultyPool(db.pool, queries, fired) };
  const clock = opts.clock ?? { now };
  // The process's notifier, as runService gives it; `notifyReconnectMs` shortens its first reconnection delay.
  const notifier = new Notifier({ url: db.url, log: logger, applicationName: 'svc-dispatcher-listen', minDelayMs: opts.notifyReconnectMs });
  const ctx: DispatcherContext = {
    config,
    db: faultyDb,
    notifier,
    log: logger,
    clock,
    storage: faultyStorage,
    // The dispatcher's engine sees the faults.
    engine: new Engine({ pool: faultyDb.pool, storage: faultyStorage, clock, config, log: logger }),
    instanceId,
    advertise: (executors) => setInstanceExecutors(db.pool, instanceId, executors),
    heartbeatMs: 200,
    killDelayMs: 1000,
  };
  const engine = new Engine({ pool: db.pool, storage, clock: { now }, config, log: logger });
  const dispatcher = new Dispatcher(ctx, [inlineExecutor(ctx), processExecutor(ctx), ...(opts.extraExecutors?.(ctx) ?? [])], opts.dispatcher);
  await dispatcher.start();
  return {
    db,
    pool: db.pool,
    storage,
    engine,
    faults,
    ctx,
    dispatcher,
    instanceId,
    logs: lines,
    async trigger(flowId) {
      return (await engine.executions.trigger({ namespace: 'ns', flowId, triggerType: 'manual', createdBy: 't' })).id;
    },
    async ended(executionId, ms = 30_000) {
      return until(
        `execution ${executionId} to end`,
        async () => {
          const ex = (await db.pool.query(`SELECT state FROM executions WHERE id = $1`, [executionId])).rows[0];
          if (!ex || ['RUNNING', 'QUEUED', 'CANCELLING'].includes(ex.state)) return undefined;
          const runs = (
            await db.pool.query(`SELECT id, attempt, state, reason, error, duration_ms FROM task_runs WHERE execution_id = $1 ORDER BY task_key, attempt`, [executionId])
          ).rows;
          return { state: ex.state as string, runs };
        },
        ms,
      );
    },
    async close() {
      await dispatcher.stop();
      await notifier.close();
      await db.close();
      await tdb?.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
