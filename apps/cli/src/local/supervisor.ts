// `svc local` (what `npm start` runs): the whole service on one machine.
// Starts the embedded PostgreSQL unless SVC_DATABASE_URL is set, applies
// migrations, then runs api-gateway, scheduler, dispatcher and maintenance as
// separate processes (the same binaries operators deploy one by one), restarts
// one that crashes, and on Ctrl-C stops the services first, the database last.
import { fork, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig, type Config } from '@svc/config';
import type { RequestBody } from '../api/types.js';
import { applyMigrations, createDb, startPostgresKeeper, type KeptPostgres } from '@svc/db';
import { bootstrapAdmin, generatePassword } from '@svc/identity';

const here = path.dirname(fileURLToPath(import.meta.url));
const appsDir = path.resolve(here, '../../..');
export const LOCAL_SERVICES = ['api-gateway', 'scheduler', 'dispatcher', 'maintenance'] as const;
/** How long a service may take to stop before it is killed. */
const STOP_GRACE_MS = 20_000;

interface Io {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

function say(io: Io, msg: string): void {
  io.stderr.write(`[svc local] ${msg}\n`);
}

/**
 * A key generated once and kept in the data dir (embedded mode only), when
 * SVC_MASTER_KEYS (or SVC_MASTER_KEYS_FILE) gives none; the services read a
 * configured one themselves.
 */
function localMasterKeys(config: Config): string | undefined {
  if (config.masterKeys.length || config.databaseUrl) return undefined;
  const file = path.join(config.dataDir, 'master-keys');
  if (!fs.existsSync(file)) {
    fs.mkdirSync(config.dataDir, { recursive: true });
    fs.writeFileSync(file, `local1:${crypto.randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
  }
  return fs.readFileSync(file, 'utf8').trim();
}

function waitExit(child: ChildProcess, ms: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(() => {
      child.kill('SIGKILL');
    }, ms);
    child.once('exit', () => {
      clearTimeout(t);
      resolve();
    });
  });
}

async function startDatabase(config: Config, io: Io): Promise<{ url: string; kept?: KeptPostgres }> {
  if (config.databaseUrl) return { url: config.databaseUrl };
  const dir = path.join(config.dataDir, 'postgres');
  say(io, `starting embedded PostgreSQL under ${dir}`);
  const kept = await startPostgresKeeper(dir, { database: 'svc' });
  return { url: kept.url, kept };
}

async function waitReady(url: string, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    try {
      const r = await fetch(`${url}/readyz`);
      if (r.status === 200) return true;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

export async function runLocal(_args: string[], io: Io, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const config = loadConfig(env);
  fs.mkdirSync(config.dataDir, { recursive: true });
  const { url, kept } = await startDatabase(config, io);

  const db = createDb({ url, applicationName: 'svc-local' });
  let createdAdmin: RequestBody<'login'> | undefined;
  try {
    const applied = await applyMigrations(db.pool);
    if (applied.length) say(io, `applied migrations: ${applied.join(', ')}`);
    // Embedded mode without SVC_ADMIN_EMAIL: a first admin with a generated
    // password, printed once (the api-gateway creates the configured one otherwise).
    if (!config.databaseUrl && !config.adminEmail) {
      const password = generatePassword();
      const user = await bootstrapAdmin(db.pool, { email: 'admin@localhost', password }, new Date());
      if (user) createdAdmin = { email: user.email, password };
    }
  } finally {
    await db.close();
  }

  const masterKeys = localMasterKeys(config);
  // The embedded database's URL is handed down; a configured one (SVC_DATABASE_URL or its _FILE) is read by each service itself.
  const childEnv: NodeJS.ProcessEnv = { ...env, ...(kept ? { SVC_DATABASE_URL: url } : {}), SVC_DATA_DIR: config.dataDir };
  if (masterKeys) childEnv.SVC_MASTER_KEYS = masterKeys;

  const children = new Map<string, ChildProcess>();
  let stopping = false;
  const crashes = new Map<string, number[]>();

  // One host, one port each: a health port N goes to maintenance, N+1 to the
  // scheduler, N+2 to the dispatcher (0, a free port each, to all of them).
  const healthOffset = { maintenance: 0, scheduler: 1, dispatcher: 2 } as const;
  const envOf = (name: (typeof LOCAL_SERVICES)[number]): NodeJS.ProcessEnv => {
    if (!config.healthPort || name === 'api-gateway') return childEnv;
    const rest = { ...childEnv };
    delete rest.SVC_METRICS_PORT;
    return { ...rest, SVC_HEALTH_PORT: String(config.healthPort + healthOffset[name]) };
  };

  const spawnService = (name: (typeof LOCAL_SERVICES)[number]) => {
    const child = fork(path.join(appsDir, name, 'dist', 'main.js'), [], { detached: true, env: envOf(name), stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    children.set(name, child);
    child.once('exit', (code, signal) => {
      if (stopping) return;
      const recent = (crashes.get(name) ?? []).filter((t) => Date.now() - t < 60_000);
      recent.push(Date.now());
      crashes.set(name, recent);
      if (recent.length > 5) {
        say(io, `${name} exited (${signal ?? code}) ${recent.length} times in a minute; stopping`);
        void shutdown(1);
        return;
      }
      say(io, `${name} exited (${signal ?? code}); restarting in 1 s`);
      setTimeout(() => !stopping && spawnService(name), 1_000);
    });
  };

  let resolveDone!: (code: number) => void;
  const done = new Promise<number>((r) => (resolveDone = r));
  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    say(io, 'stopping services');
    for (const c of children.values()) c.kill('SIGTERM');
    await Promise.all([...children.values()].map((c) => waitExit(c, STOP_GRACE_MS)));
    if (kept) {
      say(io, 'stopping embedded PostgreSQL');
      await kept.stop();
    }
    say(io, 'stopped');
    resolveDone(code);
  };
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));

  for (const name of LOCAL_SERVICES) spawnService(name);
  const base = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
  if (await waitReady(base, 60_000)) {
    io.stdout.write(`\nsvc is up: ${base}  (Ctrl-C stops it)\n`);
    if (createdAdmin) {
      io.stdout.write(
        `first admin: ${createdAdmin.email}  password: ${createdAdmin.password}  (shown once; change it with POST /api/v1/auth/password or svc user reset-password)\n`,
      );
    }
    io.stdout.write('\n');
  } else if (!stopping) {
    say(io, `the api-gateway did not become ready at ${base}/readyz within 60 s; see the logs above`);
  }
  return done;
}
