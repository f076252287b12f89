import os from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import { formatDuration } from '@svc/timing';

import { CATALOGUE, type VariableName, catalogueEntry, isSecret } from './catalogue.js';
import { type DockerEngine, resolveDockerEngine } from './docker-engine.js';
import { ConfigError, type ConfigProblem } from './errors.js';
import { type MasterKey, parseMasterKeys } from './master-keys.js';
import { allAllowed, type NamespaceAllowlist, parseNamespaceAllowlist } from './namespace-allowlist.js';
import { parseTargetAllowlist, type TargetAllowlist } from './network-targets.js';
import { parseRegistryAuth, type RegistryAuthEntry } from './registry-auth.js';
import * as p from './parsers.js';
import { fileVariable, resolveFileVariables } from './secret-files.js';
import { type StorageTarget, parseStorageUrl } from './storage-url.js';

export const EXECUTOR_TYPES = ['process', 'docker', 'kubernetes'] as const;
/** Executor types an instance can be configured to run; `inline` is always on and not listed. */
export type ExecutorType = (typeof EXECUTOR_TYPES)[number];
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const LOG_FORMATS = ['json', 'text'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** The pool name rule of the spec's Executor.pool, also used for Kubernetes namespaces (the same DNS label rule). */
export const POOL_PATTERN = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * The whole configuration, read from `SVC_*` variables. Values are trimmed, and
 * an empty variable counts as unset, since compose files and shells often pass
 * `SVC_X=` or a stray trailing space.
 */
export interface Config {
  /** `SVC_PORT`; default 8080. 0 lets the OS pick a free port. */
  port: number;
  /** `SVC_HOST`; default `127.0.0.1`. */
  host: string;
  /**
   * `SVC_PUBLIC_URL` without a trailing slash; default `http://<host>:<port>`
   * (a wildcard host becomes loopback, an IPv6 host gets brackets).
   */
  publicUrl: string;
  /**
   * True when `SVC_PUBLIC_URL` was set. When false and `port` is 0, the
   * gateway should derive the public URL from the port it actually bound.
   */
  publicUrlExplicit: boolean;
  /**
   * `SVC_HEALTH_PORT` (formerly `SVC_METRICS_PORT`, still read when it is
   * unset): port of the /healthz, /readyz and /metrics server of the processes
   * without an HTTP API of their own (scheduler, dispatcher, maintenance),
   * bound on `host`; default undefined (not served). 0 picks a free port.
   */
  healthPort: number | undefined;
  /**
   * `SVC_HTTP_KEEPALIVE_TIMEOUT` in milliseconds: how long an idle keep-alive
   * connection of the gateway and the health servers stays open; default 75s,
   * above the 60 s idle timeout of common proxies and load balancers (Node's
   * own 5 s would make them reuse connections being closed). 1s to 1h.
   */
  httpKeepAliveTimeoutMs: number;
  /**
   * `SVC_HTTP_HEADERS_TIMEOUT` in milliseconds: time allowed for a request's
   * headers; default `httpKeepAliveTimeoutMs` + 1 s, and always longer than it.
   * At most 1h.
   */
  httpHeadersTimeoutMs: number;
  /** `SVC_SSE_KEEPALIVE_MS`: quiet time after which an event stream sends `: keep-alive`; default 15000 ms (10 to 3600000). */
  sseKeepAliveMs: number;
  /**
   * `SVC_TRUST_PROXY`, as express's `trust proxy` takes it: false (the
   * default) trusts no X-Forwarded-For; a number of proxy hops; or the
   * addresses and ranges (`loopback`, `linklocal`, `uniquelocal`, IPs, CIDRs)
   * of the proxies that may set it.
   */
  trustProxy: false | number | string[];
  /** `SVC_INSTANCE_NAME`; default `os.hostname()`. */
  instanceName: string;
  /** `SVC_DATA_DIR`, absolute; default `<cwd>/.svc-data`. */
  dataDir: string;
  /** `SVC_WORK_DIR`, absolute: task working directories of the process executor; default `<dataDir>/work`. */
  workDir: string;
  /** `SVC_DATABASE_URL`; default undefined, meaning the embedded PostgreSQL is used. */
  databaseUrl: string | undefined;
  /** `SVC_DATABASE_WAIT` in milliseconds: how long start-up retries an unreachable database; default 60s, 0 tries once. */
  databaseWaitMs: number;
  /** `SVC_STORAGE_URL`; default `file://<dataDir>/objects`. */
  storageUrl: string;
  /** `storageUrl` parsed. */
  storage: StorageTarget;
  /** `SVC_MASTER_KEYS` parsed; default [] (builtin secret writes are refused, except in embedded mode). */
  masterKeys: MasterKey[];
  /** `SVC_RETENTION_DAYS`; default 90. */
  retentionDays: number;
  /** `SVC_SESSION_TTL` in milliseconds; default 168h. */
  sessionTtlMs: number;
  /** `SVC_ADMIN_EMAIL`; default undefined. Set together with `adminPassword`. */
  adminEmail: string | undefined;
  /** `SVC_ADMIN_PASSWORD`; default undefined. Set together with `adminEmail`. */
  adminPassword: string | undefined;
  /** `SVC_POOLS`; default `['default']`. */
  pools: string[];
  /** `SVC_EXECUTORS`; default `['process']`. The dispatcher serves these plus `inline`, which is always on. */
  executors: ExecutorType[];
  /** `SVC_DEFAULT_EXECUTOR`; default `process`. */
  defaultExecutor: ExecutorType;
  /**
   * `SVC_TASK_USER`: the user (name or uid) the process executor runs tasks as
   * when the dispatcher is root; default `nobody`. Looked up when the
   * dispatcher starts (a user that does not exist stops it).
   */
  taskUser: string;
  /** `SVC_SPAWN_HELPER`: which spawn helper starts the process executor's tasks; default `auto` (perl when there is one, else node). */
  spawnHelper: 'auto' | 'perl' | 'node';
  /** `SVC_DEFAULT_IMAGE`; default undefined (docker and kubernetes tasks must name an image). */
  defaultImage: string | undefined;
  /** `SVC_WORKER_SLOTS`; default 8, per executor type on one dispatcher instance. */
  workerSlots: number;
  /** `SVC_K8S_MAX_JOBS`; default 50. */
  k8sMaxJobs: number;
  /** `SVC_HEARTBEAT_TIMEOUT` in milliseconds; default 60s. */
  heartbeatTimeoutMs: number;
  /** `SVC_SHUTDOWN_DRAIN` in milliseconds; default 0: how long a stopping API gateway fails `/readyz/traffic` while still serving, before it closes. */
  shutdownDrainMs: number;
  /** `SVC_RUNNER_CHECKIN_TIMEOUT` in milliseconds; default 60s: a container task's runner must call in within it. */
  runnerCheckinTimeoutMs: number;
  /** `SVC_KILL_DELAY_MS`: SIGTERM to SIGKILL delay of a task process group; default 10000 ms (0 to 3600000). */
  killDelayMs: number;
  /** `SVC_DOCKER_HOST`; default undefined (DOCKER_HOST, else the local socket). */
  dockerHost: string | undefined;
  /** `SVC_DOCKER_TLS_VERIFY`: TLS to a tcp:// engine; default undefined (DOCKER_TLS_VERIFY set to anything non-empty, as the docker CLI reads it). */
  dockerTlsVerify: boolean | undefined;
  /** `SVC_DOCKER_CERT_PATH`: directory of ca.pem, cert.pem and key.pem; default undefined (DOCKER_CERT_PATH, else ~/.docker). */
  dockerCertPath: string | undefined;
  /** `SVC_DOCKER_ALLOW_PLAINTEXT`: a non-loopback engine may be reached over plain HTTP; default false. */
  dockerAllowPlaintext: boolean;
  /**
   * The docker executor's engine and how to reach it (docker-engine.ts),
   * resolved from the four settings above and DOCKER_HOST, DOCKER_TLS_VERIFY,
   * DOCKER_CERT_PATH; undefined when SVC_EXECUTORS has no docker.
   */
  dockerEngine: DockerEngine | undefined;
  /**
   * `SVC_DOCKER_NETWORK`: network of docker tasks that name none; default
   * `svc-tasks`, a bridge network the dispatcher
   * creates when missing. Always allowed.
   */
  dockerNetwork: string;
  /**
   * `SVC_DOCKER_NETWORKS`: the other networks a flow's `executor.network`
   * may name, by namespace prefix (namespace-allowlist.ts; the flat form is
   * one entry for every namespace); default [] (none). `host` and
   * `container:<id>` only when listed as such (`container:*` allows every
   * `container:`).
   */
  dockerNetworks: NamespaceAllowlist;
  /**
   * `SVC_DOCKER_REGISTRY_AUTH`: the platform secret a docker task's image is
   * pulled with, by image prefix and namespace prefix (registry-auth.ts);
   * default [] (every pull is anonymous).
   */
  dockerRegistryAuth: RegistryAuthEntry[];
  /** `SVC_DOCKER_NETWORK_INTERNAL`: svc-tasks is created internal (the gateway must be attached to it); default false. */
  dockerNetworkInternal: boolean;
  /** `SVC_DOCKER_PIDS_LIMIT`: Docker PidsLimit of each task container; default 1024. */
  dockerPidsLimit: number;
  /** `SVC_RUNNER_URL`; default the public URL: where runners in containers reach the gateway. */
  runnerUrl: string;
  /** `SVC_RUNNER_IMAGE`; default undefined (svc-runner:<bundle hash>). */
  runnerImage: string | undefined;
  /** `SVC_K8S_API_URL`; default undefined. */
  k8sApiUrl: string | undefined;
  /** `SVC_K8S_NAMESPACE`; default `default`. */
  k8sNamespace: string;
  /** `SVC_K8S_TOKEN`; default undefined. */
  k8sToken: string | undefined;
  /** `SVC_K8S_TASK_SERVICE_ACCOUNT`: service account of task pods whose flow names none, its token never mounted; default `svc-task`. */
  k8sTaskServiceAccount: string;
  /**
   * `SVC_K8S_SERVICE_ACCOUNTS`: service accounts a flow may name, by
   * namespace prefix (namespace-allowlist.ts; the flat form is one entry for
   * every namespace); default [] (none). Never holds `k8sDispatcherServiceAccount`.
   */
  k8sServiceAccounts: NamespaceAllowlist;
  /**
   * `SVC_K8S_IMAGE_PULL_SECRETS`: Kubernetes Secrets a flow's
   * `image_pull_secrets` may name, by namespace prefix
   * (namespace-allowlist.ts); default [] (none).
   */
  k8sImagePullSecrets: NamespaceAllowlist;
  /** `SVC_K8S_DISPATCHER_SERVICE_ACCOUNT`: the dispatcher's own service account, refused to tasks; default `svc-dispatcher`. */
  k8sDispatcherServiceAccount: string;
  /** `SVC_K8S_RUN_AS_NON_ROOT`: task pods get `runAsNonRoot: true`; default false. */
  k8sRunAsNonRoot: boolean;
  /** `SVC_SCHEDULER_TICK_MS`: period of the scheduler's check for due schedules; default 1000 ms (10 to 3600000). */
  schedulerTickMs: number;
  /** `SVC_SCHEDULER_SYNC_MS`: period of the scheduler's check for changed flows and triggers; default 2000 ms (10 to 3600000). */
  schedulerSyncMs: number;
  /** `SVC_SCHEDULER_SWEEP_MS`: period of the scheduler's flow-trigger sweep; default 5000 ms (10 to 3600000). */
  schedulerSweepMs: number;
  /** `SVC_GIT_SYNC_TICK_MS`: period of the git sync worker's check for requested and due syncs; default 2000 ms (10 to 3600000). */
  gitSyncTickMs: number;
  /** `SVC_WATCHDOG_MS`: period of the maintenance lease holder's watchdog; default 5000 ms (10 to 3600000). */
  watchdogMs: number;
  /** `SVC_RETENTION_CRON`: when the maintenance lease holder runs retention, a node-cron expression in UTC; default `0 * * * *` (every hour). */
  retentionCron: string;
  /** `SVC_STORAGE_CLEANUP_CRON`: when the lease holder checks whether the storage cleanup is due; default `0 * * * *` (every hour). */
  storageCleanupCron: string;
  /** `SVC_MAX_FILE_BYTES`; default 10 MiB. */
  maxFileBytes: number;
  /** `SVC_MAX_BUNDLE_BYTES`; default 100 MiB. */
  maxBundleBytes: number;
  /** `SVC_MAX_ARTIFACT_BYTES`; default 100 MiB. */
  maxArtifactBytes: number;
  /** `SVC_MAX_INPUT_FILE_BYTES`, the largest upload for a `file` input; default 100 MiB. */
  maxInputFileBytes: number;
  /** `SVC_MAX_BODY_BYTES`, the JSON request body limit; default 10 MiB. */
  maxBodyBytes: number;
  /** `SVC_ORG_RATE_LIMIT` in requests per second; default 10. */
  orgRateLimit: number;
  /** `SVC_ORG_DAILY_QUOTA`: emails per organization and UTC day unless the organization has its own; default 10000. */
  orgDailyQuota: number;
  /** `SVC_AI_TRIAGE_PER_HOUR`: automatic triages started per hour at most (all gateways together); default 20. */
  aiTriagePerHour: number;
  /** `SVC_AI_TRIAGE_POLL_MS`: period of the gateway's look for failures to triage automatically; default 15000 ms (10 to 3600000). */
  aiTriagePollMs: number;
  /** `SVC_AI_USER_REQUESTS_PER_DAY`: AI requests (turns, triages) of one user per UTC day; default 200. */
  aiUserRequestsPerDay: number;
  /** `SVC_AI_USER_TOKENS_PER_DAY`: provider tokens of one user per UTC day; default 1000000. */
  aiUserTokensPerDay: number;
  /** `SVC_AI_TOTAL_REQUESTS_PER_DAY`: AI requests of the whole deployment per UTC day; default 2000. */
  aiTotalRequestsPerDay: number;
  /** `SVC_AI_TOTAL_TOKENS_PER_DAY`: provider tokens of the whole deployment per UTC day; default 10000000. */
  aiTotalTokensPerDay: number;
  /** `SVC_SMTP_URL`; default undefined. */
  smtpUrl: string | undefined;
  /** `SVC_SMTP_REQUIRE_TLS`: an smtp:// server must offer STARTTLS; default true, false when the SVC_SMTP_URL host is loopback. */
  smtpRequireTls: boolean;
  /** `SVC_EMAIL_RETENTION_DAYS`: days organization emails are kept; default 30. */
  emailRetentionDays: number;
  /** `SVC_HTTP_TASK_ALLOW_PRIVATE_TARGETS`: http tasks may reach non-public addresses; default false. */
  httpTaskAllowPrivateTargets: boolean;
  /** `SVC_HTTP_TASK_ALLOWED_HOSTS`: non-public hosts and ranges http tasks may reach all the same; default none. */
  httpTaskAllowedHosts: TargetAllowlist;
  /** `SVC_ALERT_ALLOW_PRIVATE_TARGETS`: alert webhooks may reach non-public addresses; default false. */
  alertAllowPrivateTargets: boolean;
  /** `SVC_ALERT_RULES_PER_NAMESPACE`: alert rules one namespace may hold (its children count apart); default 100. */
  alertRulesPerNamespace: number;
  /** `SVC_BACKFILL_MAX_IN_FLIGHT_PER_FLOW`: backfill executions of one flow unended at once, all its backfills together; default 100. */
  backfillMaxInFlightPerFlow: number;
  /** `SVC_BACKFILL_MAX_IN_FLIGHT_PER_NAMESPACE`: backfill executions of one namespace's flows unended at once (its children count apart); default 200. */
  backfillMaxInFlightPerNamespace: number;
  /** `SVC_LOG_LEVEL`; default `info`. */
  logLevel: LogLevel;
  /** `SVC_LOG_FORMAT`; default `json`. */
  logFormat: LogFormat;
  /** `SVC_URL`, the CLI's service URL without a trailing slash; default `http://127.0.0.1:8080`. */
  cliUrl: string;
  /** `SVC_TOKEN`, the CLI's API token; default undefined. */
  cliToken: string | undefined;
}

/** What parseConfig takes from the machine, injectable for tests. */
export interface ParseConfigOptions {
  /** Base of a relative `SVC_DATA_DIR` and of the default one; default `process.cwd()`. */
  cwd?: string;
  /** Default of `SVC_INSTANCE_NAME`; default `os.hostname()`. */
  hostname?: string;
}

/** Bounds of the `SVC_*_MS` periods: under 10 ms a loop would spin; over an hour it would look stuck. */
const MIN_PERIOD_MS = 10;
const MAX_MS = 3_600_000;
const interval = p.milliseconds(MIN_PERIOD_MS, MAX_MS);
/** Bounds of the HTTP server timeouts: under a second nothing could be reused; over an hour a dead peer holds a socket. */
const timeout = p.durationBetween(1000, MAX_MS);

const DOCKER_HOST_SCHEMES = ['unix:', 'tcp:', 'http:', 'https:', 'ssh:', 'npipe:'];
const EMAIL = /^[^\s@]+@[^\s@]+$/;

/**
 * Reads every `SVC_*` variable of the catalogue from `env`, a credential from
 * the file its `_FILE` form names when that is set (secret-files.ts).
 * @throws ConfigError listing every variable at fault, not just the first.
 */
export function parseConfig(given: Record<string, string | undefined> = process.env, options: ParseConfigOptions = {}): Config {
  // Files first, in one place, so every app and every reader below sees plain values.
  const { env, problems } = resolveFileVariables(
    given,
    CATALOGUE.map((e) => e.variable),
  );
  const fromFile = (name: VariableName) => env[name] !== undefined && given[name] !== env[name];
  const raw = (name: VariableName): string | undefined => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };
  const fail = (name: VariableName, message: string): undefined => {
    const value = raw(name);
    // A value read from a file is a credential's file: never echoed, but named.
    if (fromFile(name)) {
      problems.push({ variable: name, message: `${message} (read from ${fileVariable(name)})` });
      return undefined;
    }
    problems.push({ variable: name, message, got: value === undefined || isSecret(name) ? undefined : p.redactUrlPassword(value) });
    return undefined;
  };
  /** The parsed value, the parsed catalogue default when unset, or undefined after recording a problem. */
  function read<T>(name: VariableName, parse: (text: string) => T): T | undefined;
  function read<T>(name: VariableName, parse: (text: string) => T, fallback: () => T): T | undefined;
  function read<T>(name: VariableName, parse: (text: string) => T, fallback?: () => T): T | undefined {
    const value = raw(name);
    if (value === undefined) {
      if (fallback) return fallback();
      const def = catalogueEntry(name).default;
      // Catalogue defaults are parseable by construction (a unit test parses every one).
      return def === null ? undefined : parse(def);
    }
    try {
      return parse(value);
    } catch (err) {
      return fail(name, err instanceof Error ? err.message : String(err));
    }
  }

  const cwd = options.cwd ?? process.cwd();
  const smtpUrl = read('SVC_SMTP_URL', (text) => (p.url(text, ['smtp:', 'smtps:']), text));
  const port = read('SVC_PORT', p.port);
  const host = read('SVC_HOST', p.host);
  const publicUrl = read('SVC_PUBLIC_URL', p.baseUrl, () => (host === undefined || port === undefined ? '' : defaultPublicUrl(host, port)));
  const httpKeepAliveTimeoutMs = read('SVC_HTTP_KEEPALIVE_TIMEOUT', timeout);
  const httpHeadersTimeoutMs = read('SVC_HTTP_HEADERS_TIMEOUT', timeout, () => (httpKeepAliveTimeoutMs ?? 0) + 1000);
  if (
    raw('SVC_HTTP_HEADERS_TIMEOUT') !== undefined &&
    httpHeadersTimeoutMs !== undefined &&
    httpKeepAliveTimeoutMs !== undefined &&
    httpHeadersTimeoutMs <= httpKeepAliveTimeoutMs
  ) {
    // A headers timer shorter than the keep-alive one can cut a reused connection the client still counts on.
    fail('SVC_HTTP_HEADERS_TIMEOUT', `must be longer than SVC_HTTP_KEEPALIVE_TIMEOUT (${formatDuration(httpKeepAliveTimeoutMs)})`);
  }
  const dataDir = read(
    'SVC_DATA_DIR',
    (text) => path.resolve(cwd, text),
    () => path.resolve(cwd, '.svc-data'),
  );
  const storageUrl = read(
    'SVC_STORAGE_URL',
    (text) => (parseStorageUrl(text), text),
    () => (dataDir === undefined ? '' : pathToFileURL(path.join(dataDir, 'objects')).href),
  );
  const adminEmail = read('SVC_ADMIN_EMAIL', (text) => {
    if (!EMAIL.test(text)) throw new Error('must be an email address');
    return text;
  });
  const adminPassword = read('SVC_ADMIN_PASSWORD', (text) => text);
  // Reported on the missing one, since that is the variable the operator must add.
  if (raw('SVC_ADMIN_EMAIL') !== undefined && raw('SVC_ADMIN_PASSWORD') === undefined) {
    fail('SVC_ADMIN_PASSWORD', 'must be set when SVC_ADMIN_EMAIL is set');
  } else if (raw('SVC_ADMIN_PASSWORD') !== undefined && raw('SVC_ADMIN_EMAIL') === undefined) {
    fail('SVC_ADMIN_EMAIL', 'must be set when SVC_ADMIN_PASSWORD is set');
  }

  const k8sDispatcherServiceAccount = read('SVC_K8S_DISPATCHER_SERVICE_ACCOUNT', serviceAccountName);
  const k8sTaskServiceAccount = read('SVC_K8S_TASK_SERVICE_ACCOUNT', serviceAccountName);
  const k8sServiceAccounts = read(
    'SVC_K8S_SERVICE_ACCOUNTS',
    (text) => parseNamespaceAllowlist(text, (item) => void serviceAccountName(item)),
    (): NamespaceAllowlist => [],
  );
  // The dispatcher's own account has rights on Jobs (and so on every task's run token): no task may run with it.
  if (k8sDispatcherServiceAccount !== undefined && k8sServiceAccounts && allAllowed(k8sServiceAccounts).includes(k8sDispatcherServiceAccount)) {
    fail('SVC_K8S_SERVICE_ACCOUNTS', `must not list the dispatcher's own service account "${k8sDispatcherServiceAccount}" (SVC_K8S_DISPATCHER_SERVICE_ACCOUNT)`);
  }
  if (k8sDispatcherServiceAccount !== undefined && k8sTaskServiceAccount === k8sDispatcherServiceAccount) {
    fail('SVC_K8S_TASK_SERVICE_ACCOUNT', `must not be the dispatcher's own service account "${k8sDispatcherServiceAccount}" (SVC_K8S_DISPATCHER_SERVICE_ACCOUNT)`);
  }

  const config = {
    port,
    host,
    publicUrl,
    publicUrlExplicit: raw('SVC_PUBLIC_URL') !== undefined,
    healthPort: read('SVC_HEALTH_PORT', p.port, () => read('SVC_METRICS_PORT', p.port)),
    httpKeepAliveTimeoutMs,
    httpHeadersTimeoutMs,
    sseKeepAliveMs: read('SVC_SSE_KEEPALIVE_MS', interval),
    trustProxy: read('SVC_TRUST_PROXY', trustProxy),
    instanceName: read('SVC_INSTANCE_NAME', instanceName, () => options.hostname ?? os.hostname()),
    dataDir,
    workDir: read(
      'SVC_WORK_DIR',
      (text) => path.resolve(cwd, text),
      () => (dataDir === undefined ? '' : path.join(dataDir, 'work')),
    ),
    databaseUrl: read('SVC_DATABASE_URL', (text) => (p.url(text, ['postgres:', 'postgresql:']), text)),
    databaseWaitMs: read('SVC_DATABASE_WAIT', p.durationUpTo(MAX_MS)),
    storageUrl,
    storage: storageUrl ? parseStorageUrl(storageUrl) : undefined,
    masterKeys: read('SVC_MASTER_KEYS', parseMasterKeys) ?? [],
    retentionDays: read('SVC_RETENTION_DAYS', p.positiveInteger),
    sessionTtlMs: read('SVC_SESSION_TTL', p.positiveDuration),
    adminEmail,
    adminPassword,
    pools: read('SVC_POOLS', (text) =>
      p.list(text, (pool) => {
        if (!POOL_PATTERN.test(pool)) throw new Error('is not a pool name (at most 63 lower-case letters, digits, hyphens; no hyphen at either end)');
      }),
    ),
    executors: read('SVC_EXECUTORS', executors),
    defaultExecutor: read('SVC_DEFAULT_EXECUTOR', p.oneOf(EXECUTOR_TYPES)),
    defaultImage: read('SVC_DEFAULT_IMAGE', p.noWhitespace('an image reference')),
    workerSlots: read('SVC_WORKER_SLOTS', p.positiveInteger),
    k8sMaxJobs: read('SVC_K8S_MAX_JOBS', p.positiveInteger),
    heartbeatTimeoutMs: read('SVC_HEARTBEAT_TIMEOUT', p.positiveDuration),
    runnerCheckinTimeoutMs: read('SVC_RUNNER_CHECKIN_TIMEOUT', p.positiveDuration),
    shutdownDrainMs: read('SVC_SHUTDOWN_DRAIN', p.durationUpTo(10 * 60_000)),
    killDelayMs: read('SVC_KILL_DELAY_MS', p.milliseconds(0, MAX_MS)),
    taskUser: read('SVC_TASK_USER', (text) => {
      if (!/^([a-z_][a-z0-9_.-]*\$?|\d+)$/i.test(text) || text.length > 64) throw new Error('must be a user name or a numeric uid');
      return text;
    }),
    spawnHelper: read('SVC_SPAWN_HELPER', p.oneOf(['auto', 'perl', 'node'] as const)),
    dockerHost: read('SVC_DOCKER_HOST', dockerHost),
    dockerTlsVerify: read('SVC_DOCKER_TLS_VERIFY', trueOrFalse),
    dockerCertPath: read('SVC_DOCKER_CERT_PATH', (text) => path.resolve(cwd, text)),
    dockerAllowPlaintext: read('SVC_DOCKER_ALLOW_PLAINTEXT', trueOrFalse),
    dockerEngine: undefined as DockerEngine | undefined,
    dockerNetwork: read('SVC_DOCKER_NETWORK', dockerNetwork),
    dockerNetworks: read(
      'SVC_DOCKER_NETWORKS',
      (text) => parseNamespaceAllowlist(text, (item) => void dockerNetwork(item)),
      (): NamespaceAllowlist => [],
    ),
    dockerNetworkInternal: read('SVC_DOCKER_NETWORK_INTERNAL', trueOrFalse),
    dockerRegistryAuth: read('SVC_DOCKER_REGISTRY_AUTH', parseRegistryAuth, (): RegistryAuthEntry[] => []),
    dockerPidsLimit: read('SVC_DOCKER_PIDS_LIMIT', p.positiveInteger),
    runnerUrl: read('SVC_RUNNER_URL', p.baseUrl, () => publicUrl ?? ''),
    runnerImage: read('SVC_RUNNER_IMAGE', p.noWhitespace('an image reference')),
    k8sApiUrl: read('SVC_K8S_API_URL', p.baseUrl),
    k8sNamespace: read('SVC_K8S_NAMESPACE', (text) => {
      if (!POOL_PATTERN.test(text)) throw new Error('must be a Kubernetes namespace name (at most 63 lower-case letters, digits, hyphens)');
      return text;
    }),
    k8sToken: read('SVC_K8S_TOKEN', p.noWhitespace('a token')),
    k8sTaskServiceAccount,
    k8sServiceAccounts,
    k8sImagePullSecrets: read(
      'SVC_K8S_IMAGE_PULL_SECRETS',
      (text) => parseNamespaceAllowlist(text, (item) => void kubernetesSecretName(item)),
      (): NamespaceAllowlist => [],
    ),
    k8sDispatcherServiceAccount,
    k8sRunAsNonRoot: read('SVC_K8S_RUN_AS_NON_ROOT', trueOrFalse),
    schedulerTickMs: read('SVC_SCHEDULER_TICK_MS', interval),
    schedulerSyncMs: read('SVC_SCHEDULER_SYNC_MS', interval),
    schedulerSweepMs: read('SVC_SCHEDULER_SWEEP_MS', interval),
    gitSyncTickMs: read('SVC_GIT_SYNC_TICK_MS', interval),
    watchdogMs: read('SVC_WATCHDOG_MS', interval),
    retentionCron: read('SVC_RETENTION_CRON', p.cronSchedule),
    storageCleanupCron: read('SVC_STORAGE_CLEANUP_CRON', p.cronSchedule),
    maxFileBytes: read('SVC_MAX_FILE_BYTES', p.positiveByteSize),
    maxBundleBytes: read('SVC_MAX_BUNDLE_BYTES', p.positiveByteSize),
    maxArtifactBytes: read('SVC_MAX_ARTIFACT_BYTES', p.positiveByteSize),
    maxInputFileBytes: read('SVC_MAX_INPUT_FILE_BYTES', p.positiveByteSize),
    maxBodyBytes: read('SVC_MAX_BODY_BYTES', p.positiveByteSize),
    orgRateLimit: read('SVC_ORG_RATE_LIMIT', p.positiveNumber),
    orgDailyQuota: read('SVC_ORG_DAILY_QUOTA', nonNegativeInteger),
    aiTriagePerHour: read('SVC_AI_TRIAGE_PER_HOUR', p.positiveInteger),
    aiTriagePollMs: read('SVC_AI_TRIAGE_POLL_MS', interval),
    aiUserRequestsPerDay: read('SVC_AI_USER_REQUESTS_PER_DAY', p.positiveInteger),
    aiUserTokensPerDay: read('SVC_AI_USER_TOKENS_PER_DAY', p.positiveInteger),
    aiTotalRequestsPerDay: read('SVC_AI_TOTAL_REQUESTS_PER_DAY', p.positiveInteger),
    aiTotalTokensPerDay: read('SVC_AI_TOTAL_TOKENS_PER_DAY', p.positiveInteger),
    smtpUrl,
    smtpRequireTls: read('SVC_SMTP_REQUIRE_TLS', trueOrFalse, () => smtpRequiresTlsByDefault(smtpUrl)),
    emailRetentionDays: read('SVC_EMAIL_RETENTION_DAYS', p.positiveInteger),
    httpTaskAllowPrivateTargets: read('SVC_HTTP_TASK_ALLOW_PRIVATE_TARGETS', trueOrFalse),
    httpTaskAllowedHosts: read('SVC_HTTP_TASK_ALLOWED_HOSTS', parseTargetAllowlist, (): TargetAllowlist => ({ hosts: [], ranges: [] })),
    alertAllowPrivateTargets: read('SVC_ALERT_ALLOW_PRIVATE_TARGETS', trueOrFalse),
    alertRulesPerNamespace: read('SVC_ALERT_RULES_PER_NAMESPACE', p.countUpTo(100_000)),
    backfillMaxInFlightPerFlow: read('SVC_BACKFILL_MAX_IN_FLIGHT_PER_FLOW', p.countUpTo(100_000)),
    backfillMaxInFlightPerNamespace: read('SVC_BACKFILL_MAX_IN_FLIGHT_PER_NAMESPACE', p.countUpTo(100_000)),
    logLevel: read('SVC_LOG_LEVEL', p.oneOf(LOG_LEVELS)),
    logFormat: read('SVC_LOG_FORMAT', p.oneOf(LOG_FORMATS)),
    cliUrl: read('SVC_URL', p.baseUrl),
    cliToken: read('SVC_TOKEN', p.noWhitespace('a token')),
  };

  // Only a dispatcher running docker tasks reaches an engine: other apps ignore these settings.
  if (config.executors?.includes('docker') && !problems.some((x) => x.variable.startsWith('SVC_DOCKER_'))) {
    const resolved = resolveDockerEngine(
      { host: config.dockerHost, tlsVerify: config.dockerTlsVerify, certPath: config.dockerCertPath, allowPlaintext: config.dockerAllowPlaintext ?? false },
      given,
    );
    config.dockerEngine = resolved.engine;
    problems.push(...resolved.problems);
  }
  if (problems.length > 0) throw new ConfigError(orderByCatalogue(problems));
  // With no problem recorded, every field without an optional type has a value.
  return config as Config;
}

