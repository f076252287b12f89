// Real PostgreSQL for tests: one cluster for the whole run, one database per
// test file cloned from a migrated template, so files run in parallel with no
// reset races. The root test runner starts the cluster and sets
// SVC_TEST_PG_ADMIN_URL; a test file run by hand starts a private cluster.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startPostgresKeeper, type KeptPostgres } from './keeper-client.js';
import { applyMigrations } from './migrate.js';

export const TEMPLATE_DATABASE = 'svc_template';

export interface TestDatabase {
  url: string;
  name: string;
  /** Admin URL of the cluster (for tests that need to kill connections or create more databases). */
  adminUrl: string;
  drop(): Promise<void>;
}

function withDatabase(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** Creates the migrated template database on a cluster (idempotent: recreated each call). */
export async function prepareTemplate(adminUrl: string): Promise<void> {
  await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${TEMPLATE_DATABASE} WITH (FORCE)`);
  await adminQuery(adminUrl, `CREATE DATABASE ${TEMPLATE_DATABASE}`);
  const pool = new pg.Pool({ connectionString: withDatabase(adminUrl, TEMPLATE_DATABASE), max: 1 });
  try {
    await applyMigrations(pool);
  } finally {
    await pool.end();
  }
}

let privateCluster: Promise<KeptPostgres> | undefined;

async function clusterAdminUrl(): Promise<string> {
  if (process.env.SVC_TEST_PG_ADMIN_URL) return process.env.SVC_TEST_PG_ADMIN_URL;
  privateCluster ??= (async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-test-pg-'));
    fs.chmodSync(dir, 0o755);
    // The keeper stops the cluster once this test process is gone.
    const pgRun = await startPostgresKeeper(dir, { database: 'postgres', unref: true, ephemeral: true, stdio: 'ignore', settings: { fsync: 'off' } });
    await prepareTemplate(pgRun.adminUrl);
    return pgRun;
  })();
  return (await privateCluster).adminUrl;
}

/** A fresh, fully migrated database for one test file. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = await clusterAdminUrl();
  const name = `t_${crypto.randomBytes(6).toString('hex')}`;
  await adminQuery(adminUrl, `CREATE DATABASE ${name} TEMPLATE ${TEMPLATE_DATABASE}`);
  return {
    url: withDatabase(adminUrl, name),
    name,
    adminUrl,
    async drop() {
      await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/** An empty database of the test cluster, with a pool on it (a migration's test applies the migrations before the one it tests); `drop` ends the pool, then drops it. */
export async function createEmptyTestDatabase(): Promise<{ pool: pg.Pool; drop(): Promise<void> }> {
  const adminUrl = await clusterAdminUrl();
  const name = `e_${crypto.randomBytes(6).toString('hex')}`;
  await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
  const pool = new pg.Pool({ connectionString: withDatabase(adminUrl, name), max: 2 });
  pool.on('error', () => undefined); // DROP ... WITH (FORCE) below may race the pool's own disconnects
  return {
    pool,
    async drop() {
      await pool.end();
      await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/** Stops the private cluster a hand-run test file started (no-op under the root runner). */
export async function stopPrivateCluster(): Promise<void> {
  if (privateCluster) await (await privateCluster).stop();
}
