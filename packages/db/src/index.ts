export { createDb, prismaOf, survivesConnectionLoss, Prisma, PrismaClient, type Db, type DbOptions, type PrismaDb } from './client.js';
export { newId } from './ids.js';
export { isTransientConnectError, waitForDatabase, type WaitForDatabaseOptions } from './wait.js';
export { ADDITIVE_MARK, applyMigrations, defaultMigrationsDir, loadMigrations, migrationStatus, MigrationError, type Migration, type MigrationStatus } from './migrate.js';
// The embedded cluster itself is a separate entry (`@svc/db/embedded`): see embedded.ts.
export { readEmbeddedConnection, EMBEDDED_INFO_FILE, type EmbeddedConnectionInfo } from './embedded-info.js';
export type { Queryable } from './sql/queryable.js';
export * from './sql/leases.js';
export * from './sql/instances.js';
export { exactTimeText } from './sql/time-key.js';
export { startPostgresKeeper, type KeptPostgres, type KeeperOptions } from './keeper-client.js';
export { afterCommit, afterCommitMark, dropAfterCommitSince, inTransaction } from './transaction.js';
export { pipeline } from './pipeline.js';
export { Notifier, type NotifierOptions, type NotifierLog, type NotificationHandler } from './notifier.js';
export { readSetting, readSettingValue, compareAndSetSetting, writeSetting } from './settings.js';