function defaultPublicUrl(host: string, port: number): string {
  // A wildcard bind address is not something a browser can open.
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

const PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** `false`, a hop count, or proxy addresses and CIDR ranges (`true`, trusting anyone to set the client address, is refused). */
function trustProxy(text: string): false | number | string[] {
  if (text === 'false') return false;
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    if (hops < 1 || hops > 10) throw new Error('a number of proxy hops must be from 1 to 10 (false for none)');
    return hops;
  }
  if (text === 'true') throw new Error('true would let any client choose its address; name the proxies (loopback, a CIDR range) or a number of hops');
  return p.list(text, (item) => {
    if (PROXY_NAMES.includes(item)) return;
    const [ip, prefix, ...rest] = item.split('/');
    const family = net.isIP(ip ?? '');
    const bits = family === 4 ? 32 : 128;
    const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits);
    if (!family || !prefixOk || rest.length) throw new Error(`${JSON.stringify(item)} is not loopback, linklocal, uniquelocal, an IP address or a CIDR range`);
  });
}

function instanceName(text: string): string {
  if (text.length > 253 || /[\s\p{Cc}]/u.test(text)) throw new Error('must be at most 253 characters without spaces');
  return text;
}

function executors(text: string): ExecutorType[] {
  const items = p.list(text, (item) => {
    if (item !== 'inline' && !(EXECUTOR_TYPES as readonly string[]).includes(item)) {
      throw new Error(`is not an executor type (use ${EXECUTOR_TYPES.join(', ')}; inline is always on)`);
    }
  });
  return items.filter((item): item is ExecutorType => item !== 'inline');
}

