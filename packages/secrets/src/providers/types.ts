// What every external secret provider implements, and the resources they get.

/** An external store of secrets, reached through a `<provider>:<path>[#field]` reference. */
export interface SecretProvider {
  /**
   * The value at `path` (and `field` for structured secrets), or undefined
   * when the provider has no such secret.
   * @throws ProviderError when the provider cannot answer (unreachable, credentials refused).
   */
  get(path: string, field?: string): Promise<string | undefined>;
  /** Whether the provider answers with the configured settings; `message` never holds a secret. */
  check(): Promise<{ ok: boolean; message: string }>;
}

/** Provider types this package can build. */
export const PROVIDER_TYPES = ['env', 'vault'] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];

export function isProviderType(x: unknown): x is ProviderType {
  return typeof x === 'string' && (PROVIDER_TYPES as readonly string[]).includes(x);
}

/** Resources providers use, passed in so tests can substitute them. */
export interface ProviderDeps {
  /** Environment the `env` provider reads. Default: `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** HTTP client of the `vault` provider. Default: the global `fetch`. */
  fetch?: typeof fetch;
  /** Time limit of one provider request in milliseconds. Default 10 000. */
  timeoutMs?: number;
}

export const DEFAULT_PROVIDER_TIMEOUT_MS = 10_000;
