// The `env` provider: secrets from the environment of the process that
// resolves them. `env:DB_PASSWORD` with prefix `SVC_SECRET_` reads
// `SVC_SECRET_DB_PASSWORD`; `#field` parses the value as a JSON object.
import { describeConfig } from '@svc/config';
import { ProviderError, type ProviderConfigProblem } from '../errors.js';
import { pickField } from './fields.js';
import type { ProviderDeps, SecretProvider } from './types.js';

export interface EnvProviderConfig {
  /** Prepended to the path to form the variable name. Default '' (the path is the whole name). */
  prefix: string;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Validates the settings of an `env` provider; it takes no credentials. */
export function parseEnvConfig(
  config: Record<string, unknown>,
  credentials: Record<string, unknown> | undefined,
): { config: EnvProviderConfig; problems: ProviderConfigProblem[] } {
  const problems: ProviderConfigProblem[] = [];
  const prefix = config.prefix ?? '';
  if (typeof prefix !== 'string' || (prefix !== '' && !ENV_NAME.test(prefix))) {
    problems.push({ field: 'config.prefix', message: 'must be the start of a variable name (A-Z a-z 0-9 _, not starting with a digit)' });
  }
  for (const k of Object.keys(config)) if (k !== 'prefix') problems.push({ field: `config.${k}`, message: 'is not a setting of the env provider' });
  if (credentials !== undefined && Object.keys(credentials).length > 0) problems.push({ field: 'credentials', message: 'the env provider takes no credentials' });
  return { config: { prefix: typeof prefix === 'string' ? prefix : '' }, problems };
}

export function createEnvProvider(name: string, config: EnvProviderConfig, deps: ProviderDeps = {}): SecretProvider {
  const env = deps.env ?? process.env;
  // The service's own settings (SVC_MASTER_KEYS, SVC_DATABASE_URL...) live in
  // the same environment; a flow must never read them through a reference.
  const reserved = new Set(describeConfig().map((d) => d.variable));
  function read(path: string, field: string | undefined): string | undefined {
    const variable = config.prefix + path;
    if (!ENV_NAME.test(variable)) throw new ProviderError(name, `${variable} is not an environment variable name`);
    if (reserved.has(variable)) throw new ProviderError(name, `${variable} is a setting of the service and is never served as a secret`);
    const value = env[variable];
    if (value === undefined) return undefined;
    if (field === undefined) return value;
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      throw new ProviderError(name, `${variable} is not a JSON object, so it has no field ${field}`);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new ProviderError(name, `${variable} is not a JSON object, so it has no field ${field}`);
    return pickField(name, path, parsed as Record<string, unknown>, field);
  }
  return {
    // A refusal is a rejected promise, as SecretProvider.get promises, not a synchronous throw.
    get: (path, field) => new Promise((resolve) => resolve(read(path, field))),
    check() {
      const count = Object.keys(env).filter((k) => k.startsWith(config.prefix) && !reserved.has(k)).length;
      return Promise.resolve({
        ok: true,
        message: config.prefix ? `${count} environment variable(s) start with ${config.prefix}` : `reads environment variables by name (${count} set)`,
      });
    },
  };
}
