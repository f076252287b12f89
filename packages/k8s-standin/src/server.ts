// The stand-in's HTTP API: the paths, query parameters, status codes and
// bodies of kube-apiserver for what the kubernetes executor uses.
//   GET    /version
//   GET    /api/v1/namespaces/{ns}
//   POST   /apis/batch/v1/namespaces/{ns}/jobs
//   GET    /apis/batch/v1[/namespaces/{ns}]/jobs            list, or watch with ?watch=true
//   GET    /apis/batch/v1/namespaces/{ns}/jobs/{name}[/status]
//   DELETE /apis/batch/v1/namespaces/{ns}/jobs/{name}      propagationPolicy, gracePeriodSeconds
//   GET    /api/v1[/namespaces/{ns}]/pods                    list, or watch
//   GET    /api/v1/namespaces/{ns}/pods/{name}[/status]
//   DELETE /api/v1/namespaces/{ns}/pods/{name}              gracePeriodSeconds
//   GET    /api/v1/namespaces/{ns}/pods/{name}/log         container, follow, tailLines, timestamps
//   POST   /api/v1/namespaces/{ns}/secrets
//   GET    /api/v1/namespaces/{ns}/secrets/{name}
//   DELETE /api/v1/namespaces/{ns}/secrets/{name}
// Every request needs `Authorization: Bearer <token>` (401 otherwise). Lists
// and watches take labelSelector and fieldSelector; a watch starts with the
// current objects as ADDED (no resourceVersion, or "0"), or replays the
// changes after a resourceVersion (410 Expired once the history is past it),
// then streams one JSON event per line; timeoutSeconds ends it.
import http from 'node:http';
import { pipeline } from 'node:stream/promises';
import type { Cluster, DeleteOptions } from './cluster.js';
import { RESOURCES, StatusError, badRequest, type KubeObject } from './meta.js';
import { parseFieldSelector, parseLabelSelector } from './selectors.js';
import type { EventType, Resource } from './store.js';

export interface ApiOptions {
  token: string;
  /** Called with each request (method, path, status), for tests that assert what the client sent. */
  onRequest?: (r: { method: string; path: string; query: URLSearchParams; status: number }) => void;
}

const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string | string[]> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

async function readBody(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw badRequest(`the body of the request could not be decoded: ${(err as Error).message}`);
  }
}

const bool = (v: string | null) => v === 'true' || v === '1';
function int(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  if (!/^-?\d+$/.test(v)) throw badRequest(`invalid ${name}: ${v}`);
  return Number(v);
}

/** A list body: items without kind and apiVersion, as the API server writes them. */
function listBody(resource: Resource, items: KubeObject[], rv: string) {
  const info = RESOURCES[resource];
  return {
    kind: `${info.kind}List`,
    apiVersion: info.apiVersion,
    metadata: { resourceVersion: rv },
    items: items.map((o) => {
      const item: Partial<KubeObject> = { ...o };
      delete item.apiVersion;
      delete item.kind;
      return item;
    }),
  };
}

