// GET /metrics. The three gauges are computed from the database at each
// scrape, so every instance reports the same deployment-wide values; a gauge
// whose query fails or passes 5 s has no series in that scrape. Their reads
// use a connection of their own, so scrapes never take the API's, and
// concurrent scrapes (and the three gauges of one scrape) share one read.
import type { RequestHandler } from 'express';
import pg from 'pg';
import client from 'prom-client';
import { inTransaction, survivesConnectionLoss, type Db } from '@svc/db';
import { executionsByState, queuedTaskRunsByPool, taskRunsByState } from '@svc/engine/read-models';
import { EXECUTION_STATES, TASK_RUN_STATES } from '@svc/state-machine';
import { registerBuildInfo } from '@svc/service';
import { liveStreamFigures } from './live/sse.js';

export { EXECUTION_STATES, TASK_RUN_STATES };
export const GAUGE_QUERY_TIMEOUT_MS = 5_000;
/** Spec: buckets 0.005 to 10 seconds. */
export const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface GatewayMetrics {
  registry: client.Registry;
  httpDuration: client.Histogram<'method' | 'route' | 'status'>;
  handler: RequestHandler;
  /** Database reads made for the gauges so far (concurrent scrapes share one). */
  gaugeReads(): number;
  /** Closes the gauges' own connection. */
  close(): Promise<void>;
}

/** Each gauge's count, from the engine's read model. */
const GAUGE_READS = {
  svc_executions: executionsByState,
  svc_task_runs: taskRunsByState,
  svc_queue_depth: queuedTaskRunsByPool,
} as const;
type GaugeName = keyof typeof GAUGE_READS;
type Counts = Record<GaugeName, PromiseSettledResult<Map<string, number>>>;

/**
 * The three counts, each under a server-side statement timeout, in one
 * read-only transaction on one connection of the gauges' own pool.
 */
async function readCounts(pool: pg.Pool, timeoutMs: number): Promise<Counts> {
  return inTransaction(
    pool,
    async (c) => {
      await c.query(`SET LOCAL statement_timeout = ${Math.floor(timeoutMs)}`);
      const out = {} as Counts;
      for (const name of Object.keys(GAUGE_READS) as GaugeName[]) {
        // A failed statement aborts the transaction: a savepoint keeps the others readable.
        await c.query('SAVEPOINT g');
        try {
          out[name] = { status: 'fulfilled', value: await GAUGE_READS[name](c) };
          await c.query('RELEASE SAVEPOINT g');
        } catch (err) {
          out[name] = { status: 'rejected', reason: err };
          await c.query('ROLLBACK TO SAVEPOINT g');
        }
      }
      return out;
    },
    { readOnly: true },
  );
}

export function createMetrics(deps: { db: Db; onGaugeError?: (gauge: string, err: unknown) => void; gaugeTimeoutMs?: number }): GatewayMetrics {
  const registry = new client.Registry();
  const timeout = deps.gaugeTimeoutMs ?? GAUGE_QUERY_TIMEOUT_MS;
  client.collectDefaultMetrics({ register: registry });
  registerBuildInfo(registry, 'api-gateway');
  const pool = new pg.Pool({ connectionString: deps.db.url, max: 1, application_name: 'svc-api-gateway-metrics', connectionTimeoutMillis: timeout, idleTimeoutMillis: 60_000 });
  survivesConnectionLoss(pool, (err) => deps.onGaugeError?.('connection', err));
  let reads = 0;
  let inflight: Promise<Counts> | undefined;
  const counts = (): Promise<Counts> => {
    if (!inflight) {
      reads++;
      inflight = readCounts(pool, timeout).finally(() => {
        inflight = undefined;
      });
    }
    return inflight;
  };
  /** One gauge's counts from the shared read; undefined (no series) when its query failed. */
  const countsOf = async (name: GaugeName): Promise<Map<string, number> | undefined> => {
    try {
      const r = (await counts())[name];
      if (r.status === 'fulfilled') return r.value;
      deps.onGaugeError?.(name, r.reason);
    } catch (err) {
      deps.onGaugeError?.(name, err);
    }
    return undefined;
  };

  const stateGauge = (name: 'svc_executions' | 'svc_task_runs', help: string, states: readonly string[]) =>
    new client.Gauge({
      name,
      help,
      labelNames: ['state'],
      registers: [registry],
      async collect() {
        this.reset();
        const c = await countsOf(name);
        if (c) for (const s of states) this.set({ state: s }, c.get(s) ?? 0);
      },
    });
  stateGauge('svc_executions', 'Executions in each execution state', EXECUTION_STATES);
  stateGauge('svc_task_runs', 'Task runs in each task run state', TASK_RUN_STATES);
  new client.Gauge({
    name: 'svc_queue_depth',
    help: 'Task runs in QUEUED for each pool',
    labelNames: ['pool'],
    registers: [registry],
    async collect() {
      this.reset();
      const c = await countsOf('svc_queue_depth');
      if (!c) return;
      if (!c.size) this.set({ pool: 'default' }, 0);
      for (const [queue, n] of c) this.set({ pool: queue }, n);
    },
  });

  // This instance's event and log streams (no database read).
  new client.Gauge({
    name: 'svc_live_streams',
    help: 'Event and log streams open on this instance; state waiting_for_drain: the client stopped reading and the stream waits for its socket',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const f = liveStreamFigures();
      this.set({ state: 'open' }, f.open);
      this.set({ state: 'waiting_for_drain' }, f.waitingForDrain);
    },
  });
  new client.Gauge({
    name: 'svc_live_stream_buffered_bytes',
    help: "Bytes written to this instance's open streams that their sockets have not taken yet",
    registers: [registry],
    collect() {
      this.set(liveStreamFigures().bufferedBytes);
    },
  });

  const httpDuration = new client.Histogram({
    name: 'svc_http_request_duration_seconds',
    help: 'Duration of HTTP requests served by this instance',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: HTTP_BUCKETS,
    registers: [registry],
  });

  const handler: RequestHandler = async (_req, res, next) => {
    try {
      const body = await registry.metrics();
      res.setHeader('Content-Type', registry.contentType);
      res.end(body);
    } catch (err) {
      next(err);
    }
  };
  return { registry, httpDuration, handler, gaugeReads: () => reads, close: () => pool.end() };
}
