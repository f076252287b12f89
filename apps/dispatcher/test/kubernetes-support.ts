// A deployment for the kubernetes executor's tests: a real api-gateway
// process (the runner inside each pod reports to it over HTTP with its run
// token), an in-process dispatcher serving only the kubernetes executor as
// main.ts builds it, and the Kubernetes API stand-in (@svc/k8s-standin),
// whose kubelet runs the pods in the test run's Docker engine on the host
// network. They share one test database and one object store directory.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BatchV1Api, CoreV1Api } from '@kubernetes/client-node';
import type Dockerode from 'dockerode';
import { loadConfig } from '@svc/config';
import { createDb, Notifier, registerInstance, setInstanceExecutors, type Db } from '@svc/db';
import { createTestDatabase, type TestDatabase } from '@svc/db/testing';
import { Engine } from '@svc/engine';
import { startStandin, type Job, type Standin } from '@svc/k8s-standin';
import { createTestLogger } from '@svc/logging';
import { createNamespace, saveChanges } from '@svc/namespaces';
import { FileObjectStore } from '@svc/storage';
import type { DispatcherContext } from '../src/context.js';
import { Dispatcher } from '../src/dispatcher.js';
import { kubeConfigFor, kubernetesExecutor } from '../src/executors/kubernetes.js';
import type { Executor } from '../src/executors/types.js';
import { until } from './support.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

export interface KubernetesEnv {
  standin: Standin;
  db: Db;
  engine: Engine;
  ctx: DispatcherContext;
  executor: Executor;
  /** Clients of the stand-in, as anyone with access to the cluster. */
  batch: BatchV1Api;
  core: CoreV1Api;
  gatewayUrl: string;
  /** What the dispatcher shows under /readyz's details (readinessDetail), by subject. */
  readiness: Record<string, string>;
  /** Every Job as the API stored it at creation (with the API server's defaults). */
  createdJobs: Job[];
  trigger(flowId: string): Promise<string>;
  /** The execution once ended, with its task runs. */
  ended(executionId: string, ms?: number): Promise<{ state: string; runs: { id: string; state: string; reason: string; error: string }[] }>;
  logLines(executionId: string): Promise<string[]>;
  /** The Jobs and pods the stand-in still holds. */
  leftovers(): { jobs: string[]; pods: string[] };
  close(): Promise<void>;
}

export interface KubernetesEnvOptions {
  docker: Dockerode;
  runnerImage: string;
  runnerArgv: string[];
  /** SVC_KILL_DELAY_MS of the dispatcher (the pods' grace period). Default 2000. */
  killDelayMs?: number;
  /** Period of the executor's sweep of leftover Jobs. Default 500 ms. */
  sweepMs?: number;
  /** More settings of the dispatcher (over the ones made here). */
  dispatcherEnv?: Record<string, string>;
}

