import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { Prisma, PrismaClient } from './generated/prisma/client.js';

export { Prisma, PrismaClient };

/** Prisma for ordinary reads and writes: the client, or the client of an interactive transaction. */
export type PrismaDb = PrismaClient | Prisma.TransactionClient;

/**
 * The database handle every app receives: Prisma for ordinary reads and
 * writes, and the pool it runs on for the hand-written SQL in `sql/` (claims,
 * leases, the engine's hot path, LISTEN/NOTIFY). One pool serves both, so
 * `poolSize` is the process's whole budget of connections.
 */
export interface Db {
  prisma: PrismaClient;
  pool: pg.Pool;
  url: string;
  close(): Promise<void>;
}

export interface DbOptions {
  /** Connection string of the PostgreSQL database. */
  url: string;
  /** Connections in the pool that Prisma and the hand-written SQL share. Default 10. */
  poolSize?: number;
  /** Name reported in pg_stat_activity. Default `svc`. */
  applicationName?: string;
}

/** As long as the pool waits for a connection, so a busy pool refuses a Prisma transaction no sooner than a hand-written one. */
const TRANSACTION_MAX_WAIT_MS = 10_000;
/**
 * Prisma's default of 5 s would abort transactions that hash a password
 * (bootstrapAdmin) on a loaded machine; hand-written transactions have no
 * limit at all.
 */
const TRANSACTION_TIMEOUT_MS = 60_000;

// The Prisma client of each pool: createDb's own, or one made on first use for
// callers that hold only a pool (the engine passes `pool` to the secret and
// variable stores, tests build pools of their own). Keyed by the pool, so two
// Db instances in one process stay apart.
const clients = new WeakMap<pg.Pool, PrismaClient>();

function prismaOnPool(pool: pg.Pool): PrismaClient {
  // PrismaPg takes the pool as is (an `instanceof pg.Pool` check): its queries
  // and transactions check connections out of it, it opens none of its own.
  return new PrismaClient({ adapter: new PrismaPg(pool), transactionOptions: { maxWait: TRANSACTION_MAX_WAIT_MS, timeout: TRANSACTION_TIMEOUT_MS } });
}

/**
 * Prisma for `db`: itself when it is Prisma already, else the client that
 * runs on that pool. There is none for a client checked out of the pool: a
 * hand-written transaction runs hand-written SQL only.
 */
export function prismaOf(db: pg.Pool | PrismaDb): PrismaDb {
  if (!(db instanceof pg.Pool)) {
    if (typeof (db as { $queryRaw?: unknown }).$queryRaw !== 'function')
      throw new TypeError('expected a pg.Pool or a Prisma client; a client checked out of the pool runs hand-written SQL only');
    return db;
  }
  let client = clients.get(db);
  if (!client) {
    client = prismaOnPool(db);
    clients.set(db, client);
  }
  return client;
}

/**
 * Keeps a pool's lost connections (a database restart, a terminated backend)
 * from crashing the process. pg emits 'error' on a client whose connection
 * ends, and the pool listens for it only while the client is idle: a client
 * checked out at that moment (a transaction between two statements, a claim
 * in flight) has no listener, and the error becomes an uncaught exception
 * that kills the process (the PostgreSQL restart fault test lost both
 * dispatchers that way). Its queries fail anyway, and the pool drops it when
 * it is released. `onIdleError` hears the losses of idle clients.
 */
export function survivesConnectionLoss(pool: pg.Pool, onIdleError: (err: Error) => void = () => undefined): pg.Pool {
  pool.on('error', onIdleError);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

export function createDb(opts: DbOptions): Db {
  const applicationName = opts.applicationName ?? 'svc';
  const pool = survivesConnectionLoss(new pg.Pool({ connectionString: opts.url, max: opts.poolSize ?? 10, application_name: applicationName, connectionTimeoutMillis: 10_000 }));
  const prisma = prismaOf(pool) as PrismaClient;
  let closed = false;
  return {
    prisma,
    pool,
    url: opts.url,
    async close() {
      if (closed) return;
      closed = true;
      // Prisma does not end a pool it was given; the pool goes last.
      await prisma.$disconnect().catch(() => undefined);
      await pool.end();
    },
  };
}
