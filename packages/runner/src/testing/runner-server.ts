// A small in-memory implementation of the runner routes over node:http, for
// tests of createHttpTransport and `svc exec`.
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Completion, LogLine, RunnerSpec } from '../index.js';

export type Route = 'spec' | 'bundle' | 'heartbeat' | 'logs' | 'artifacts' | 'complete';

export interface RunnerServerOptions {
  token: string;
  spec: RunnerSpec;
  bundle?: Buffer | null;
  /** Answer this many requests of a route with 503 before serving it. */
  fail503?: Partial<Record<Route, number>>;
  /** Answer every request of a route with this status (4xx). */
  failWith?: Partial<Record<Route, number>>;
  /** Heartbeats answer cancel: true. */
  cancel?: boolean;
  /** Port to listen on (0 = any). */
  port?: number;
}

/** The `bundle_hash` of a bundle: the sha256 of its bytes ('' for none). */
export const bundleHashOf = (bundle: Buffer | null | undefined) => (bundle ? crypto.createHash('sha256').update(bundle).digest('hex') : '');

export class RunnerServer {
  readonly requests: { method: string; route: Route | 'unknown'; status: number }[] = [];
  readonly lines: LogLine[] = [];
  readonly artifacts = new Map<string, Buffer>();
  readonly completions: Completion[] = [];
  private server: http.Server | null = null;
  port = 0;

  constructor(readonly opts: RunnerServerOptions) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  count(route: Route): number {
    return this.requests.filter((r) => r.route === route).length;
  }

  async start(port = this.opts.port ?? 0): Promise<this> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const prefix = `/api/runner/v1/task-runs/${encodeURIComponent(this.opts.spec.task_run_id)}/`;
    const url = req.url ?? '';
    const rest = url.startsWith(prefix) ? url.slice(prefix.length) : '';
    const route = (rest.split('/')[0] || 'unknown') as Route | 'unknown';
    const send = (status: number, payload?: unknown, type = 'application/json') => {
      this.requests.push({ method: req.method ?? '', route, status });
      if (payload === undefined) {
        res.writeHead(status).end();
        return;
      }
      const buf = Buffer.isBuffer(payload) ? payload : Buffer.from(JSON.stringify(payload));
      res.writeHead(status, { 'content-type': type, 'content-length': buf.length }).end(buf);
    };
    if (route === 'unknown') return send(404, { error: 'not found' });
    if (req.headers.authorization !== `Bearer ${this.opts.token}`) return send(401, { error: 'unauthorized' });
    const failures = this.opts.fail503?.[route] ?? 0;
    if (failures > 0) {
      this.opts.fail503![route] = failures - 1;
      return send(503, { error: 'unavailable' });
    }
    const forced = this.opts.failWith?.[route];
    if (forced) return send(forced, { error: 'refused' });
    switch (`${req.method} ${route}`) {
      case 'GET spec':
        // As the service does: bundle_hash is the sha256 of the bundle served (unless a test sets another).
        return send(200, { ...this.opts.spec, bundle_hash: this.opts.spec.bundle_hash || bundleHashOf(this.opts.bundle) });
      case 'GET bundle':
        return this.opts.bundle ? send(200, this.opts.bundle, 'application/gzip') : send(204);
      case 'POST heartbeat':
        return send(200, { cancel: Boolean(this.opts.cancel) });
      case 'POST logs':
        this.lines.push(...(JSON.parse(body.toString()) as { lines: LogLine[] }).lines);
        return send(200, {});
      case 'PUT artifacts': {
        const name = rest.slice('artifacts/'.length).split('/').map(decodeURIComponent).join('/');
        if (Number(req.headers['content-length']) !== body.length) return send(400, { error: 'length mismatch' });
        if (req.headers['content-type'] !== 'application/octet-stream') return send(415, { error: 'type' });
        this.artifacts.set(name, body);
        return send(201, {});
      }
      case 'POST complete':
        this.completions.push(JSON.parse(body.toString()) as Completion);
        return send(200, {});
      default:
        return send(405, { error: 'method not allowed' });
    }
  }
}
