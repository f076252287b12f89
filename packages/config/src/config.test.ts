import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { describe, it } from 'node:test';

import { CATALOGUE, describeConfig } from './catalogue.js';
import { parseConfig } from './config.js';
import { ConfigError, type ConfigProblem } from './errors.js';

const machine = { cwd: '/srv/app', hostname: 'node-7' };
const key = (n = 32) => crypto.randomBytes(n).toString('base64');

function problemsOf(env: Record<string, string>): ConfigProblem[] {
  try {
    parseConfig(env, machine);
  } catch (err) {
    assert.ok(err instanceof ConfigError, `expected a ConfigError, got ${String(err)}`);
    return err.problems;
  }
  assert.fail(`expected ${JSON.stringify(env)} to be refused`);
}

/** The one problem of `env`, which must be about `variable`. */
function problemOf(env: Record<string, string>, variable: string): ConfigProblem {
  const problems = problemsOf(env);
  assert.deepEqual(
    problems.map((p) => p.variable),
    [variable],
  );
  return problems[0]!;
}

describe('parseConfig defaults', () => {
  const config = parseConfig({}, machine);

  it('has the documented defaults', () => {
    assert.equal(config.port, 8080);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.publicUrl, 'http://127.0.0.1:8080');
    assert.equal(config.publicUrlExplicit, false);
    assert.equal(config.healthPort, undefined);
    assert.equal(config.sseKeepAliveMs, 15_000);
    assert.equal(config.instanceName, 'node-7');
    assert.equal(config.dataDir, '/srv/app/.svc-data');
    assert.equal(config.workDir, '/srv/app/.svc-data/work');
    assert.equal(config.databaseUrl, undefined);
    assert.equal(config.databaseWaitMs, 60_000);
    assert.equal(config.storageUrl, 'file:///srv/app/.svc-data/objects');
    assert.deepEqual(config.storage, { kind: 'file', dir: '/srv/app/.svc-data/objects' });
    assert.deepEqual(config.masterKeys, []);
    assert.equal(config.retentionDays, 90);
    assert.equal(config.sessionTtlMs, 168 * 3_600_000);
    assert.equal(config.adminEmail, undefined);
    assert.equal(config.adminPassword, undefined);
    assert.deepEqual(config.pools, ['default']);
    assert.deepEqual(config.executors, ['process']);
    assert.equal(config.defaultExecutor, 'process');
    assert.equal(config.defaultImage, undefined);
    assert.equal(config.workerSlots, 8);
    assert.equal(config.k8sMaxJobs, 50);
    assert.equal(config.heartbeatTimeoutMs, 60_000);
    assert.equal(config.runnerCheckinTimeoutMs, 60_000);
    assert.equal(config.shutdownDrainMs, 0);
    assert.equal(config.killDelayMs, 10_000);
    assert.equal(config.schedulerTickMs, 1_000);
    assert.equal(config.schedulerSyncMs, 2_000);
    assert.equal(config.schedulerSweepMs, 5_000);
    assert.equal(config.watchdogMs, 5_000);
    assert.equal(config.retentionCron, '0 * * * *');
    assert.equal(config.storageCleanupCron, '0 * * * *');
    assert.equal(config.dockerHost, undefined);
    assert.equal(config.k8sApiUrl, undefined);
    assert.equal(config.k8sNamespace, 'default');
    assert.equal(config.k8sToken, undefined);
    assert.equal(config.maxFileBytes, 10 * 1024 ** 2);
    assert.equal(config.maxBundleBytes, 100 * 1024 ** 2);
    assert.equal(config.maxArtifactBytes, 100 * 1024 ** 2);
    assert.equal(config.maxBodyBytes, 10 * 1024 ** 2);
    assert.equal(config.orgRateLimit, 10);
    assert.equal(config.smtpUrl, undefined);
    assert.equal(config.logLevel, 'info');
    assert.equal(config.logFormat, 'json');
    assert.equal(config.cliUrl, 'http://127.0.0.1:8080');
    assert.equal(config.cliToken, undefined);
  });

  it('defaults the data dir to the working directory of the process', () => {
    assert.equal(parseConfig({}).dataDir, `${process.cwd()}/.svc-data`);
  });

  it('treats empty and blank variables as unset', () => {
    assert.deepEqual(parseConfig({ SVC_PORT: '', SVC_LOG_LEVEL: '  ', SVC_MASTER_KEYS: '' }, machine), config);
  });
});

