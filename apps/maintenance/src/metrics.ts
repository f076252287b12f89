// Counters of the maintenance work, in the prom-client registry of this process,
// served at GET /metrics on SVC_HEALTH_PORT (@svc/service). Counters only grow while this
// instance holds the lease: a scrape of each instance shows which one worked.
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
  alertDeliveries: client.Counter<'channel' | 'outcome'>;
  emails: client.Counter<'outcome'>;
}

export interface MaintenanceMetricsOptions {
  /** The registry to add the counters to (the process's, which has the default metrics). Default: a new one. */
  registry?: client.Registry;
  /** With a new registry, also collect the standard `process_*` and `nodejs_*` metrics. Default true. */
  defaultMetrics?: boolean;
}

export function createMaintenanceMetrics(opts: MaintenanceMetricsOptions = {}): MaintenanceMetrics {
  const registry = opts.registry ?? new client.Registry();
  if (!opts.registry && (opts.defaultMetrics ?? true)) client.collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const alertDeliveries = new client.Counter({
    name: 'svc_alert_deliveries_total',
    help: 'Alert delivery attempts by this instance, by channel type (email, webhook, slack) and outcome (delivered, retrying, failed: for good)',
    labelNames: ['channel', 'outcome'] as const,
    registers,
  });
  const emails = new client.Counter({
    name: 'svc_emails_total',
    help: 'Email sending attempts by this instance (SVC_SMTP_URL), by outcome (sent, retrying, failed: for good)',
    labelNames: ['outcome'] as const,
    registers,
  });
  // Every series from the start, at 0: a rate of failures over a fresh instance is 0, not absent.
  for (const channel of ['email', 'webhook', 'slack']) for (const outcome of ['delivered', 'retrying', 'failed']) alertDeliveries.inc({ channel, outcome }, 0);
  for (const outcome of ['sent', 'retrying', 'failed']) emails.inc({ outcome }, 0);
  return {
    registry,
    alertDeliveries,
    emails,
    leaseHeld: new client.Gauge({ name: 'svc_maintenance_lease_held', help: '1 while this instance holds the maintenance lease', registers }),
    runs: new client.Counter({
      name: 'svc_maintenance_runs_total',
      help: 'Maintenance runs by job and outcome (ok, error, not_due)',
      labelNames: ['job', 'outcome'] as const,
      registers,
    }),
    lastRun: new client.Gauge({ name: 'svc_maintenance_last_run_timestamp_seconds', help: 'Time of the last successful run of each job', labelNames: ['job'] as const, registers }),
    rowsDeleted: new client.Counter({
      name: 'svc_maintenance_rows_deleted_total',
      help: 'Rows deleted by retention and storage cleanup, by table',
      labelNames: ['table'] as const,
      registers,
    }),
    objectsDeleted: new client.Counter({
      name: 'svc_maintenance_objects_deleted_total',
      help: 'Objects deleted from the object store, by kind',
      labelNames: ['kind'] as const,
      registers,
    }),
    bytesDeleted: new client.Counter({
      name: 'svc_maintenance_bytes_deleted_total',
      help: 'Bytes of the objects deleted from the object store, by kind',
      labelNames: ['kind'] as const,
      registers,
    }),
    watchdogEnded: new client.Counter({
      name: 'svc_maintenance_watchdog_ended_total',
      help: 'Executions and task runs ended by the watchdog, by rule (execution_timeout, task_timeout, lost, approval_timeout)',
      labelNames: ['rule'] as const,
      registers,
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
