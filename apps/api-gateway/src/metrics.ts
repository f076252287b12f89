// GET /metrics. The three gauges are computed from the database at each
// scrape, so every instance reports the same deployment-wide values; a gauge
// whose query fails or passes 5 s has no series in that scrape.
import type { RequestHandler } from 'express';
import client from 'prom-client';
import type { Db } from '@svc/db';
import { EXECUTION_STATES, TASK_RUN_STATES } from '@svc/state-machine';

export { EXECUTION_STATES, TASK_RUN_STATES };
export const GAUGE_QUERY_TIMEOUT_MS = 5_000;
/** Spec: buckets 0.005 to 10 seconds. */
export const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface GatewayMetrics {
  registry: client.Registry;
  httpDuration: client.Histogram<'method' | 'route' | 'status'>;
  handler: RequestHandler;
}

/** Runs one read-only query with a server-side statement timeout. */
async function countQuery(db: Db, sql: string, timeoutMs: number): Promise<{ key: string; n: number }[]> {
  const c = await db.pool.connect();
  try {
    await c.query('BEGIN READ ONLY');
    await c.query(`SET LOCAL statement_timeout = ${Math.floor(timeoutMs)}`);
    const r = await c.query<{ key: string; n: string }>(sql);
    await c.query('COMMIT');
    return r.rows.map((x) => ({ key: x.key, n: Number(x.n) }));
  } catch (err) {
    await c.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    c.release();
  }
}

export function createMetrics(deps: { db: Db; onGaugeError?: (gauge: string, err: unknown) => void; gaugeTimeoutMs?: number }): GatewayMetrics {
  const registry = new client.Registry();
  const timeout = deps.gaugeTimeoutMs ?? GAUGE_QUERY_TIMEOUT_MS;
  client.collectDefaultMetrics({ register: registry });

  const stateGauge = (name: string, help: string, table: string, states: readonly string[]) =>
    new client.Gauge({
      name,
      help,
      labelNames: ['state'],
      registers: [registry],
      async collect() {
        this.reset();
        try {
          const rows = await countQuery(deps.db, `SELECT state AS key, count(*) AS n FROM ${table} GROUP BY state`, timeout);
          const counts = new Map(rows.map((r) => [r.key, r.n]));
          for (const s of states) this.set({ state: s }, counts.get(s) ?? 0);
        } catch (err) {
          deps.onGaugeError?.(name, err);
        }
      },
    });
  stateGauge('svc_executions', 'Executions in each execution state', 'executions', EXECUTION_STATES);
  stateGauge('svc_task_runs', 'Task runs in each task run state', 'task_runs', TASK_RUN_STATES);
  new client.Gauge({
    name: 'svc_queue_depth',
    help: 'Task runs in QUEUED for each pool',
    labelNames: ['pool'],
    registers: [registry],
    async collect() {
      this.reset();
      try {
        const rows = await countQuery(deps.db, `SELECT pool AS key, count(*) AS n FROM task_runs WHERE state = 'QUEUED' GROUP BY pool`, timeout);
        if (!rows.length) this.set({ pool: 'default' }, 0);
        for (const r of rows) this.set({ pool: r.key }, r.n);
      } catch (err) {
        deps.onGaugeError?.('svc_queue_depth', err);
      }
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
  return { registry, httpDuration, handler };
}
