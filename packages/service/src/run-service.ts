// The life of every long-running app (api-gateway, scheduler, dispatcher,
// maintenance): parse config (exit 2 when bad), connect, apply migrations,
// serve /healthz, /readyz and /metrics on SVC_HEALTH_PORT (the apps without an
// HTTP API of their own; health-server.ts), register an instance row and
// heartbeat it every 10 s, then on SIGTERM or SIGINT stop the app's own work,
// mark the instance stopped and exit 0. Each process gets one notifier (one
// LISTEN connection) that all its listeners share.
import os from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '@svc/config';
import {
  applyMigrations,
  waitForDatabase,
  createDb,
  heartbeatInstance,
  INSTANCE_HEARTBEAT_INTERVAL_MS,
  markInstanceStopped,
  setInstanceExecutors,
  newId,
  readEmbeddedConnection,
  registerInstance,
  Notifier,
  type Db,
  type InstanceKind,
  type NotifierOptions,
} from '@svc/db';
import { createLogger, type Logger } from '@svc/logging';
import client from 'prom-client';
import { databaseChecks, startHealthServer, type HealthServer } from './health-server.js';
import { httpTimeouts } from './http-timeouts.js';
import { systemClock, type Clock } from './clock.js';
import { registerBuildInfo } from './build-info.js';
import { buildVersion } from './version.js';
import { activeTracing } from './tracing.js';

/** The one typed bag of dependencies an app receives. */
export interface ServiceContext {
  config: Config;
  log: Logger;
  db: Db;
  clock: Clock;
  instanceId: string;
  version: string;
  /**
   * This process's Prometheus registry: the app adds its own metrics. With
   * RunServiceOptions.health it also has the default `process_*` and
   * `nodejs_*` metrics and is served at /metrics of the health server.
   */
  metrics: client.Registry;
  /**
   * Replaces the executor types this instance advertises (dispatchers: an
   * executor whose engine stopped answering is withdrawn, and comes back
   * when it answers again). Kept across a re-registration.
   */
  advertise(executors: string[]): Promise<void>;
  /**
   * Shows `text` under `details.<subject>` of /readyz (without failing it):
   * what an operator should know about how this instance runs, such as an
   * executor that isolates nothing. An empty `text` removes the subject.
   */
  readinessDetail(subject: string, text: string): void;
  /**
   * This process's one LISTEN connection (`application_name`
   * `svc-<kind>-listen`), opened by the first subscriber: everything in the
   * process that waits for a NOTIFY subscribes here, so a process holds one
   * LISTEN connection however many listeners it runs. Closed after the app's
   * own stop.
   */
  notifier: Notifier;
}

export interface ServiceHandle {
  /** Stops the app's own work (servers, loops). Called once, on the first signal. */
  stop(): Promise<void>;
}

export interface RunServiceOptions {
  kind: InstanceKind;
  /** Pools this instance serves (dispatchers). Default: none. */
  pools?: (config: Config) => string[];
  /** Executors this instance runs (dispatchers). Default: none. */
  executors?: (config: Config) => string[];
  start(ctx: ServiceContext): Promise<ServiceHandle>;
  /**
   * Serve /healthz, /readyz and /metrics on SVC_HEALTH_PORT when it is set
   * (the apps without an HTTP API; the gateway serves them on SVC_PORT).
   * Default false.
   */
  health?: boolean;
  /** Environment to read. Default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Options of the process's notifier (ServiceContext.notifier): its reconnection delays, its idle close. Default the Notifier's. */
  notifier?: Pick<NotifierOptions, 'minDelayMs' | 'maxDelayMs' | 'idleCloseMs'>;
}

export class NoDatabaseError extends Error {
  constructor(readonly dataDir: string) {
    super(`SVC_DATABASE_URL is not set and no embedded PostgreSQL is running under ${dataDir}: ` + 'run `npm start` (which starts one) or set SVC_DATABASE_URL');
    this.name = 'NoDatabaseError';
  }
}

/** SVC_DATABASE_URL, else the embedded cluster `npm start` runs under the data dir. */
export function resolveDatabaseUrl(config: Config): string {
  if (config.databaseUrl) return config.databaseUrl;
  const info = readEmbeddedConnection(path.join(config.dataDir, 'postgres'));
  if (!info) throw new NoDatabaseError(config.dataDir);
  return info.url;
}