function dockerHost(text: string): string {
  const parsed = (() => {
    try {
      return new URL(text);
    } catch {
      throw new Error('must be a URL such as unix:///var/run/docker.sock or tcp://HOST:2375');
    }
  })();
  if (!DOCKER_HOST_SCHEMES.includes(parsed.protocol)) {
    throw new Error(`must start with one of ${DOCKER_HOST_SCHEMES.map((s) => `${s}//`).join(', ')}`);
  }
  if (parsed.protocol === 'unix:' && (parsed.host !== '' || !parsed.pathname.startsWith('/') || parsed.pathname === '/')) {
    throw new Error('a unix socket needs an absolute path: unix:///var/run/docker.sock');
  }
  if (parsed.protocol !== 'unix:' && parsed.protocol !== 'npipe:' && !parsed.hostname) throw new Error('must name a host');
  return text;
}

function nonNegativeInteger(text: string): number {
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text)) || Number(text) > 2_147_483_647) throw new Error('must be a whole number, 0 or more');
  return Number(text);
}

/**
 * SVC_SMTP_REQUIRE_TLS's default: on, except for a relay on a loopback
 * address (nothing crosses a network there). An smtps:// URL is TLS from the
 * first byte either way.
 */
export function smtpRequiresTlsByDefault(smtpUrl: string | undefined): boolean {
  if (!smtpUrl) return true;
  try {
    const host = new URL(smtpUrl).hostname.replace(/^\[|\]$/g, '').toLowerCase();
    return !(host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host));
  } catch {
    return true;
  }
}

