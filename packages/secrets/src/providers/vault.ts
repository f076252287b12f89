// The `vault` provider: HashiCorp Vault's KV version 2 engine over its HTTP
// API. `vault:team/db#password` reads `GET {address}/v1/{mount}/data/team/db`
// and returns `data.data.password`. Error messages are built from the status
// and path only: Vault's bodies are never echoed.
import { ProviderError, type ProviderConfigProblem } from '../errors.js';
import { pickField } from './fields.js';
import { DEFAULT_PROVIDER_TIMEOUT_MS, type ProviderDeps, type SecretProvider } from './types.js';

export interface VaultProviderConfig {
  /** Base URL of the Vault server, e.g. `https://vault.internal:8200` (no default). */
  address: string;
  /** Path of the KV v2 secrets engine. Default `secret`. */
  mount: string;
  /** Vault Enterprise namespace, sent as `X-Vault-Namespace`. Default: none. */
  namespace?: string;
}

export interface VaultCredentials {
  /** Token sent as `X-Vault-Token`; stored sealed with the master key. */
  token: string;
}

const SEGMENT = /^[A-Za-z0-9_.@+=~-]+$/;

function validPath(p: string): boolean {
  return p.split('/').every((s) => SEGMENT.test(s) && s !== '.' && s !== '..');
}

/** Each segment encoded on its own, so a path can never add a query or climb out of the mount. */
function encodePath(p: string): string {
  return p.split('/').map(encodeURIComponent).join('/');
}

export function parseVaultConfig(
  config: Record<string, unknown>,
  credentials: Record<string, unknown> | undefined,
): { config: VaultProviderConfig; credentials: VaultCredentials | undefined; problems: ProviderConfigProblem[] } {
  const problems: ProviderConfigProblem[] = [];
  let address = '';
  if (typeof config.address !== 'string') problems.push({ field: 'config.address', message: 'is required (the URL of the Vault server)' });
  else {
    try {
      const u = new URL(config.address);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') problems.push({ field: 'config.address', message: 'must be an http or https URL' });
      else if (u.search || u.hash || u.username || u.password) problems.push({ field: 'config.address', message: 'must have no query, fragment or user info' });
      else address = config.address.replace(/\/+$/, '');
    } catch {
      problems.push({ field: 'config.address', message: 'must be an http or https URL' });
    }
  }
  const mount = config.mount ?? 'secret';
  if (typeof mount !== 'string' || !validPath(mount)) problems.push({ field: 'config.mount', message: 'must be a path of the KV v2 engine, e.g. secret' });
  const namespace = config.namespace;
  if (namespace !== undefined && (typeof namespace !== 'string' || !validPath(namespace))) problems.push({ field: 'config.namespace', message: 'must be a Vault namespace path' });
  for (const k of Object.keys(config))
    if (!['address', 'mount', 'namespace'].includes(k)) problems.push({ field: `config.${k}`, message: 'is not a setting of the vault provider' });

  let creds: VaultCredentials | undefined;
  if (credentials === undefined) problems.push({ field: 'credentials.token', message: 'is required' });
  else {
    if (typeof credentials.token !== 'string' || credentials.token === '') problems.push({ field: 'credentials.token', message: 'is required (a Vault token)' });
    else creds = { token: credentials.token };
    for (const k of Object.keys(credentials)) if (k !== 'token') problems.push({ field: `credentials.${k}`, message: 'is not a credential of the vault provider' });
  }
  return {
    config: { address, mount: typeof mount === 'string' ? mount : 'secret', ...(typeof namespace === 'string' ? { namespace } : {}) },
    credentials: creds,
    problems,
  };
}

export function createVaultProvider(name: string, config: VaultProviderConfig, credentials: VaultCredentials, deps: ProviderDeps = {}): SecretProvider {
  const doFetch = deps.fetch ?? fetch;
  const timeoutMs = deps.timeoutMs ?? DEFAULT_PROVIDER_TIMEOUT_MS;
  const headers: Record<string, string> = { 'X-Vault-Token': credentials.token, accept: 'application/json' };
  if (config.namespace) headers['X-Vault-Namespace'] = config.namespace;

  async function call(apiPath: string, what: string): Promise<Response> {
    try {
      return await doFetch(`${config.address}/v1/${apiPath}`, { headers, signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
    } catch (err) {
      const why = err instanceof Error && err.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : 'the request failed';
      throw new ProviderError(name, `cannot reach Vault at ${config.address} for ${what}: ${why}`, undefined, { cause: err });
    }
  }

  return {
    async get(path, field) {
      if (!validPath(path)) throw new ProviderError(name, `${path} is not a valid secret path`);
      const r = await call(`${encodePath(config.mount)}/data/${encodePath(path)}`, path);
      if (r.status === 404) {
        await r.body?.cancel();
        return undefined;
      }
      if (!r.ok) {
        await r.body?.cancel();
        const why = r.status === 403 ? 'Vault refused the token (403)' : `Vault answered ${r.status}`;
        throw new ProviderError(name, `${why} reading ${path}`, r.status);
      }
      let body: { data?: { data?: unknown } };
      try {
        body = (await r.json()) as typeof body;
      } catch {
        // No cause: the parser's message quotes the start of the body, which may be secret.
        throw new ProviderError(name, `Vault's answer for ${path} is not JSON`, r.status);
      }
      const data = body?.data?.data;
      // A deleted or destroyed version answers with `data: null`.
      if (data === null || data === undefined) return undefined;
      if (typeof data !== 'object' || Array.isArray(data))
        throw new ProviderError(name, `Vault's answer for ${path} has no KV v2 data object (is ${config.mount} a KV v2 mount?)`, r.status);
      return pickField(name, path, data as Record<string, unknown>, field);
    },

    async check() {
      let r: Response;
      try {
        r = await call('auth/token/lookup-self', 'a token lookup');
      } catch (err) {
        return { ok: false, message: (err as Error).message };
      }
      await r.body?.cancel();
      if (r.ok) return { ok: true, message: `Vault at ${config.address} accepts the token` };
      if (r.status === 403) return { ok: false, message: `Vault at ${config.address} refused the token (403)` };
      return { ok: false, message: `Vault at ${config.address} answered ${r.status} to a token lookup` };
    },
  };
}
