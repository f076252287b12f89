export { formatByteSize, parseByteSize, ByteSizeError } from './byte-size.js';
export { describeConfig, describeTaskEnvironment, type TaskVariableDescription, type VariableDescription } from './catalogue.js';
export {
  type Config,
  type ExecutorType,
  EXECUTOR_TYPES,
  type LogFormat,
  LOG_FORMATS,
  type LogLevel,
  LOG_LEVELS,
  type ParseConfigOptions,
  parseConfig,
  POOL_PATTERN,
  smtpRequiresTlsByDefault,
} from './config.js';
export { DEFAULT_DOCKER_SOCKET, type DockerEngine, type DockerTlsFiles, isLoopbackHost, resolveDockerEngine } from './docker-engine.js';
export { DurationError, formatDuration, parseDuration } from '@svc/timing';
export { ConfigError, type ConfigProblem, formatProblems } from './errors.js';
export { CONFIG_EXIT_CODE, type LoadConfigOptions, loadConfig } from './load.js';
export { type MasterKey, MasterKeysError, parseMasterKeys } from './master-keys.js';
export { type FileStorageTarget, parseStorageUrl, type S3StorageTarget, type StorageTarget, StorageUrlError } from './storage-url.js';
export { jsonNestsDeeper, MAX_JSON_DEPTH } from './json-depth.js';
export { fileVariable, readVariable } from './secret-files.js';
export { addressListed, hostListed, literalTargetProblem, nonPublicAddressKind, parseTargetAllowlist, type TargetAllowlist, urlHost } from './network-targets.js';
export { type AllowlistEntry, allAllowed, allowedIn, describeAllowlist, type NamespaceAllowlist, namespaceCovers, parseNamespaceAllowlist } from './namespace-allowlist.js';
export { describeRegistryAuthEntry, entryCoversImage, imageLocation, type ImageLocation, parseRegistryAuth, registryAuthFor, type RegistryAuthEntry } from './registry-auth.js';
