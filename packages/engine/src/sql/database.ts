// Facts of the database itself: its identity and its clock.

/** An identity of the deployment: the cluster's system identifier and the database's name, hashed. */
export const DEPLOYMENT_ID_SQL = `SELECT substr(md5((SELECT system_identifier::text FROM pg_control_system()) || '/' || current_database()), 1, 16) AS id`;

/** The database's clock now (not the transaction's start). */
export const DATABASE_NOW_SQL = `SELECT clock_timestamp() AS now`;
