// The HTTP surface of the apps without an API of their own (scheduler,
// dispatcher, maintenance), on SVC_HEALTH_PORT, for Kubernetes probes, the
// image HEALTHCHECK and Prometheus:
//   GET /healthz  200 while the process answers HTTP (liveness)
//   GET /readyz   200 when the database answers, holds exactly this build's
//                 migrations, and the app has started and is not stopping;
//                 else 503 with the failed checks (the gateway's body shape);
//                 `details` carries what an operator should know but that
//                 does not make the app unready (an unisolated executor)
//   GET /metrics  the app's prom-client registry
// Anything else: 404. The gateway serves the same three routes on SVC_PORT.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { migrationStatus, type Db } from '@svc/db';
import type client from 'prom-client';
import { applyHttpTimeouts, type HttpTimeouts } from './http-timeouts.js';

/** The total budget of one /readyz, as the gateway's (spec: 5 s). */
export const READINESS_TIMEOUT_MS = 5_000;

/** A readiness check: resolves when fine, throws with the reason otherwise. */
export type ReadinessCheck = () => Promise<void>;

export interface ReadinessReport {
  status: 'ok' | 'fail';
  checks: Record<string, string>;
  failed?: string[];
  /** Warnings that do not fail readiness, by subject; absent when there are none. */
  details?: Record<string, string>;
}

/** `database` (a trivial query) and `migrations` (the database holds exactly this build's). Shared with the gateway's /readyz. */
export function databaseChecks(db: Pick<Db, 'pool'>): { database: ReadinessCheck; migrations: ReadinessCheck } {
  return {
    async database() {
      await db.pool.query('SELECT 1');
    },
    async migrations() {
      const s = await migrationStatus(db.pool);
      const problems: string[] = [];
      if (s.pending.length) problems.push(`not applied: ${s.pending.join(', ')}`);
      if (s.failed.length) problems.push(`failed: ${s.failed.join(', ')}`);
      if (s.unknown.length) problems.push(`recorded but not in this build (roll out the newest version): ${s.unknown.join(', ')}`);
      if (problems.length) throw new Error(`migrations differ: ${problems.join('; ')}`);
    },
  };
}

/**
 * The migrations check of a load balancer's probe (the gateway's
 * `/readyz/traffic`): fails like `migrations` on a pending or failed
 * migration, and on a newer one unless its release recorded it as additive
 * (`-- svc: additive`). Resolves '' or, when newer additive migrations are
 * tolerated, the text that says so.
 */
export async function migrationsForTraffic(db: Pick<Db, 'pool'>): Promise<string> {
  const s = await migrationStatus(db.pool);
  const breaking = s.unknown.filter((n) => !s.unknownAdditive.includes(n));
  const problems: string[] = [];
  if (s.pending.length) problems.push(`not applied: ${s.pending.join(', ')}`);
  if (s.failed.length) problems.push(`failed: ${s.failed.join(', ')}`);
  if (breaking.length) problems.push(`recorded by a newer release and not additive (roll out the newest version): ${breaking.join(', ')}`);
  if (problems.length) throw new Error(`migrations differ: ${problems.join('; ')}`);
  return s.unknownAdditive.length
    ? `serving on a newer schema: ${s.unknownAdditive.join(', ')} ${s.unknownAdditive.length === 1 ? 'is' : 'are'} additive (a rolling upgrade is under way)`
    : '';
}

/** Runs every check in parallel under one budget; a check past it fails with "timed out". */
export async function runReadiness(checks: Record<string, ReadinessCheck>, timeoutMs = READINESS_TIMEOUT_MS): Promise<ReadinessReport> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs / 1000} s`)), timeoutMs);
  });
  deadline.catch(() => undefined);
  const names = Object.keys(checks);
  try {
    const results = await Promise.all(
      names.map((name) =>
        Promise.race([checks[name](), deadline]).then(
          () => 'ok',
          (err: unknown) => (err instanceof Error ? err.message : String(err)) || 'failed',
        ),
      ),
    );
    const report = Object.fromEntries(names.map((n, i) => [n, results[i]]));
    const failed = names.filter((n) => report[n] !== 'ok');
    return failed.length ? { status: 'fail', checks: report, failed } : { status: 'ok', checks: report };
  } finally {
    clearTimeout(timer);
  }
}

export interface HealthServerOptions {
  port: number;
  host: string;
  checks: Record<string, ReadinessCheck>;
  registry: client.Registry;
  /** Warnings shown in /readyz's `details` without failing it (read at each request). Default none. */
  details?: () => Record<string, string>;
  /** Default READINESS_TIMEOUT_MS. */
  readinessTimeoutMs?: number;
  /** Keep-alive and headers timeouts (SVC_HTTP_*); default Node's own (5 s keep-alive). */
  timeouts?: HttpTimeouts;
}

export interface HealthServer {
  /** The bound port (the configured one, or the one the OS picked for 0). */
  port: number;
  close(): Promise<void>;
}

const json = (res: http.ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }).end(JSON.stringify(body));

export async function startHealthServer(opts: HealthServerOptions): Promise<HealthServer> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') return json(res, 405, { error: { code: 'method_not_allowed', message: 'GET only' } });
    switch (path) {
      case '/healthz':
        return json(res, 200, { status: 'ok' });
      case '/readyz':
        void runReadiness(opts.checks, opts.readinessTimeoutMs).then((r) => {
          const details = opts.details?.() ?? {};
          json(res, r.status === 'ok' ? 200 : 503, Object.keys(details).length ? { ...r, details } : r);
        });
        return;
      case '/metrics':
        opts.registry.metrics().then(
          (body) => res.writeHead(200, { 'content-type': opts.registry.contentType }).end(body),
          (err: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`${err instanceof Error ? err.message : String(err)}\n`),
        );
        return;
      default:
        return json(res, 404, { error: { code: 'not_found', message: `no route ${path}` } });
    }
  });
  // close() drops every connection, so a long keep-alive never holds it up.
  if (opts.timeouts) applyHttpTimeouts(server, opts.timeouts);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
