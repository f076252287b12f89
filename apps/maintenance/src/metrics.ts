// Counters of the maintenance work, in a prom-client registry of this process,
// served at GET /metrics on SVC_METRICS_PORT. Counters only grow while this
// instance holds the lease: a scrape of each instance shows which one worked.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import client from 'prom-client';

/** The jobs the lease holder runs. */
export type MaintenanceJob = 'watchdog' | 'retention' | 'storage_cleanup';
/** What the storage cleanup and retention remove, by the first segment of the key. */
export type ObjectKind = 'files' | 'bundles' | 'artifacts' | 'logs' | 'other';

export interface MaintenanceMetrics {
  registry: client.Registry;
  leaseHeld: client.Gauge;
  runs: client.Counter<'job' | 'outcome'>;
  lastRun: client.Gauge<'job'>;
  rowsDeleted: client.Counter<'table'>;
  objectsDeleted: client.Counter<'kind'>;
  bytesDeleted: client.Counter<'kind'>;
  watchdogEnded: client.Counter<'rule'>;
}

export interface MaintenanceMetricsOptions {
  /** Also collect the standard `process_*` and `nodejs_*` metrics. Default true. */
  defaultMetrics?: boolean;
}

export function createMaintenanceMetrics(opts: MaintenanceMetricsOptions = {}): MaintenanceMetrics {
  const registry = new client.Registry();
  if (opts.defaultMetrics ?? true) client.collectDefaultMetrics({ register: registry });
  const registers = [registry];
  return {
    registry,
    leaseHeld: new client.Gauge({ name: 'svc_maintenance_lease_held', help: '1 while this instance holds the maintenance lease', registers }),
    runs: new client.Counter({ name: 'svc_maintenance_runs_total', help: 'Maintenance runs by job and outcome (ok, error, not_due)', labelNames: ['job', 'outcome'] as const, registers }),
    lastRun: new client.Gauge({ name: 'svc_maintenance_last_run_timestamp_seconds', help: 'Time of the last successful run of each job', labelNames: ['job'] as const, registers }),
    rowsDeleted: new client.Counter({ name: 'svc_maintenance_rows_deleted_total', help: 'Rows deleted by retention and storage cleanup, by table', labelNames: ['table'] as const, registers }),
    objectsDeleted: new client.Counter({ name: 'svc_maintenance_objects_deleted_total', help: 'Objects deleted from the object store, by kind', labelNames: ['kind'] as const, registers }),
    bytesDeleted: new client.Counter({ name: 'svc_maintenance_bytes_deleted_total', help: 'Bytes of the objects deleted from the object store, by kind', labelNames: ['kind'] as const, registers }),
    watchdogEnded: new client.Counter({
      name: 'svc_maintenance_watchdog_ended_total',
      help: 'Executions and task runs ended by the watchdog, by rule (execution_timeout, task_timeout, lost)',
      labelNames: ['rule'] as const,
      registers,
    }),
  };
}

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/** Serves GET /metrics of `registry` (anything else: 404). */
export async function startMetricsServer(registry: client.Registry, opts: { port: number; host: string }): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    registry.metrics().then(
      (body) => res.writeHead(200, { 'content-type': registry.contentType }).end(body),
      (err: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`${err instanceof Error ? err.message : String(err)}\n`),
    );
  });
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

/** The kind of an object by its key: the first segment when it is a known one. */
export function objectKind(key: string): ObjectKind {
  const top = key.split('/', 1)[0];
  switch (top) {
    case 'files':
    case 'bundles':
    case 'artifacts':
    case 'logs':
      return top;
    default:
      return 'other';
  }
}