export async function runService(opts: RunServiceOptions): Promise<void> {
  const config = loadConfig(opts.env ?? process.env);
  const log = createLogger({ service: opts.kind, level: config.logLevel, format: config.logFormat });
  const instanceId = newId();
  const version = buildVersion();
  const clock = systemClock;
  let db: Db;
  try {
    db = createDb({ url: resolveDatabaseUrl(config), applicationName: `svc-${opts.kind}` });
    // Started with its database (Compose, a rollout, a reboot): wait for it to come up, up to SVC_DATABASE_WAIT.
    await waitForDatabase(db.pool, {
      timeoutMs: config.databaseWaitMs,
      onRetry: (err, waitedMs) =>
        log.warn('the database is not reachable yet: trying again', {
          reason: err instanceof Error ? err.message : String(err),
          code: (err as { code?: unknown }).code,
          waited_ms: waitedMs,
          wait_ms: config.databaseWaitMs,
        }),
    });
    const applied = await applyMigrations(db.pool);
    if (applied.length) log.info('migrations applied', { migrations: applied });
  } catch (err) {
    log.error('start-up failed', { err });
    process.exit(1);
  }

  const registration = {
    id: instanceId,
    kind: opts.kind,
    hostname: config.instanceName ?? os.hostname(),
    version,
    pools: opts.pools?.(config) ?? [],
    executors: opts.executors?.(config) ?? [],
    metadata: { pid: process.pid },
  };
  const advertise = async (executors: string[]) => {
    registration.executors = executors;
    await setInstanceExecutors(db.pool, instanceId, executors);
  };
  const metrics = new client.Registry();
  // The gateway's own registry (served on SVC_PORT) carries them for it.
  if (opts.health) {
    client.collectDefaultMetrics({ register: metrics });
    registerBuildInfo(metrics, opts.kind);
  }
  const details: Record<string, string> = {};
  const readinessDetail = (subject: string, text: string) => {
    if (text) details[subject] = text;
    else delete details[subject];
  };
  const childLog = log.child({ instance_id: instanceId });
  const notifier = new Notifier({ url: db.url, log: childLog, applicationName: `svc-${opts.kind}-listen`, ...opts.notifier });
  const ctx: ServiceContext = { config, log: childLog, db, clock, instanceId, version, metrics, advertise, readinessDetail, notifier };

  // Signals are handled from here on, even during start-up: a SIGTERM that
  // arrives while the app is starting waits for the start, then stops it.
  let handle: ServiceHandle | undefined;
  let beat: NodeJS.Timeout | undefined;
  let stopping = false;
  let health: HealthServer | undefined;
  let started: Promise<void> = Promise.resolve();
  const shutdown = async (signal: string) => {
    if (stopping) {
      ctx.log.warn('second signal: exiting at once', { signal });
      process.exit(1);
    }
    stopping = true;
    ctx.log.info('stopping', { signal });
    clearInterval(beat);
    try {
      await started.catch(() => undefined);
      await handle?.stop();
      await notifier.close();
      await markInstanceStopped(db.pool, instanceId);
    } catch (err) {
      ctx.log.error('error while stopping', { err });
    }
    await health?.close();
    await db.close();
    // The spans still buffered (tracing.ts; nothing when tracing is off).
    await (await activeTracing())?.shutdown().catch((err: unknown) => ctx.log.warn('tracing shutdown failed', { err }));
    ctx.log.info('stopped');
    // Let winston flush before exiting.
    setImmediate(() => process.exit(0));
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  // Started by `svc local` with an IPC channel: if that supervisor dies
  // without stopping us (SIGKILL), the channel closes and we stop too.
  if (process.send) process.on('disconnect', () => void shutdown('supervisor gone'));

  started = (async () => {
    // Up before the app's own start, so a slow start (a dispatcher building its
    // runner bundle) reads as alive but not ready rather than as dead.
    if (opts.health && config.healthPort !== undefined) {
      health = await startHealthServer({
        port: config.healthPort,
        host: config.host,
        timeouts: httpTimeouts(config),
        registry: metrics,
        details: () => details,
        checks: {
          ...databaseChecks(db),
          started() {
            if (stopping) return Promise.reject(new Error('stopping'));
            if (!handle) return Promise.reject(new Error('starting'));
            return Promise.resolve();
          },
        },
      });
      ctx.log.info('health listening', { host: config.host, port: health.port, routes: ['/healthz', '/readyz', '/metrics'] });
    }
    await registerInstance(db.pool, registration);
    handle = await opts.start(ctx);
  })();
  try {
    await started;
  } catch (err) {
    log.error('start-up failed', { err });
    await health?.close();
    await db.close();
    process.exit(1);
  }
  if (stopping) return;

  beat = setInterval(() => {
    // The database's clock, not ours: liveness is judged by other hosts, whose clocks may differ from this one.
    heartbeatInstance(db.pool, instanceId)
      .then((alive) => (alive ? undefined : registerInstance(db.pool, registration)))
      .catch((err: unknown) => ctx.log.warn('heartbeat failed', { err }));
  }, INSTANCE_HEARTBEAT_INTERVAL_MS);
  // Kept referenced: it is what holds a service process alive until a signal
  // stops it. The apps' own loops use unreferenced timers, and the open
  // database connections were the only other handles, so a PostgreSQL
  // restart (every connection dropped) let the maintenance process run out
  // of work and exit 0 in silence (found by e2e/test/faults-postgres-restart).
  ctx.log.info('started', { kind: opts.kind, version, pools: registration.pools, executors: registration.executors });
}
