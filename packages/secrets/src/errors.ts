// One named error per failure. No message or field ever carries a secret
// value or key material: they name keys, key ids, providers and paths only,
// because these errors end up in logs, API envelopes and task run errors.

/** `SVC_MASTER_KEYS` is empty, so nothing can be sealed (HTTP 409 `builtin_provider_disabled`). */
export class BuiltinProviderDisabledError extends Error {
  override readonly name = 'BuiltinProviderDisabledError';
  readonly reason = 'builtin_provider_disabled';
  constructor() {
    super('builtin_provider_disabled: SVC_MASTER_KEYS is empty, so secrets cannot be stored');
  }
}

/** A ciphertext names a master key id that `SVC_MASTER_KEYS` does not list (a retired key, a wrong deployment). */
export class MasterKeyMissingError extends Error {
  override readonly name = 'MasterKeyMissingError';
  readonly reason = 'master_key_missing';
  constructor(readonly keyId: string) {
    super(`master_key_missing: SVC_MASTER_KEYS has no key with id ${keyId}`);
  }
}

/**
 * The ciphertext did not authenticate: it was altered, copied to another row
 * (the row is bound as additional data), or sealed by a different key under the
 * same id.
 */
export class SecretDecryptError extends Error {
  override readonly name = 'SecretDecryptError';
  readonly reason = 'secret_undecryptable';
  constructor(
    readonly keyId: string,
    options?: { cause?: unknown },
  ) {
    super(`secret_undecryptable: the ciphertext does not authenticate with master key ${keyId} (altered, moved to another row, or a different key under this id)`, options);
  }
}

/** No scope has the key: the namespace, its parents and the global scope were searched (or the provider has no such path). */
export class SecretNotFoundError extends Error {
  override readonly name = 'SecretNotFoundError';
  readonly reason = 'secret_not_found';
  constructor(
    readonly key: string,
    /** Where the search ran: the scopes tried, in order (`''` is global), or `provider:<name>`. */
    readonly searched: string[],
  ) {
    super(`secret_not_found: no secret ${key} in ${searched.map((s) => (s === '' ? 'global' : s)).join(', ')}`);
  }
}

/** A secret reference that is neither a builtin key nor `<provider>:<path>[#field]`. */
export class SecretReferenceError extends Error {
  override readonly name = 'SecretReferenceError';
  readonly reason = 'invalid_secret_reference';
  constructor(
    readonly reference: string,
    readonly problem: string,
  ) {
    super(`invalid secret reference ${JSON.stringify(reference)}: ${problem}`);
  }
}

/** No provider has this name (or it is disabled). */
export class ProviderNotFoundError extends Error {
  override readonly name = 'ProviderNotFoundError';
  readonly reason = 'provider_not_found';
  constructor(
    readonly provider: string,
    readonly disabled = false,
  ) {
    super(disabled ? `secret provider ${provider} is disabled` : `no secret provider named ${provider}`);
  }
}

/** A provider with this name exists already. */
export class ProviderExistsError extends Error {
  override readonly name = 'ProviderExistsError';
  readonly reason = 'conflict';
  constructor(readonly provider: string) {
    super(`a secret provider named ${provider} exists already`);
  }
}

/** One problem with a provider's settings: `field` is `type`, `config.<name>` or `credentials.<name>`. */
export interface ProviderConfigProblem {
  field: string;
  message: string;
}

/** The type, config or credentials of a provider are not valid for its type. */
export class ProviderConfigError extends Error {
  override readonly name = 'ProviderConfigError';
  readonly reason = 'validation_failed';
  constructor(readonly problems: ProviderConfigProblem[]) {
    super(`invalid secret provider settings: ${problems.map((p) => `${p.field} ${p.message}`).join('; ')}`);
  }
}

/**
 * The provider failed to answer (unreachable, refused the credentials, bad
 * answer). The message is built here from the status and path, never from a
 * response body, which could echo secret data.
 */
export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  readonly reason = 'provider_error';
  constructor(
    readonly provider: string,
    message: string,
    /** HTTP status of the provider's answer, when there was one. */
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(`secret provider ${provider}: ${message}`, options);
  }
}

/** No platform secret has this name (platform-store.ts). */
export class PlatformSecretNotFoundError extends Error {
  override readonly name = 'PlatformSecretNotFoundError';
  readonly reason = 'platform_secret_not_found';
  constructor(readonly secretName: string) {
    super(`platform_secret_not_found: no platform secret ${secretName}`);
  }
}