/** A deployment whose namespace `ns` holds `files` (path → content; flows as JSON). */
export async function startKubernetesEnv(files: Record<string, string>, opts: KubernetesEnvOptions): Promise<KubernetesEnv> {
  const tdb: TestDatabase = await createTestDatabase();
  const db = createDb({ url: tdb.url, poolSize: 10 });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-k8s-'));
  const storage = await FileObjectStore.open(path.join(dir, 'objects'), { fsync: false });
  const now = () => new Date();
  await createNamespace(db.pool, { name: 'ns', createdBy: 't', now: now() });
  await saveChanges(
    { pool: db.pool, storage, now, maxFileBytes: 1 << 20, maxBundleBytes: 1 << 24 },
    { namespace: 'ns', message: 'flows', author: 't', changes: Object.entries(files).map(([p, content]) => ({ op: 'put' as const, path: p, content })) },
  );
  const standin = await startStandin({ docker: opts.docker, namespaces: ['default', 'svc-jobs'], backOffMs: 200 });
  const createdJobs: Job[] = [];
  standin.store.subscribe((e) => {
    if (e.resource === 'jobs' && e.type === 'ADDED') createdJobs.push(e.object);
  });

  const port = await freePort();
  const gatewayUrl = `http://127.0.0.1:${port}`;
  const masterKeys = `k1:${Buffer.alloc(32, 7).toString('base64')}`;
  const shared = { SVC_DATABASE_URL: tdb.url, SVC_DATA_DIR: dir, SVC_MASTER_KEYS: masterKeys };
  let gwOut = '';
  const gateway: ChildProcess = spawn(process.execPath, [path.join(root, 'apps/api-gateway/dist/main.js')], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...shared, SVC_PORT: String(port), SVC_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  gateway.stdout!.on('data', (d) => (gwOut += d));
  gateway.stderr!.on('data', (d) => (gwOut += d));
  const gatewayExited = new Promise((r) => gateway.once('exit', r));
  await until(
    `the gateway to answer (${gwOut})`,
    async () => {
      if (gateway.exitCode !== null) throw new Error(`the gateway exited:\n${gwOut}`);
      return fetch(`${gatewayUrl}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
    },
    90_000,
  );

  const config = loadConfig({
    ...shared,
    SVC_EXECUTORS: 'kubernetes',
    SVC_RUNNER_URL: gatewayUrl,
    SVC_K8S_API_URL: standin.url,
    SVC_K8S_TOKEN: standin.token,
    SVC_K8S_NAMESPACE: 'svc-jobs',
    // The hello flow's account, for the flows' namespace `ns` (and its descendants); reports-reader only for `other`.
    // svc-dispatcher (the default SVC_K8S_DISPATCHER_SERVICE_ACCOUNT) cannot be listed.
    SVC_K8S_SERVICE_ACCOUNTS: 'ns=etl-runner;other=reports-reader',
    // The hello flow's pull secret, for `ns`; regcred-other only for `other` (a flow of ns naming it fails).
    SVC_K8S_IMAGE_PULL_SECRETS: 'ns=regcred;other=regcred-other',
    SVC_K8S_MAX_JOBS: '3',
    SVC_KILL_DELAY_MS: String(opts.killDelayMs ?? 2000),
    ...opts.dispatcherEnv,
  });
  const readiness: Record<string, string> = {};
  const instanceId = `disp-k8s-${path.basename(dir)}`.toLowerCase();
  await registerInstance(db.pool, { id: instanceId, kind: 'dispatcher', hostname: 'test', version: 'test', pools: config.pools, executors: ['kubernetes'] }, now());
  const { logger } = createTestLogger({ level: 'warn' });
  const clock = { now };
  const notifier = new Notifier({ url: db.url, log: logger, applicationName: 'svc-dispatcher-listen' });
  const ctx: DispatcherContext = {
    config,
    db,
    notifier,
    log: logger,
    clock,
    storage,
    engine: new Engine({ pool: db.pool, storage, clock, config, log: logger }),
    instanceId,
    advertise: (executors) => setInstanceExecutors(db.pool, instanceId, executors),
    heartbeatMs: 10_000,
    killDelayMs: config.killDelayMs,
    readinessDetail: (subject, text) => {
      if (text) readiness[subject] = text;
      else delete readiness[subject];
    },
  };
  const kubeConfig = kubeConfigFor(config);
  if (!kubeConfig) throw new Error('no cluster configuration');
  const executor = kubernetesExecutor(ctx, { kubeConfig, runnerArgv: opts.runnerArgv, runnerImage: opts.runnerImage, sweepMs: opts.sweepMs ?? 500 });
  const dispatcher = new Dispatcher(ctx, [executor]);
  await dispatcher.start();
  const engine = new Engine({ pool: db.pool, storage, clock, config, log: logger });
  return {
    standin,
    db,
    engine,
    ctx,
    executor,
    batch: kubeConfig.makeApiClient(BatchV1Api),
    core: kubeConfig.makeApiClient(CoreV1Api),
    gatewayUrl,
    readiness,
    createdJobs,
    async trigger(flowId) {
      return (await engine.executions.trigger({ namespace: 'ns', flowId, triggerType: 'manual', createdBy: 't' })).id;
    },
    async ended(executionId, ms = 60_000) {
      return until(
        `execution ${executionId} to end`,
        async () => {
          const ex = (await db.pool.query(`SELECT state FROM executions WHERE id = $1`, [executionId])).rows[0];
          if (!ex || ['RUNNING', 'QUEUED', 'CANCELLING', 'PENDING'].includes(ex.state)) return undefined;
          const runs = (await db.pool.query(`SELECT id, state, reason, error FROM task_runs WHERE execution_id = $1 ORDER BY task_key, attempt`, [executionId])).rows;
          return { state: ex.state as string, runs };
        },
        ms,
      );
    },
    async logLines(executionId) {
      return (await db.pool.query<{ text: string }>(`SELECT text FROM log_lines WHERE execution_id = $1 ORDER BY n`, [executionId])).rows.map((r) => r.text);
    },
    leftovers() {
      return { jobs: standin.store.list('jobs', undefined).map((j) => j.metadata.name!), pods: standin.store.list('pods', undefined).map((p) => p.metadata.name!) };
    },
    async close() {
      await dispatcher.stop();
      await notifier.close();
      gateway.kill('SIGTERM');
      await Promise.race([gatewayExited, new Promise((r) => setTimeout(r, 15_000))]);
      if (gateway.exitCode === null) gateway.kill('SIGKILL');
      await standin.close();
      await db.close();
      await tdb.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
