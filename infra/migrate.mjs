#!/usr/bin/env node
// Applies the database migrations this image carries, then exits: the command
// of the Kubernetes migration Job and of the Compose `migrate` service, run
// before a rollout. Services apply pending migrations at start too, under the
// same advisory lock (Prisma Migrate's), so whichever comes first applies them
// once and the others find nothing to do. Exit codes: 0 done, 1 failed, 2 no
// SVC_DATABASE_URL (nor SVC_DATABASE_URL_FILE, the file of a mounted secret,
// read by the same rule as the services) or an invalid SVC_DATABASE_WAIT, 3
// the database carries migrations this image does not know (a newer release
// migrated it: roll forward instead).
//   node /app/migrate.mjs
// It waits for the database as the services do (SVC_DATABASE_WAIT, default
// 60s): a Job or service started together with PostgreSQL retries while it is
// not listening or still starting, and ends at once on a wrong password.
import { parseConfig, readVariable } from '@svc/config';
import { applyMigrations, createDb, migrationStatus, waitForDatabase } from '@svc/db';
import { createLogger } from '@svc/logging';

// The project's logger (winston, one JSON line per entry, or text), as the
// services write theirs. Until SVC_LOG_LEVEL and SVC_LOG_FORMAT are checked
// it writes at the defaults; a bad value is itself reported that way.
let log = createLogger({ service: 'svc-migrate' });
const fail = (message, meta) => {
  log.error(message, meta);
  return new Promise((resolve) => log.on('finish', resolve).end());
};

let url;
try {
  url = readVariable(process.env, 'SVC_DATABASE_URL');
} catch (err) {
  // A ConfigError names the variables and the path, never the URL.
  await fail(String(err?.message ?? err));
  process.exit(2);
}
if (!url) {
  await fail('SVC_DATABASE_URL is not set (nor SVC_DATABASE_URL_FILE)');
  process.exit(2);
}
let waitMs;
try {
  // Only these variables are read here; parseConfig checks them by the same rule as the services.
  const config = parseConfig({
    SVC_DATABASE_URL: url,
    SVC_DATABASE_WAIT: process.env.SVC_DATABASE_WAIT,
    SVC_LOG_LEVEL: process.env.SVC_LOG_LEVEL,
    SVC_LOG_FORMAT: process.env.SVC_LOG_FORMAT,
  });
  waitMs = config.databaseWaitMs;
  log = createLogger({ service: 'svc-migrate', level: config.logLevel, format: config.logFormat });
} catch (err) {
  await fail(String(err?.message ?? err));
  process.exit(2);
}
const db = createDb({ url, applicationName: 'svc-migrate' });
let code = 0;
try {
  await waitForDatabase(db.pool, {
    timeoutMs: waitMs,
    onRetry: (err, waited) => log.warn('the database is not reachable yet: trying again', { err: String(err?.message ?? err), waited_ms: waited }),
  });
  const applied = await applyMigrations(db.pool);
  const status = await migrationStatus(db.pool);
  log.info('migrations', { applied, pending: status.pending, unknown: status.unknown, failed: status.failed });
  if (status.unknown.length) code = 3;
  else if (status.pending.length || status.failed.length) code = 1;
} catch (err) {
  log.error('migrations failed', { err: String(err?.message ?? err) });
  code = 1;
} finally {
  await db.close().catch(() => {});
}
// Every line written before the exit.
await new Promise((resolve) => log.on('finish', resolve).end());
process.exit(code);
