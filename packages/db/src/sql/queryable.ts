import type pg from 'pg';

/** A pool or a checked-out client: every SQL function in this folder takes one. */
export type Queryable = Pick<pg.Pool, 'query'> | Pick<pg.PoolClient, 'query'>;