export function createApiServer(cluster: Cluster, opts: ApiOptions): { server: http.Server; endWatches: () => void } {
  const { store } = cluster;
  const watches = new Set<http.ServerResponse>();

  function watch(req: http.IncomingMessage, res: http.ServerResponse, resource: Resource, ns: string | undefined, q: URLSearchParams): void {
    const labels = parseLabelSelector(q.get('labelSelector'));
    const fields = parseFieldSelector(q.get('fieldSelector'), RESOURCES[resource].kind);
    const matches = (o: KubeObject) => (ns === undefined || o.metadata.namespace === ns) && labels(o.metadata.labels) && fields(o);
    const rvParam = q.get('resourceVersion');
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    // The API server answers a watch at once, before any event.
    res.flushHeaders();
    const send = (type: string, object: unknown) => res.write(`${JSON.stringify({ type, object })}\n`);
    let replay: { type: EventType; object: KubeObject }[];
    if (!rvParam || rvParam === '0') {
      replay = store.list(resource, ns, matches).map((o) => ({ type: 'ADDED', object: o }));
    } else {
      const since = /^\d+$/.test(rvParam) ? store.since(Number(rvParam)) : null;
      if (!since) {
        send('ERROR', new StatusError(410, 'Expired', `too old resource version: ${rvParam} (${store.oldestResumable()})`).body());
        res.end();
        return;
      }
      replay = since.filter((e) => e.resource === resource && matches(e.object));
    }
    for (const e of replay) send(e.type, e.object);
    const unsubscribe = store.subscribe((e) => {
      if (e.resource === resource && matches(e.object)) send(e.type, e.object);
    });
    watches.add(res);
    const timeout = int(q, 'timeoutSeconds');
    const timer = timeout !== undefined ? setTimeout(() => res.end(), timeout * 1000) : undefined;
    const done = () => {
      unsubscribe();
      clearTimeout(timer);
      watches.delete(res);
    };
    res.on('close', done);
    req.on('close', done);
  }

  async function route(req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<void> {
    const method = req.method ?? 'GET';
    const q = url.searchParams;
    const p = url.pathname.replace(/\/+$/, '');
    if (method === 'GET' && p === '/version') return json(res, 200, { major: '1', minor: '31', gitVersion: 'v1.31.0-svc-standin', platform: 'linux/amd64' });
    let m = /^\/api\/v1\/namespaces\/([^/]+)$/.exec(p);
    if (m && method === 'GET') {
      cluster.requireNamespace(m[1]);
      return json(res, 200, { kind: 'Namespace', apiVersion: 'v1', metadata: { name: m[1] }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
    }
    m = /^\/api\/v1\/namespaces\/([^/]+)\/secrets(?:\/([^/]+))?$/.exec(p);
    if (m) {
      const ns = m[1];
      cluster.requireNamespace(ns);
      const name = m[2] === undefined ? undefined : decodeURIComponent(m[2]);
      if (name === undefined && method === 'POST') return json(res, 201, cluster.secrets.create(ns, await readBody(req)));
      if (name !== undefined && method === 'GET') {
        const o = cluster.secrets.get(ns, name);
        if (!o) throw new StatusError(404, 'NotFound', `secrets "${name}" not found`, { name, kind: 'secrets' });
        return json(res, 200, o);
      }
      if (name !== undefined && method === 'DELETE') {
        await readBody(req);
        return json(res, 200, cluster.secrets.delete(ns, name));
      }
      throw new StatusError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
    }
    m = /^\/(?:apis\/batch\/v1\/(jobs)|api\/v1\/(pods))$/.exec(p) ?? /^\/(?:apis\/batch\/v1\/namespaces\/([^/]+)\/(jobs)|api\/v1\/namespaces\/([^/]+)\/(pods))$/.exec(p);
    if (m) {
      const namespaced = p.includes('/namespaces/');
      const ns = namespaced ? (m[1] ?? m[3]) : undefined;
      const resource = (namespaced ? (m[2] ?? m[4]) : (m[1] ?? m[2])) as Resource;
      if (ns !== undefined) cluster.requireNamespace(ns);
      if (method === 'GET') {
        if (bool(q.get('watch'))) return watch(req, res, resource, ns, q);
        const labels = parseLabelSelector(q.get('labelSelector'));
        const fields = parseFieldSelector(q.get('fieldSelector'), RESOURCES[resource].kind);
        const rv = store.version();
        return json(
          res,
          200,
          listBody(
            resource,
            store.list(resource, ns, (o) => labels(o.metadata.labels) && fields(o)),
            rv,
          ),
        );
      }
      if (method === 'POST' && resource === 'jobs' && ns !== undefined) return json(res, 201, cluster.createJob(ns, await readBody(req)));
      throw new StatusError(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource`);
    }
    m = /^\/(?:apis\/batch\/v1\/namespaces\/([^/]+)\/(jobs)|api\/v1\/namespaces\/([^/]+)\/(pods))\/([^/]+)(?:\/(status|log))?$/.exec(p);
    if (m) {
      const ns = m[1] ?? m[3];
      const resource = (m[2] ?? m[4]) as Resource;
      const name = decodeURIComponent(m[5]);
      const sub = m[6];
      cluster.requireNamespace(ns);
      if (sub === 'log') {
        if (resource !== 'pods' || method !== 'GET') throw new StatusError(404, 'NotFound', 'the server could not find the requested resource');
        const follow = bool(q.get('follow'));
        const stream = await cluster.podLogs(ns, name, {
          container: q.get('container') ?? undefined,
          follow,
          tailLines: int(q, 'tailLines'),
          timestamps: bool(q.get('timestamps')),
        });
        res.writeHead(200, { 'content-type': 'text/plain', ...(follow ? { 'transfer-encoding': 'chunked' } : {}) });
        req.on('close', () => stream.destroy());
        await pipeline(stream, res).catch(() => undefined);
        return;
      }
      if (method === 'GET') {
        const o = store.get(resource, ns, name);
        if (!o)
          throw new StatusError(404, 'NotFound', `${resource === 'jobs' ? 'jobs.batch' : 'pods'} "${name}" not found`, {
            name,
            group: resource === 'jobs' ? 'batch' : undefined,
            kind: resource,
          });
        return json(res, 200, o);
      }
      if (method === 'DELETE' && !sub) {
        const body = ((await readBody(req)) ?? {}) as DeleteOptions;
        const grace = int(q, 'gracePeriodSeconds') ?? body.gracePeriodSeconds;
        if (grace !== undefined && grace < 0) throw badRequest('gracePeriodSeconds must be a non-negative number');
        if (resource === 'pods') return json(res, 200, cluster.deletePod(ns, name, grace));
        const orphan = q.get('orphanDependents');
        const r = cluster.deleteJob(ns, name, {
          gracePeriodSeconds: grace,
          propagationPolicy: q.get('propagationPolicy') ?? body.propagationPolicy,
          orphanDependents: orphan !== null ? bool(orphan) : body.orphanDependents,
        });
        return json(res, 200, r.body, r.warnings.length ? { warning: r.warnings.map((w) => `299 - "${w}"`) } : {});
      }
      throw new StatusError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
    }
    throw new StatusError(404, 'NotFound', 'the server could not find the requested resource');
  }

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://standin');
    // Reported once the status is known (a watch's answer goes on long after).
    const origWriteHead = res.writeHead.bind(res);
    res.writeHead = (code: number, ...rest: unknown[]) => {
      opts.onRequest?.({ method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, status: code });
      return (origWriteHead as (...a: unknown[]) => http.ServerResponse)(code, ...rest);
    };
    if (req.headers.authorization !== `Bearer ${opts.token}`) {
      req.resume();
      return json(res, 401, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
    }
    route(req, res, url).catch((err) => {
      const e = err instanceof StatusError ? err : new StatusError(500, 'InternalError', `Internal error occurred: ${(err as Error)?.message ?? String(err)}`);
      if (res.headersSent) res.destroy();
      else json(res, e.code, e.body());
    });
  });
  // Open watches would keep close() waiting.
  return {
    server,
    endWatches: () => {
      for (const w of watches) w.end();
    },
  };
}
