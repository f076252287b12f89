// A local stand-in for the parts of HashiCorp Vault's HTTP API that the
// `vault` provider uses, for tests (`@svc/secrets/testing`). It answers like
// Vault does: 403 `permission denied` for a wrong token, 404 for a missing
// path, `{data: {data, metadata}}` for a KV v2 read.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface VaultStandIn {
  /** `http://127.0.0.1:<port>`. */
  address: string;
  /** The one token it accepts. */
  token: string;
  /** Stores a KV v2 secret at `path` of `mount`. */
  put(mount: string, path: string, data: Record<string, unknown>): void;
  /** Every request seen: method, decoded path, token and namespace headers. */
  requests: { method: string; path: string; token: string | undefined; namespace: string | undefined }[];
  close(): Promise<void>;
}

export async function startVaultStandIn(opts: {
  /** The accepted token. */
  token: string;
  /** Only this Vault namespace is accepted when set. Default: any. */
  namespace?: string;
}): Promise<VaultStandIn> {
  const store = new Map<string, Record<string, unknown>>();
  const requests: VaultStandIn['requests'] = [];
  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname.split('/').map(decodeURIComponent).join('/');
    const token = req.headers['x-vault-token'] as string | undefined;
    const namespace = req.headers['x-vault-namespace'] as string | undefined;
    requests.push({ method: req.method ?? '', path, token, namespace });
    if (req.method !== 'GET') return send(res, 405, { errors: [] });
    if (path === '/v1/sys/health') return send(res, 200, { initialized: true, sealed: false, standby: false });
    if (token !== opts.token || (opts.namespace !== undefined && namespace !== opts.namespace)) return send(res, 403, { errors: ['permission denied'] });
    if (path === '/v1/auth/token/lookup-self') return send(res, 200, { data: { policies: ['default'], ttl: 0 } });
    const m = /^\/v1\/(.+?)\/data\/(.+)$/.exec(path);
    const data = m ? store.get(`${m[1]}\0${m[2]}`) : undefined;
    if (!data) return send(res, 404, { errors: [] });
    return send(res, 200, { data: { data, metadata: { version: 1, destroyed: false } } });
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((r) => server.once('listening', () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    address: `http://127.0.0.1:${port}`,
    token: opts.token,
    requests,
    put(mount, path, data) {
      store.set(`${mount}\0${path}`, data);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