describe('parseConfig values', () => {
  it('reads every variable into a typed value', () => {
    const k1 = crypto.randomBytes(32);
    const config = parseConfig(
      {
        SVC_PORT: '9090',
        SVC_HOST: 'svc.internal',
        SVC_PUBLIC_URL: 'https://svc.example.com/',
        SVC_HEALTH_PORT: '9464',
        SVC_SSE_KEEPALIVE_MS: '250',
        SVC_TRUST_PROXY: 'loopback, 10.0.0.0/8, fd00::1',
        SVC_INSTANCE_NAME: 'dispatcher-1',
        SVC_DATA_DIR: 'state',
        SVC_DATABASE_URL: 'postgresql://svc:pw@db:5432/svc',
        SVC_DATABASE_WAIT: '0s',
        SVC_STORAGE_URL: 's3://k:s@minio:9000/objects?ssl=false',
        SVC_MASTER_KEYS: ` acc1:${k1.toString('base64')} `,
        SVC_RETENTION_DAYS: '30',
        SVC_SESSION_TTL: '12h30m',
        SVC_ADMIN_EMAIL: 'root@example.com',
        SVC_ADMIN_PASSWORD: 'hunter22',
        SVC_POOLS: 'default, gpu-1',
        SVC_EXECUTORS: 'process,inline',
        SVC_DEFAULT_EXECUTOR: 'process',
        SVC_DEFAULT_IMAGE: 'python:3.12-slim',
        SVC_WORKER_SLOTS: '16',
        SVC_K8S_MAX_JOBS: '5',
        SVC_HEARTBEAT_TIMEOUT: '90s',
        SVC_RUNNER_CHECKIN_TIMEOUT: '2m',
        SVC_SHUTDOWN_DRAIN: '10s',
        SVC_KILL_DELAY_MS: '0',
        SVC_WORK_DIR: 'scratch/tasks',
        SVC_SCHEDULER_TICK_MS: '50',
        SVC_SCHEDULER_SYNC_MS: '200',
        SVC_SCHEDULER_SWEEP_MS: '3600000',
        SVC_WATCHDOG_MS: '10',
        SVC_DOCKER_HOST: 'unix:///var/run/docker.sock',
        SVC_K8S_API_URL: 'https://k8s.local:6443',
        SVC_K8S_NAMESPACE: 'svc-jobs',
        SVC_K8S_TOKEN: 'eyJabc',
        SVC_MAX_FILE_BYTES: '1MB',
        SVC_MAX_BUNDLE_BYTES: '1GiB',
        SVC_MAX_ARTIFACT_BYTES: '2048',
        SVC_MAX_BODY_BYTES: '512KiB',
        SVC_ORG_RATE_LIMIT: '2.5',
        SVC_SMTP_URL: 'smtps://u:p@mail:465',
        SVC_LOG_LEVEL: 'debug',
        SVC_LOG_FORMAT: 'text',
        SVC_URL: 'http://localhost:9090',
        SVC_TOKEN: 'svc_abc',
      },
      machine,
    );
    assert.equal(config.port, 9090);
    assert.equal(config.host, 'svc.internal');
    assert.equal(config.publicUrl, 'https://svc.example.com');
    assert.equal(config.publicUrlExplicit, true);
    assert.equal(config.healthPort, 9464);
    assert.equal(config.sseKeepAliveMs, 250);
    assert.deepEqual(config.trustProxy, ['loopback', '10.0.0.0/8', 'fd00::1']);
    assert.equal(parseConfig({ SVC_TRUST_PROXY: '2' }, machine).trustProxy, 2);
    assert.equal(parseConfig({}, machine).trustProxy, false);
    assert.equal(config.instanceName, 'dispatcher-1');
    assert.equal(config.dataDir, '/srv/app/state');
    assert.equal(config.workDir, '/srv/app/scratch/tasks', 'relative to the working directory');
    assert.equal(config.databaseUrl, 'postgresql://svc:pw@db:5432/svc');
    assert.equal(config.databaseWaitMs, 0, '0s: one try');
    assert.equal(config.storage.kind, 's3');
    assert.equal(config.masterKeys.length, 1);
    assert.ok(config.masterKeys[0]!.key.equals(k1));
    assert.equal(config.retentionDays, 30);
    assert.equal(config.sessionTtlMs, 12.5 * 3_600_000);
    assert.equal(config.adminEmail, 'root@example.com');
    assert.equal(config.adminPassword, 'hunter22');
    assert.deepEqual(config.pools, ['default', 'gpu-1']);
    assert.deepEqual(config.executors, ['process']);
    assert.equal(config.defaultExecutor, 'process');
    assert.equal(config.defaultImage, 'python:3.12-slim');
    assert.equal(config.workerSlots, 16);
    assert.equal(config.k8sMaxJobs, 5);
    assert.equal(config.heartbeatTimeoutMs, 90_000);
    assert.equal(config.runnerCheckinTimeoutMs, 120_000);
    assert.equal(config.shutdownDrainMs, 10_000);
    assert.equal(config.killDelayMs, 0);
    assert.equal(config.schedulerTickMs, 50);
    assert.equal(config.schedulerSyncMs, 200);
    assert.equal(config.schedulerSweepMs, 3_600_000);
    assert.equal(config.watchdogMs, 10);
    assert.equal(config.dockerHost, 'unix:///var/run/docker.sock');
    assert.equal(config.k8sApiUrl, 'https://k8s.local:6443');
    assert.equal(config.k8sNamespace, 'svc-jobs');
    assert.equal(config.k8sToken, 'eyJabc');
    assert.equal(config.maxFileBytes, 1_000_000);
    assert.equal(config.maxBundleBytes, 1024 ** 3);
    assert.equal(config.maxArtifactBytes, 2048);
    assert.equal(config.maxBodyBytes, 512 * 1024);
    assert.equal(config.orgRateLimit, 2.5);
    assert.equal(config.smtpUrl, 'smtps://u:p@mail:465');
    assert.equal(config.logLevel, 'debug');
    assert.equal(config.logFormat, 'text');
    assert.equal(config.cliUrl, 'http://localhost:9090');
    assert.equal(config.cliToken, 'svc_abc');
  });

  it('derives the storage and public URL defaults from other variables', () => {
    const config = parseConfig({ SVC_DATA_DIR: '/data/svc', SVC_HOST: '10.0.0.5', SVC_PORT: '7000' }, machine);
    assert.equal(config.storageUrl, 'file:///data/svc/objects');
    assert.equal(config.publicUrl, 'http://10.0.0.5:7000');
  });

  it('makes the default public URL browsable for wildcard and IPv6 hosts', () => {
    assert.equal(parseConfig({ SVC_HOST: '0.0.0.0' }, machine).publicUrl, 'http://127.0.0.1:8080');
    assert.equal(parseConfig({ SVC_HOST: '::' }, machine).publicUrl, 'http://[::1]:8080');
    assert.equal(parseConfig({ SVC_HOST: 'fe80::1' }, machine).publicUrl, 'http://[fe80::1]:8080');
  });

  it('accepts port 0 and "inline" alone', () => {
    assert.equal(parseConfig({ SVC_PORT: '0' }, machine).port, 0);
    assert.deepEqual(parseConfig({ SVC_EXECUTORS: 'inline' }, machine).executors, []);
  });
});