function trueOrFalse(text: string): boolean {
  if (text === 'true' || text === 'false') return text === 'true';
  throw new Error('must be true or false');
}

/** A Docker network name, `host`, `none`, `bridge` or `container:<name or id>` (`container:*` in the allowlist). */
function dockerNetwork(text: string): string {
  if (!/^(container:(\*|[A-Za-z0-9][A-Za-z0-9_.-]*)|[A-Za-z0-9][A-Za-z0-9_.-]*)$/.test(text)) {
    throw new Error('must be a Docker network name (letters, digits, _ . -), host, or container:<name or id>');
  }
  return text;
}

/** A Kubernetes service account name (a DNS subdomain: lower-case letters, digits, - and ., at most 253). */
function serviceAccountName(text: string): string {
  if (text.length > 253 || !/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(text)) {
    throw new Error('must be a Kubernetes service account name (lower-case letters, digits, - and ., at most 253)');
  }
  return text;
}

/** A Kubernetes Secret name (a DNS subdomain: lower-case letters, digits, - and ., at most 253). */
function kubernetesSecretName(text: string): string {
  if (text.length > 253 || !/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(text)) {
    throw new Error('must be a Kubernetes Secret name (lower-case letters, digits, - and ., at most 253)');
  }
  return text;
}

function orderByCatalogue(problems: ConfigProblem[]): ConfigProblem[] {
  // A `_FILE` form sits right after its variable, as in describeConfig.
  const order = new Map<string, number>(
    CATALOGUE.flatMap(
      (e, i) =>
        [
          [e.variable, 2 * i],
          [fileVariable(e.variable), 2 * i + 1],
        ] as const,
    ),
  );
  // One line per variable: two messages about one variable are joined.
  const merged = new Map<string, ConfigProblem>();
  for (const problem of problems) {
    const seen = merged.get(problem.variable);
    if (seen) seen.message = `${seen.message}; ${problem.message}`;
    else merged.set(problem.variable, { ...problem });
  }
  // DOCKER_HOST and the like (read as the docker CLI reads them) are in no catalogue: they come last.
  const rank = (v: string) => order.get(v) ?? order.size * 2;
  return [...merged.values()].sort((a, b) => rank(a.variable) - rank(b.variable));
}
