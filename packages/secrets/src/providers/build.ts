// From a stored provider row (type, config, opened credentials) to a live provider.
import { ProviderConfigError, type ProviderConfigProblem } from '../errors.js';
import { assertNever } from '@svc/assert';
import { createEnvProvider, parseEnvConfig } from './env.js';
import { isProviderType, PROVIDER_TYPES, type ProviderDeps, type ProviderType, type SecretProvider } from './types.js';
import { createVaultProvider, parseVaultConfig } from './vault.js';

export type Settings = Record<string, unknown>;

/** Normalized, valid settings of one provider type. */
export interface ValidSettings {
  type: ProviderType;
  config: Settings;
  /** Undefined when the type takes none. */
  credentials: Settings | undefined;
}

/**
 * Checks `config` and `credentials` against `type` and fills defaults.
 * @throws ProviderConfigError listing every problem.
 */
export function validateProviderSettings(type: string, config: Settings, credentials: Settings | undefined): ValidSettings {
  if (!isProviderType(type)) throw new ProviderConfigError([{ field: 'type', message: `must be one of: ${PROVIDER_TYPES.join(', ')}` }]);
  let problems: ProviderConfigProblem[];
  let out: ValidSettings;
  switch (type) {
    case 'env': {
      const r = parseEnvConfig(config, credentials);
      problems = r.problems;
      out = { type, config: { ...r.config }, credentials: undefined };
      break;
    }
    case 'vault': {
      const r = parseVaultConfig(config, credentials);
      problems = r.problems;
      out = { type, config: { ...r.config }, credentials: r.credentials ? { ...r.credentials } : undefined };
      break;
    }
    default:
      return assertNever(type);
  }
  if (problems.length > 0) throw new ProviderConfigError(problems);
  return out;
}

/** A live provider from valid settings (run `validateProviderSettings` first). */
export function buildProvider(name: string, s: ValidSettings, deps: ProviderDeps = {}): SecretProvider {
  switch (s.type) {
    case 'env':
      return createEnvProvider(name, parseEnvConfig(s.config, s.credentials).config, deps);
    case 'vault': {
      const r = parseVaultConfig(s.config, s.credentials);
      if (!r.credentials) throw new ProviderConfigError(r.problems);
      return createVaultProvider(name, r.config, r.credentials, deps);
    }
    default:
      return assertNever(s.type);
  }
}
