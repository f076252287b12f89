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

let url;
try {
  url = readVariable(process.env, 'SVC_DATABASE_URL');
} catch (err) {
  // A ConfigError names the variables and the path, never the URL.
  console.error(JSON.stringify({ level: 'error', message: String(err?.message ?? err) }));
  process.exit(2);
}
if (!url) {
  console.error(JSON.stringify({ level: 'error', message: 'SVC_DATABASE_URL is not set (nor SVC_DATABASE_URL_FILE)' }));
  process.exit(2);
}
let waitMs;
try {
  // Only this variable is read here; parseConfig checks it by the same rule as the services.
  waitMs = parseConfig({ SVC_DATABASE_URL: url, SVC_DATABASE_WAIT: process.env.SVC_DATABASE_WAIT }).databaseWaitMs;
} catch (err) {
  console.error(JSON.stringify({ level: 'error', message: String(err?.message ?? err) }));
  process.exit(2);
}
const db = createDb({ url, applicationName: 'svc-migrate' });
let code = 0;
try {
  await waitForDatabase(db.pool, {
    timeoutMs: waitMs,
    onRetry: (err, waited) =>
      console.error(JSON.stringify({ level: 'warn', message: 'the database is not reachable yet: trying again', err: String(err?.message ?? err), waited_ms: waited })),
  });
  const applied = await applyMigrations(db.pool);
  const status = await migrationStatus(db.pool);
  const line = { level: 'info', message: 'migrations', applied, pending: status.pending, unknown: status.unknown, failed: status.failed };
  console.log(JSON.stringify(line));
  if (status.unknown.length) code = 3;
  else if (status.pending.length || status.failed.length) code = 1;
} catch (err) {
  console.error(JSON.stringify({ level: 'error', message: 'migrations failed', err: String(err?.message ?? err) }));
  code = 1;
} finally {
  await db.close().catch(() => {});
}
process.exit(code);
