import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from './generated/prisma/client.js';

export { PrismaClient };

/**
 * The database handle every app receives: Prisma for ordinary reads and
 * writes, and a plain pg pool for the hand-written SQL in `sql/` (claims,
 * leases, LISTEN/NOTIFY).
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
  /** Connections in the raw pool. Default 10. */
  poolSize?: number;
  /** Connections Prisma's adapter may open. Default 10. */
  prismaPoolSize?: number;
  /** Name reported in pg_stat_activity. Default `svc`. */
  applicationName?: string;
}

export function createDb(opts: DbOptions): Db {
  const applicationName = opts.applicationName ?? 'svc';
  const pool = new pg.Pool({ connectionString: opts.url, max: opts.poolSize ?? 10, application_name: applicationName, connectionTimeoutMillis: 10_000 });
  // An idle client losing its connection (database restart) must not crash the process.
  pool.on('error', () => undefined);
  const adapter = new PrismaPg({ connectionString: opts.url, max: opts.prismaPoolSize ?? 10, application_name: applicationName, connectionTimeoutMillis: 10_000 });
  const prisma = new PrismaClient({ adapter });
  let closed = false;
  return {
    prisma,
    pool,
    url: opts.url,
    async close() {
      if (closed) return;
      closed = true;
      await Promise.allSettled([prisma.$disconnect(), pool.end()]);
    },
  };
}
