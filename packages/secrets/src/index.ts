export { seal, open, openText, secretAad, providerCredentialsAad, platformSecretAad, generateMasterKey, formatMasterKeys, type Sealed } from './crypto.js';
export {
  BuiltinProviderDisabledError,
  MasterKeyMissingError,
  SecretDecryptError,
  SecretNotFoundError,
  SecretReferenceError,
  ProviderNotFoundError,
  ProviderExistsError,
  ProviderConfigError,
  ProviderError,
  PlatformSecretNotFoundError,
  type ProviderConfigProblem,
} from './errors.js';
export { GLOBAL_SCOPE, scopeChain, scopeOf, type SecretScope } from './scope.js';
export { parseSecretReference, formatSecretReference, BUILTIN_KEY_PATTERN, PROVIDER_NAME_PATTERN, type SecretReference } from './reference.js';
export { SecretStore, type SecretStoreOptions, type SecretMeta, type ResolvedSecret, type SecretCheckResult } from './secret-store.js';
export {
  PlatformSecretStore,
  PLATFORM_SECRET_NAME_PATTERN,
  type PlatformSecretStoreOptions,
  type PlatformSecretMeta,
  type PlatformSecretListed,
  type PlatformSealedAs,
} from './platform-store.js';
export { sealTaskRunValues, openTaskRunValues, type SealedTaskRunValues } from './task-run-values.js';
export { VariableStore, type VariableRecord } from './variable-store.js';
export { ProviderStore, type ProviderStoreOptions, type ProviderInfo, type NewProvider, type ProviderChange } from './provider-store.js';
export { ProviderScopeError, providerServes, parseProviderScope, ALL_NAMESPACES, MAX_PROVIDER_NAMESPACES } from './provider-scope.js';
export { rewrapSecrets, missingMasterKeyIds, deleteNamespaceSecretsAndVariables, type RewrapReport, type RewrapSkip, type RewrapOptions } from './maintenance.js';
export { PROVIDER_TYPES, isProviderType, DEFAULT_PROVIDER_TIMEOUT_MS, type ProviderType, type ProviderDeps, type SecretProvider } from './providers/types.js';
export { validateProviderSettings, buildProvider, type ValidSettings } from './providers/build.js';
export { createEnvProvider, parseEnvConfig, type EnvProviderConfig } from './providers/env.js';
export { createVaultProvider, parseVaultConfig, type VaultProviderConfig, type VaultCredentials } from './providers/vault.js';