describe('SVC_HEALTH_PORT', () => {
  it('is read under its former name SVC_METRICS_PORT when it is unset', () => {
    assert.equal(parseConfig({ SVC_METRICS_PORT: '9100' }, machine).healthPort, 9100);
    assert.equal(parseConfig({ SVC_METRICS_PORT: '9100', SVC_HEALTH_PORT: '9200' }, machine).healthPort, 9200);
  });
});

describe('parseConfig errors', () => {
  const cases: [string, Record<string, string>, string, RegExp][] = [
    ['a bad duration', { SVC_SESSION_TTL: '7d' }, 'SVC_SESSION_TTL', /must be a duration/],
    ['a bare number as duration', { SVC_HEARTBEAT_TIMEOUT: '60' }, 'SVC_HEARTBEAT_TIMEOUT', /must be a duration/],
    ['a zero duration', { SVC_HEARTBEAT_TIMEOUT: '0s' }, 'SVC_HEARTBEAT_TIMEOUT', /longer than 0/],
    ['a database wait that is not a duration', { SVC_DATABASE_WAIT: 'forever' }, 'SVC_DATABASE_WAIT', /must be a duration/],
    ['a database wait over an hour', { SVC_DATABASE_WAIT: '2h' }, 'SVC_DATABASE_WAIT', /at most 1h/],
    ['SVC_LOG_FORMAT=xml', { SVC_LOG_FORMAT: 'xml' }, 'SVC_LOG_FORMAT', /must be one of json, text/],
    ['SVC_LOG_LEVEL=verbose', { SVC_LOG_LEVEL: 'verbose' }, 'SVC_LOG_LEVEL', /must be one of debug, info, warn, error/],
    ['master keys without a colon', { SVC_MASTER_KEYS: 'abc' }, 'SVC_MASTER_KEYS', /no ":"/],
    ['master keys with bad base64', { SVC_MASTER_KEYS: 'k:***' }, 'SVC_MASTER_KEYS', /not valid base64/],
    ['a master key of the wrong length', { SVC_MASTER_KEYS: `k:${key(24)}` }, 'SVC_MASTER_KEYS', /24 bytes, expected 32/],
    ['a duplicate master key id', { SVC_MASTER_KEYS: `k:${key()},k:${key()}` }, 'SVC_MASTER_KEYS', /repeats a key id/],
    ['a negative slot count', { SVC_WORKER_SLOTS: '-1' }, 'SVC_WORKER_SLOTS', /whole number of 1 or more/],
    ['a zero slot count', { SVC_WORKER_SLOTS: '0' }, 'SVC_WORKER_SLOTS', /whole number of 1 or more/],
    ['a fractional slot count', { SVC_WORKER_SLOTS: '2.5' }, 'SVC_WORKER_SLOTS', /whole number of 1 or more/],
    ['a non-numeric job limit', { SVC_K8S_MAX_JOBS: 'many' }, 'SVC_K8S_MAX_JOBS', /whole number/],
    ['a zero retention', { SVC_RETENTION_DAYS: '0' }, 'SVC_RETENTION_DAYS', /whole number of 1 or more/],
    ['a port out of range', { SVC_PORT: '65536' }, 'SVC_PORT', /port number/],
    ['a non-numeric port', { SVC_PORT: 'http' }, 'SVC_PORT', /port number/],
    ['a negative port', { SVC_PORT: '-80' }, 'SVC_PORT', /port number/],
    ['a health port out of range', { SVC_HEALTH_PORT: '70000' }, 'SVC_HEALTH_PORT', /port number/],
    ['a health port under its former name out of range', { SVC_METRICS_PORT: '70000' }, 'SVC_METRICS_PORT', /port number/],
    ['a bad host', { SVC_HOST: 'not a host' }, 'SVC_HOST', /IP address or a host name/],
    ['a public URL that is not http', { SVC_PUBLIC_URL: 'ftp://svc.example.com' }, 'SVC_PUBLIC_URL', /http:\/\/ or https:\/\//],
    ['a public URL that is not a URL', { SVC_PUBLIC_URL: 'svc.example.com' }, 'SVC_PUBLIC_URL', /must be a URL/],
    ['a public URL with a query', { SVC_PUBLIC_URL: 'https://svc.example.com/?a=1' }, 'SVC_PUBLIC_URL', /query/],
    ['a CLI URL that is not a URL', { SVC_URL: 'localhost:8080' }, 'SVC_URL', /http/],
    ['a database URL of another engine', { SVC_DATABASE_URL: 'mysql://db/svc' }, 'SVC_DATABASE_URL', /postgres/],
    ['a relative storage dir', { SVC_STORAGE_URL: 'file://objects' }, 'SVC_STORAGE_URL', /absolute path/],
    ['an s3 URL without a bucket', { SVC_STORAGE_URL: 's3://k:s@minio:9000' }, 'SVC_STORAGE_URL', /bucket is missing/],
    ['an smtp URL of another scheme', { SVC_SMTP_URL: 'http://mail' }, 'SVC_SMTP_URL', /smtp:\/\/ or smtps:\/\//],
    ['a docker host of another scheme', { SVC_DOCKER_HOST: 'docker.sock' }, 'SVC_DOCKER_HOST', /must be a URL/],
    ['a relative docker socket', { SVC_DOCKER_HOST: 'unix://docker.sock' }, 'SVC_DOCKER_HOST', /absolute path/],
    ['a k8s API URL that is not http', { SVC_K8S_API_URL: 'k8s.local:6443' }, 'SVC_K8S_API_URL', /http/],
    ['an upper-case pool name', { SVC_POOLS: 'Default' }, 'SVC_POOLS', /"Default" is not a pool name/],
    ['a pool name with a trailing hyphen', { SVC_POOLS: 'gpu-' }, 'SVC_POOLS', /not a pool name/],
    ['a pool name too long', { SVC_POOLS: 'a'.repeat(64) }, 'SVC_POOLS', /not a pool name/],
    ['an empty pool entry', { SVC_POOLS: 'a,,b' }, 'SVC_POOLS', /empty entry/],
    ['a pool listed twice', { SVC_POOLS: 'a,a' }, 'SVC_POOLS', /lists "a" twice/],
    ['an unknown executor', { SVC_EXECUTORS: 'process,lambda' }, 'SVC_EXECUTORS', /"lambda" is not an executor type/],
    ['an unknown default executor', { SVC_DEFAULT_EXECUTOR: 'inline' }, 'SVC_DEFAULT_EXECUTOR', /one of process, docker, kubernetes/],
    ['an unknown spawn helper', { SVC_SPAWN_HELPER: 'python' }, 'SVC_SPAWN_HELPER', /one of auto, perl, node/],
    // Not advertised before they exist: their tasks would wait forever.
    ['a bad k8s namespace', { SVC_K8S_NAMESPACE: 'Jobs_NS' }, 'SVC_K8S_NAMESPACE', /namespace name/],
    ['an admin email without a password', { SVC_ADMIN_EMAIL: 'a@example.com' }, 'SVC_ADMIN_PASSWORD', /must be set when SVC_ADMIN_EMAIL is set/],
    ['an admin password without an email', { SVC_ADMIN_PASSWORD: 'pw' }, 'SVC_ADMIN_EMAIL', /must be set when SVC_ADMIN_PASSWORD is set/],
    ['an admin email that is not one', { SVC_ADMIN_EMAIL: 'root', SVC_ADMIN_PASSWORD: 'pw' }, 'SVC_ADMIN_EMAIL', /email address/],
    ['a byte size with an unknown unit', { SVC_MAX_FILE_BYTES: '10XB' }, 'SVC_MAX_FILE_BYTES', /unknown unit "XB"/],
    ['a byte size that is not one', { SVC_MAX_BUNDLE_BYTES: 'big' }, 'SVC_MAX_BUNDLE_BYTES', /must be a byte size/],
    ['a zero byte size', { SVC_MAX_ARTIFACT_BYTES: '0' }, 'SVC_MAX_ARTIFACT_BYTES', /more than 0 bytes/],
    ['a fractional plain byte size', { SVC_MAX_BODY_BYTES: '1.5' }, 'SVC_MAX_BODY_BYTES', /whole number/],
    ['a zero rate limit', { SVC_ORG_RATE_LIMIT: '0' }, 'SVC_ORG_RATE_LIMIT', /greater than 0/],
    ['a negative rate limit', { SVC_ORG_RATE_LIMIT: '-5' }, 'SVC_ORG_RATE_LIMIT', /greater than 0/],
    ['a token with spaces', { SVC_TOKEN: 'svc_a b' }, 'SVC_TOKEN', /without spaces/],
    ['an image with spaces', { SVC_DEFAULT_IMAGE: 'my image' }, 'SVC_DEFAULT_IMAGE', /without spaces/],
    ['a tick that is not a number', { SVC_SCHEDULER_TICK_MS: 'fast' }, 'SVC_SCHEDULER_TICK_MS', /whole number of milliseconds from 10 to 3600000/],
    ['a tick with a unit', { SVC_SCHEDULER_TICK_MS: '1s' }, 'SVC_SCHEDULER_TICK_MS', /whole number of milliseconds/],
    ['a sync period under 10 ms', { SVC_SCHEDULER_SYNC_MS: '9' }, 'SVC_SCHEDULER_SYNC_MS', /from 10 to 3600000/],
    ['a fractional sweep period', { SVC_SCHEDULER_SWEEP_MS: '2.5' }, 'SVC_SCHEDULER_SWEEP_MS', /whole number of milliseconds/],
    ['a zero watchdog period', { SVC_WATCHDOG_MS: '0' }, 'SVC_WATCHDOG_MS', /from 10 to 3600000/],
    [
      'a retention cron in words',
      { SVC_RETENTION_CRON: 'every hour' },
      'SVC_RETENTION_CRON',
      /cron expression of 5 fields, or 6 with seconds first.*expected 5 or 6 fields but got 2/,
    ],
    ['a storage cleanup cron with minute 61', { SVC_STORAGE_CLEANUP_CRON: '61 * * * *' }, 'SVC_STORAGE_CLEANUP_CRON', /minute: 61/],
    ['a keep-alive over an hour', { SVC_SSE_KEEPALIVE_MS: '3600001' }, 'SVC_SSE_KEEPALIVE_MS', /from 10 to 3600000/],
    ['trusting every proxy', { SVC_TRUST_PROXY: 'true' }, 'SVC_TRUST_PROXY', /any client/],
    ['zero proxy hops', { SVC_TRUST_PROXY: '0' }, 'SVC_TRUST_PROXY', /from 1 to 10/],
    ['a proxy that is not an address', { SVC_TRUST_PROXY: 'loopback, proxy.local' }, 'SVC_TRUST_PROXY', /proxy\.local/],
    ['a CIDR prefix past the address size', { SVC_TRUST_PROXY: '10.0.0.0/33' }, 'SVC_TRUST_PROXY', /CIDR/],
    ['a negative kill delay', { SVC_KILL_DELAY_MS: '-1' }, 'SVC_KILL_DELAY_MS', /whole number of milliseconds from 0 to 3600000/],
    ['a kill delay in seconds', { SVC_KILL_DELAY_MS: '10s' }, 'SVC_KILL_DELAY_MS', /whole number of milliseconds/],
  ];
  for (const [what, env, variable, message] of cases) {
    it(`refuses ${what}`, () => {
      const problem = problemOf(env, variable);
      assert.match(problem.message, message);
    });
  }

  it('reports every variable at fault, in catalogue order, one entry each', () => {
    const problems = problemsOf({
      SVC_LOG_FORMAT: 'xml',
      SVC_PORT: 'abc',
      SVC_WORKER_SLOTS: '0',
      SVC_POOLS: 'A,A',
      SVC_SESSION_TTL: '1d',
      SVC_ADMIN_EMAIL: 'a@b',
    });
    assert.deepEqual(
      problems.map((p) => p.variable),
      ['SVC_PORT', 'SVC_SESSION_TTL', 'SVC_ADMIN_PASSWORD', 'SVC_POOLS', 'SVC_WORKER_SLOTS', 'SVC_LOG_FORMAT'],
    );
    assert.match(problems.find((p) => p.variable === 'SVC_POOLS')!.message, /"A" is not a pool name .*; lists "A" twice$/);
  });

  it('shows the value of ordinary variables but never of secrets', () => {
    const password = 'correct horse battery';
    const problems = problemsOf({
      SVC_LOG_LEVEL: 'loud',
      SVC_MASTER_KEYS: 'k:c2VjcmV0',
      SVC_ADMIN_PASSWORD: password,
      SVC_TOKEN: 'svc_ secret',
      SVC_K8S_TOKEN: 'tok en',
    });
    const byName = new Map(problems.map((p) => [p.variable, p]));
    assert.equal(byName.get('SVC_LOG_LEVEL')!.got, 'loud');
    for (const secret of ['SVC_MASTER_KEYS', 'SVC_TOKEN', 'SVC_K8S_TOKEN']) {
      assert.ok(byName.has(secret), `${secret} should be reported`);
      assert.equal(byName.get(secret)!.got, undefined);
    }
    // The password is set without an email: the problem is reported on the email, the password stays unshown.
    assert.ok(byName.has('SVC_ADMIN_EMAIL'));
    const text = JSON.stringify(problems);
    for (const leaked of ['c2VjcmV0', password, 'svc_ secret', 'tok en']) assert.ok(!text.includes(leaked), `leaked ${leaked}`);
  });

  it('hides passwords inside URLs it echoes', () => {
    const db = problemOf({ SVC_DATABASE_URL: 'mysql://svc:s3cr3t@db/svc' }, 'SVC_DATABASE_URL');
    assert.equal(db.got, 'mysql://svc:***@db/svc');
    const store = problemOf({ SVC_STORAGE_URL: 's3://AKIA:abc/def@minio:9000/b' }, 'SVC_STORAGE_URL');
    assert.equal(store.got, 's3://AKIA:***@minio:9000/b');
  });

  it('puts every problem in the error message', () => {
    assert.throws(
      () => parseConfig({ SVC_PORT: 'x', SVC_LOG_LEVEL: 'y' }, machine),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.message === 'invalid configuration:\n  SVC_PORT: must be a port number from 0 to 65535 (got "x")\n  SVC_LOG_LEVEL: must be one of debug, info, warn, error (got "y")',
    );
  });
});

describe('describeConfig', () => {
  it('describes every variable once, with a sentence', () => {
    const rows = describeConfig();
    const names = rows.map((r) => r.variable);
    assert.equal(new Set(names).size, names.length);
    for (const row of rows) {
      // SVC_* are ours; OTEL_* the OpenTelemetry specification's, kept under their standard names (docs/operating/tracing.md).
      assert.match(row.variable, /^(SVC|OTEL)_[A-Z0-9_]+$/);
      assert.ok(row.description.length >= 20 && row.description.endsWith('.'), `${row.variable}: ${row.description}`);
    }
  });

  it('lists every variable of the spec and of our own choices', () => {
    const names = new Set(describeConfig().map((r) => r.variable));
    // grep -o 'SVC_[A-Z0-9_]*' over both documents, less the task runtime contract (describeTaskEnvironment).
    const fromDocuments = [
      'SVC_ADMIN_EMAIL',
      'SVC_ADMIN_PASSWORD',
      'SVC_DATABASE_URL',
      'SVC_DATA_DIR',
      'SVC_HEARTBEAT_TIMEOUT',
      'SVC_HOST',
      'SVC_K8S_MAX_JOBS',
      'SVC_LOG_FORMAT',
      'SVC_LOG_LEVEL',
      'SVC_MASTER_KEYS',
      'SVC_MAX_ARTIFACT_BYTES',
      'SVC_MAX_BUNDLE_BYTES',
      'SVC_MAX_FILE_BYTES',
      'SVC_ORG_RATE_LIMIT',
      'SVC_POOLS',
      'SVC_PORT',
      'SVC_PUBLIC_URL',
      'SVC_RETENTION_DAYS',
      'SVC_SESSION_TTL',
      'SVC_SMTP_URL',
      'SVC_STORAGE_URL',
      'SVC_TOKEN',
      'SVC_URL',
      'SVC_WORKER_SLOTS',
    ];
    for (const name of fromDocuments) assert.ok(names.has(name), `${name} is missing`);
  });

  it('matches what parseConfig reads', () => {
    const read = new Set<string>();
    const env = new Proxy({} as Record<string, string | undefined>, {
      get(_target, name) {
        if (typeof name === 'string') read.add(name);
        return undefined;
      },
    });
    parseConfig(env, machine);
    assert.deepEqual(
      [...read].sort(),
      describeConfig()
        .map((r) => r.variable)
        .sort(),
    );
  });

  it('gives defaults that parse to the values parseConfig uses', () => {
    const literal = Object.fromEntries(CATALOGUE.filter((e) => e.default !== null && !('derived' in e)).map((e) => [e.variable, e.default as string]));
    assert.deepEqual(parseConfig(literal, machine), parseConfig({}, machine));
  });
});
