// Facts of the database itself: its identity and its clock.
import type { Queryable } from '@svc/db';

/** An identity of the deployment: the cluster's system identifier and the database's name, hashed. */
export async function deploymentId(db: Queryable): Promise<string> {
  const r = await db.query<{ id: string }>(`SELECT substr(md5((SELECT system_identifier::text FROM pg_control_system()) || '/' || current_database()), 1, 16) AS id`);
  return r.rows[0].id;
}

/** The database's clock now (not the transaction's start). */
export async function databaseNow(db: Queryable): Promise<Date> {
  return (await db.query<{ now: Date }>(`SELECT clock_timestamp() AS now`)).rows[0].now;
}
