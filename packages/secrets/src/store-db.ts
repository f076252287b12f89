// What the stores run on. Ordinary reads and writes go through Prisma; the
// resolution of references and `vars`, which the engine runs for every task
// (sometimes inside its own transaction, holding the execution's lock), stays
// hand-written SQL on the connection it is given, so it never needs a second
// connection while holding one.
import pg from 'pg';
import { prismaOf, type PrismaDb, type Queryable } from '@svc/db';

/**
 * A store's handle: the pool (both kinds run on it), a Prisma client or
 * transaction (ordinary reads and writes only), or a client checked out for a
 * hand-written transaction (resolution only).
 */
export type StoreDb = pg.Pool | pg.PoolClient | PrismaDb;

export class StoreHandle {
  private readonly prismaDb: PrismaDb | undefined;
  private readonly sqlDb: Queryable | undefined;

  constructor(db: StoreDb) {
    const isPrisma = typeof (db as { $queryRaw?: unknown }).$queryRaw === 'function';
    this.prismaDb = isPrisma || db instanceof pg.Pool ? prismaOf(db as pg.Pool | PrismaDb) : undefined;
    this.sqlDb = isPrisma ? undefined : (db as Queryable);
  }

  get prisma(): PrismaDb {
    if (!this.prismaDb) throw new TypeError('this store was given a client of a hand-written transaction: it can only resolve');
    return this.prismaDb;
  }

  get sql(): Queryable {
    if (!this.sqlDb) throw new TypeError('this store was given Prisma: resolution needs the pool or a client of it');
    return this.sqlDb;
  }
}
